/**
 * The dashboard page is self-contained (issue 16: no CDN, no build step for the user):
 * one HTML file whose styles and script are inline, loading nothing from anywhere, and
 * the package ships it. The browser tests (test/live/dashboard.test.ts) run it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DASHBOARD_CSP, dashboardPage } from '../../src/adapters/dashboard.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const page = readFileSync(`${ROOT}dashboard/index.html`, 'utf8');

describe('the dashboard page', () => {
  it('is served as the file in dashboard/', () => {
    expect(dashboardPage()).toBe(page);
  });

  it('loads no script, style, font or image from any URL', () => {
    expect(page).not.toMatch(/<script[^>]*\bsrc=/i);
    expect(page).not.toMatch(/<link[^>]*rel="?stylesheet/i);
    expect(page).not.toMatch(/@import|url\(/i);
    expect(page).not.toMatch(/https?:\/\//i);
    expect([...page.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1])).toEqual(['data:,']);
  });

  it('has one inline script and one inline style sheet', () => {
    expect(page.match(/<script>/g)).toHaveLength(1);
    expect(page.match(/<style>/g)).toHaveLength(1);
  });

  it('is sent with a policy that lets the browser load nothing from another host', () => {
    expect(DASHBOARD_CSP.split('; ')).toEqual([
      "default-src 'none'",
      "script-src 'unsafe-inline'",
      "style-src 'unsafe-inline'",
      "connect-src 'self'",
      'img-src data:',
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ]);
  });

  it('is in the package', () => {
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('dashboard');
  });
});
