/**
 * `npm start` runs the server in npm's own child (the script `exec`s node, so no shell
 * stands between them): stopping npm by its PID stops the server too (issue 15), by the
 * signals npm forwards (SIGTERM) and by those it does not (SIGHUP, SIGKILL: the script's
 * `--exit-with-parent` makes the server see its parent gone).
 */
import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import { ROOT, within } from './support/processes.js';

it.each(['SIGTERM', 'SIGHUP', 'SIGKILL'] as const)('stops the server when the npm start process is stopped by its PID with %s', async (signal) => {
  const npm = spawn('npm', ['start', '--', '--port', '0', '--quiet'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  npm.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const closed = new Promise<unknown>((resolve) => npm.on('close', resolve));
  try {
    const url = await within(
      new Promise<string>((resolve) => {
        const check = () => {
          const match = /listening on (http:\/\/\S+)/.exec(out);
          if (match) resolve(match[1]!);
        };
        npm.stdout.on('data', check);
      }),
      'banner from npm start',
      30_000,
    );
    expect((await fetch(`${url}/__sim/health`)).status).toBe(200);
    npm.kill(signal);
    await within(closed, 'npm to exit', 10_000);
    // The server went with it: nothing answers on its port any more.
    await within(
      (async () => {
        for (;;) {
          try {
            await fetch(`${url}/__sim/health`, { signal: AbortSignal.timeout(500) });
          } catch {
            return;
          }
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })(),
      'the server to stop',
      5_000,
    );
  } finally {
    if (npm.exitCode === null) npm.kill('SIGKILL');
  }
}, 60_000);
