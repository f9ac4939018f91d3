/**
 * The flags of `voxsim serve` as options (`ServeOptions`) and their checks
 * (`parseServeArgs`). The flags themselves, their defaults and help lines are serve's
 * declaration (src/cli/commands.ts), which the bin also reads before the command loads
 * (its `--state-file` is read ahead).
 */
import { normaliseBasePath } from '../adapters/express.js';
import { parseDuration, SPEED_RANGE } from '../core/clock.js';
import { SANDBOX_TTL_RANGE, SHARD_NAME } from '../adapters/express.js';
import { MAX_SEED } from '../core/random.js';
import { CLOCK_RANGE_TEXT, isClockTime, parseInstant } from '../core/time.js';
import type { Wire } from '../core/wire.js';
import { parseFlags } from './help.js';
import { portOption, requireTokenOffLoopback, wireOption } from './options.js';

export interface ServeOptions {
  port: number;
  host: string;
  seed: number;
  basePath: string;
  start?: string;
  /** Realtime clock at this speed (60 = a real second is a simulated minute); manual without it. */
  speed?: number;
  stateFile?: string;
  /** A directory that keeps the server's own state (`server.json`) and every sandbox across restarts (issue 35). */
  stateDir?: string;
  scenario?: string;
  adminToken?: string;
  /** The wire format of the answers (live-platform Rule 5); default spec. */
  wire?: Wire;
  /** A catalog document file (JSON or YAML) that replaces or extends the wire's catalog (issue 27). */
  catalog?: string;
  /** No request log lines. */
  quiet?: boolean;
  /** Bytes that may wait for one event-stream consumer before it is closed with 1013 (default 4 MiB). */
  streamBuffer?: number;
  /** A clock move logs a progress line every this many events (default 10,000). */
  progressEvery?: number;
  /** The state file's logs are compacted into a new snapshot past this many bytes (and the last snapshot's size); default 64 MiB. */
  compactAfter?: number;
  /** Stop once the process that started the server is gone (`voxsim serve --exit-with-parent`; `npm start` sets it). */
  exitWithParent?: boolean;
  /** Sandboxes the server holds at most (issue 35); default 100. */
  maxSandboxes?: number;
  /** With `--state-dir`: sandbox simulators held in memory at most (issue 44); default 1000. */
  maxLoadedSandboxes?: number;
  /** A sandbox's idle lifetime in real ms; default 24 h. */
  sandboxTtlMs?: number;
  /** Anyone who reaches the server may create a sandbox. */
  openSandboxes?: boolean;
  /** This shard's name, in every sandbox key and id it mints. */
  shard?: string;
}

/**
 * Reads a size: bytes, or a number with kb / mb.
 * @example parseSize('64kb') // 65536
 */
export function parseSize(text: string): number | undefined {
  const m = /^(\d+)\s*(b|kb|mb)?$/i.exec(text.trim());
  if (!m) return undefined;
  const unit = (m[2] ?? 'b').toLowerCase();
  return Number(m[1]) * (unit === 'mb' ? 1024 * 1024 : unit === 'kb' ? 1024 : 1);
}

