/**
 * Child processes for tests that run the real `voxsim` command: output captured, waits
 * bounded, and nothing left running after a test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = new URL('../..', import.meta.url).pathname;

/**
 * Where the browser tests write their screenshots: docs/screenshots with
 * VOXSIM_UPDATE_SCREENSHOTS=1 (the docs' pictures made again, docs/development.md), else a
 * new temp dir, so that a test run leaves the repository as it was (a rendering differs by a
 * few bytes from one run to the next).
 */
export function screenshotDir(): string {
  if (process.env.VOXSIM_UPDATE_SCREENSHOTS === '1') return `${ROOT}docs/screenshots`;
  return mkdtempSync(join(tmpdir(), 'voxsim-screenshots-'));
}
const BIN = `${ROOT}dist/src/bin.js`;
const WAIT_MS = 10_000;

export interface Voxsim {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when the process ended and its output is closed. */
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface Server extends Voxsim {
  /** e.g. `http://127.0.0.1:40123/api` */
  url: string;
}

const children = new Set<ChildProcess>();
/** Children that live until the file's tests are done (servers shared by several tests). */
const shared = new Set<ChildProcess>();

/** Rejects when `promise` has not settled within `ms`. */
export function within<T>(promise: Promise<T>, what: string, ms = WAIT_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`No ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function voxsim(args: string[]): Voxsim {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
  });
  return { child, stdout: () => out, stderr: () => err, closed };
}

/** Waits until the child's stdout matches `pattern`; fails if it exits first. */
export function waitForStdout(proc: Voxsim, pattern: RegExp, what: string): Promise<RegExpExecArray> {
  return waitForOutput(proc, 'stdout', pattern, what);
}

/** Waits until the child's stderr matches `pattern`; fails if it exits first. */
export function waitForStderr(proc: Voxsim, pattern: RegExp, what: string): Promise<RegExpExecArray> {
  return waitForOutput(proc, 'stderr', pattern, what);
}

function waitForOutput(proc: Voxsim, stream: 'stdout' | 'stderr', pattern: RegExp, what: string): Promise<RegExpExecArray> {
  const found = new Promise<RegExpExecArray>((resolve, reject) => {
    const check = () => {
      const match = pattern.exec(proc[stream]());
      if (match) {
        proc.child[stream]!.off('data', check);
        resolve(match);
      }
    };
    proc.child[stream]!.on('data', check);
    void proc.closed.then(({ code }) => reject(new Error(`voxsim exited (${code}) before printing ${what}: ${proc.stderr()}`)));
    check();
  });
  return within(found, what);
}

/**
 * Spawns `voxsim serve --port 0 ...args` and waits for its URL. A `shared` server lives
 * until the test file is done (killed after all its tests), not only until this test ends.
 */
export async function startServer(args: string[], options: { shared?: boolean } = {}): Promise<Server> {
  const proc = voxsim(['serve', '--port', '0', ...args]);
  if (options.shared) {
    children.delete(proc.child);
    shared.add(proc.child);
    void proc.closed.then(() => shared.delete(proc.child));
  }
  const match = await waitForStdout(proc, /API base URL:\s+(\S+)/, 'the API base URL');
  return { ...proc, url: match[1]! };
}

/** Sends a signal and waits for the process to end. */
export async function stop(proc: Voxsim, signal: NodeJS.Signals = 'SIGTERM') {
  proc.child.kill(signal);
  return within(proc.closed, 'exit');
}

/** Kills whatever is still running (a failed test leaves nothing behind); with `includeShared`, the shared servers too. */
export async function killAll(includeShared = false): Promise<void> {
  const waiting = [...children, ...(includeShared ? shared : [])].map(
    (child) =>
      new Promise<void>((resolve) => {
        child.once('close', () => resolve());
        child.kill('SIGKILL');
      }),
  );
  await Promise.all(waiting);
}

