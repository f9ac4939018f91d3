/**
 * The README's examples are files that the suite runs: the MSW test is in examples/
 * (run as a test file), the server walk-through (curl) is run here against a real server
 * with fetch (so the suite needs no curl), and
 * the scenario is in scenarios/ (run by the scenario tests). These tests keep the README
 * showing exactly those files.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCurlScript } from './support/curl-script.js';
import { ROOT, startServer, stop } from './support/processes.js';

const readme = readFileSync(`${ROOT}README.md`, 'utf8');
const read = (path: string) => readFileSync(`${ROOT}${path}`, 'utf8');

/** The code blocks of the README that follow a line naming `file`. */
function blockAfter(marker: string): string | undefined {
  const at = readme.indexOf(marker);
  if (at < 0) return undefined;
  return /```[a-z]*\n([\s\S]*?)```/.exec(readme.slice(at))?.[1];
}

describe('README examples', () => {
  it.each(['examples/msw.test.ts', 'examples/vitest.test.ts', 'examples/express.test.ts', 'examples/server.sh', 'scenarios/voicemail-then-human.yaml'])('shows %s exactly as the file the suite runs', (file) => {
    expect(blockAfter(`<!-- example: ${file} -->`)).toBe(read(file));
  });

  it('shows the dashboard screenshot that the browser tests take, and links the phone one', () => {
    const shown = [...readme.matchAll(/!\[[^\]]+\]\(([^)]+)\)/g)].map((m) => m[1]);
    expect(shown).toEqual(['docs/screenshots/dashboard-1280x800.png']);
    expect(readme).toContain('(docs/screenshots/dashboard-phone-390x844.png)');
    for (const file of ['docs/screenshots/dashboard-1280x800.png', 'docs/screenshots/dashboard-phone-390x844.png']) {
      expect(readFileSync(`${ROOT}${file}`).subarray(1, 4).toString()).toBe('PNG');
    }
  });

  it('runs the server walk-through against `voxsim serve` and the lead ends completed', async () => {
    const server = await startServer(['--quiet', '--start', '2026-03-02T09:00:00Z']);
    // The script is read and run with fetch (support/curl-script.ts): the suite needs no curl or bash.
    const stdout = await runCurlScript(read('examples/server.sh'), { VOXSIM_URL: server.url });
    const [started, advanced, leads] = stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(started).toEqual({ message: 'Campaign started successfully.', success: true, data: { campaign_id: 1, status: 'in-progress' } });
    expect(advanced).toMatchObject({ now: '2026-03-02T11:00:00Z' });
    expect(leads.data).toHaveLength(1);
    expect(leads.data[0]).toMatchObject({ phone_number: '+15551230042', status: 'completed' });
    expect(await stop(server)).toEqual({ code: 0, signal: null });
  });
});
