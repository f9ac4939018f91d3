/**
 * The dashboard page (`GET {base}/__sim/ui`): one self-contained HTML file with its
 * styles and script inline, no build step and nothing fetched from elsewhere (the
 * machines and many staging networks are offline). It holds no data: it reads
 * `GET /__sim/overview`, follows `GET /__sim/events` and drives the clock through the
 * control API, with the admin token the user gives it.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where the page is, from src/adapters (sources) or dist/src/adapters (the package). */
const PAGE_CANDIDATES = ['../../dashboard/index.html', '../../../dashboard/index.html'];

/**
 * What the page may load: only itself (inline code), the same server's API and stream,
 * and data: images. A CDN or any other host is refused by the browser.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  "connect-src 'self'",
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The page's HTML, read from the package's `dashboard/index.html` (read per request, so
 * it is never stale and costs nothing while unused).
 * @example res.type('text/html').send(dashboardPage())
 */
export function dashboardPage(): string {
  for (const candidate of PAGE_CANDIDATES) {
    try {
      return readFileSync(fileURLToPath(new URL(candidate, import.meta.url)), 'utf8');
    } catch {
      // Not in this layout; try the next.
    }
  }
  throw new Error('dashboard/index.html is missing from the voxsim package');
}