/** Reads `serve` flags; throws an Error with a readable message on bad input. */
export function parseServeArgs(args: string[]): ServeOptions {
  const { values } = parseFlags('serve', args);
  const port = portOption(values.port);
  const streamBuffer = values['stream-buffer'] === undefined ? undefined : parseSize(values['stream-buffer']);
  if (streamBuffer !== undefined && !(streamBuffer >= 1024)) throw new Error(`--stream-buffer must be a size of at least 1kb (bytes, or with kb / mb), got "${values['stream-buffer']}"`);
  if (values['stream-buffer'] !== undefined && streamBuffer === undefined) throw new Error(`--stream-buffer must be a size (bytes, or with kb / mb), got "${values['stream-buffer']}"`);
  const compactAfter = values['compact-after'] === undefined ? undefined : parseSize(values['compact-after']);
  if (values['compact-after'] !== undefined && !(compactAfter !== undefined && compactAfter >= 1024)) throw new Error(`--compact-after must be a size of at least 1kb (bytes, or with kb / mb), got "${values['compact-after']}"`);
  const seed = Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0 || seed > MAX_SEED) throw new Error(`--seed must be a whole number from 0 to ${MAX_SEED}, got "${values.seed}"`);
  const start = values.start === undefined ? undefined : parseInstant(values.start);
  if (values.start !== undefined && start === undefined) throw new Error(`--start must be an ISO 8601 time, got "${values.start}"`);
  if (values.start !== undefined && !isClockTime(start)) throw new Error(`--start must be a time ${CLOCK_RANGE_TEXT}, got "${values.start}"`);
  const speed = values.speed === undefined ? undefined : Number(values.speed);
  if (speed !== undefined && !(speed >= SPEED_RANGE.min && speed <= SPEED_RANGE.max)) {
    throw new Error(`--speed must be a number from ${SPEED_RANGE.min} to ${SPEED_RANGE.max} (60 = a minute per second), got "${values.speed}"`);
  }
  const wire = wireOption(values.wire);
  requireTokenOffLoopback(values.host, values['admin-token']);
  const maxSandboxes = values['max-sandboxes'] === undefined ? undefined : Number(values['max-sandboxes']);
  if (maxSandboxes !== undefined && !(Number.isInteger(maxSandboxes) && maxSandboxes >= 0 && maxSandboxes <= 10_000)) {
    throw new Error(`--max-sandboxes must be a whole number from 0 to 10000, got "${values['max-sandboxes']}"`);
  }
  const maxLoadedSandboxes = values['max-loaded-sandboxes'] === undefined ? undefined : Number(values['max-loaded-sandboxes']);
  if (maxLoadedSandboxes !== undefined && !(Number.isInteger(maxLoadedSandboxes) && maxLoadedSandboxes >= 1 && maxLoadedSandboxes <= 10_000)) {
    throw new Error(`--max-loaded-sandboxes must be a whole number from 1 to 10000, got "${values['max-loaded-sandboxes']}"`);
  }
  const sandboxTtlMs = values['sandbox-ttl'] === undefined ? undefined : durationOption(values['sandbox-ttl']);
  if (values['sandbox-ttl'] !== undefined && !(sandboxTtlMs !== undefined && sandboxTtlMs >= SANDBOX_TTL_RANGE.min && sandboxTtlMs <= SANDBOX_TTL_RANGE.max)) {
    throw new Error(`--sandbox-ttl must be a duration from 1m to 365d (90m, 2h, 7d), got "${values['sandbox-ttl']}"`);
  }
  if (values['state-dir'] !== undefined && values['state-file'] !== undefined) {
    throw new Error('--state-file and --state-dir cannot be used together: --state-dir keeps the server\'s own state in DIR/server.json');
  }
  if (values['state-dir'] === '') throw new Error('--state-dir must name a directory, got ""');
  if (values.shard !== undefined && !SHARD_NAME.test(values.shard)) {
    throw new Error(`--shard must be 1-32 lowercase letters, digits or dashes, starting with a letter or digit, got "${values.shard}"`);
  }
  return {
    port,
    host: values.host,
    seed,
    basePath: normaliseBasePath(values['base-path']),
    quiet: values.quiet,
    ...(values.start !== undefined && { start: values.start }),
    ...(speed !== undefined && { speed }),
    ...(values['state-file'] !== undefined && { stateFile: values['state-file'] }),
    ...(values['state-dir'] !== undefined && { stateDir: values['state-dir'] }),
    ...(values.scenario !== undefined && { scenario: values.scenario }),
    ...(values['admin-token'] !== undefined && { adminToken: values['admin-token'] }),
    ...(wire !== undefined && { wire }),
    ...(values.catalog !== undefined && { catalog: values.catalog }),
    ...(streamBuffer !== undefined && { streamBuffer }),
    ...(compactAfter !== undefined && { compactAfter }),
    ...(values['exit-with-parent'] && { exitWithParent: true }),
    ...(maxSandboxes !== undefined && { maxSandboxes }),
    ...(maxLoadedSandboxes !== undefined && { maxLoadedSandboxes }),
    ...(sandboxTtlMs !== undefined && { sandboxTtlMs }),
    ...(values['open-sandboxes'] && { openSandboxes: true }),
    ...(values.shard !== undefined && { shard: values.shard }),
  };
}

/** A duration flag in ms (`90s`, `2h`, `7d`, or ms), undefined when it is none. */
function durationOption(text: string): number | undefined {
  try {
    return parseDuration(/^\d+$/.test(text) ? Number(text) : text);
  } catch {
    return undefined;
  }
}
