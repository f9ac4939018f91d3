/**
 * The `voxsim` command line: `voxsim serve` starts the standalone server (with its event
 * stream and dashboard); `voxsim events` follows a server's event stream;
 * `voxsim scenario run` plays scenario files; `voxsim scenario schema` prints the
 * scenario format's JSON Schema; `voxsim record`, `voxsim drift` and
 * `voxsim scenario from-har` record a session with the real platform and replay it
 * (src/cli/recording.ts).
 */
import { closeSync, existsSync, openSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { attachEventStream, createApp, createHttpServer, DEFAULT_STREAM_BUFFER_LIMIT, normaliseBasePath, SLOW_CONSUMER_CLOSE_CODE, type RequestLogEntry } from './adapters/express.js';
import { openEventStream } from './adapters/events-client.js';
import { CatalogPullError, pullCatalog } from './adapters/catalog-client.js';
import { CatalogFileError, readCatalogFile } from './scenario/catalog-file.js';
import { catalogJsonSchema } from './domain/catalog/document.js';
import type { CatalogDocument } from './domain/catalog/document.js';
import { formatEventLine } from './event-lines.js';
import { SPEED_RANGE, everyRealInterval } from './core/clock.js';
import { MAX_SEED } from './core/random.js';
import { CLOCK_RANGE_TEXT, isClockTime, parseInstant, formatSqlUtc } from './core/time.js';
import type { Wire } from './core/wire.js';
import { DEFAULT_API_KEY } from './domain/accounts/schema.js';
import { ScenarioError, loadScenario } from './scenario/load.js';
import { formatStep, playScenario } from './scenario/runner.js';
import { scenarioJsonSchema } from './scenario/schema.js';
import { closest, didYouMean } from './core/suggest.js';
import { DEFAULT_SERVER_URL, openApiDocument } from './control/openapi.js';
import { createSimulator, ROUTES, simulatorToRestore, SNAPSHOT_FORMAT, type Simulator, type SimulatorSnapshot } from './simulator.js';
import { applyLog, fsReason, logFiles, StateFileError, StateNotSavedError, StateStore } from './state/persist.js';
import { takeReadAhead } from './state/read-ahead.js';
import { VERSION } from './version.js';
import { HELP_OPTION, listenMessage, LISTEN_MESSAGES, LOOPBACK, portOption, requireTokenOffLoopback, SERVE_OPTIONS, wireOption, type OptionHelp } from './cli/options.js';
import { driftCommand, fromHarCommand, parseDriftArgs, parseFromHarArgs, parseRecordArgs, recordCommand, RECORDING_HELP } from './cli/recording.js';

export const USAGE = `voxsim ${VERSION}: a local simulator of the Voice and Chat Assistant Platform API

Usage:
  voxsim serve [--port 4010] [--host 127.0.0.1] [--seed 1] [--base-path /api] [--start ISO-8601]
               [--speed N] [--state-file FILE] [--compact-after SIZE] [--scenario FILE] [--admin-token TOKEN]
               [--wire spec|live] [--catalog FILE] [--quiet] [--stream-buffer 4mb]
  voxsim events [--url http://127.0.0.1:4010/api] [--admin-token TOKEN] [--type PREFIX]...
                [--account ID] [--since SEQ] [--json] [--no-color]
                                  follow a server's events, one line each (--json: raw JSON lines)
  voxsim scenario run FILE|NAME...
                                  play scenario files (or shipped scenarios by name), exit 1 on a failure
  voxsim scenario list            list the shipped scenarios
  voxsim scenario schema          print the JSON Schema of scenario files
  voxsim scenario from-har FILE.har [--wire spec|live] [--out FILE.yaml]
                                  write a scenario that reproduces a recorded session
  voxsim record --upstream URL --out FILE.har [--port 4011] [--base-path /api]
                                  record a session with the real platform through a local proxy
  voxsim drift FILE.har [--wire spec|live] [--catalog FILE] [--given SCENARIO] [--json] [--html FILE]
                                  replay a recording on a fresh simulator, report where the answers differ (exit 1)
  voxsim openapi [--server URL]   print the OpenAPI 3.1 document of the platform and control API
  voxsim catalog pull --from URL --key KEY [--out FILE]
                                  write the catalog of a running platform as a catalog document
  voxsim catalog schema           print the JSON Schema of catalog documents
  voxsim COMMAND --help           describe a command and its options
  voxsim --help | --version

Exit codes: 0 done, 1 a failed scenario, a drift or a stopped stream, 2 a usage error, a file that cannot be used or a failed start-up check.
`;

/** Exit code of a usage error: an unknown command or option, a bad option value, a missing argument. */
export const EXIT_USAGE = 2;

/** Each of serve's options (`SERVE_OPTIONS`), which the help and a usage error's suggestion list. */
const SERVE_HELP: Record<keyof typeof SERVE_OPTIONS | 'help', OptionHelp> = {
  port: { value: 'N', description: 'port to listen on (default 4010; 0 picks a free one)' },
  host: { value: 'HOST', description: 'address to bind (default 127.0.0.1; others need --admin-token)' },
  seed: { value: 'N', description: 'seed of the generated data, 0 to 2147483647 (default 1)' },
  'base-path': { value: 'PATH', description: 'path the API is served under (default /api; / for the root)' },
  start: { value: 'ISO-8601', description: 'time the simulated clock starts at, 1970-01-01T00:00:00Z to 9999-01-01T00:00:00Z (default now)' },
  speed: { value: 'N', description: 'run the clock in real time, N times as fast, 0.001 to 1000000 (default: moves only when told)' },
  'state-file': { value: 'FILE', description: 'load the state from FILE (and its FILE.log.N change logs) at start; log every change there before answering' },
  'compact-after': { value: 'SIZE', description: 'fold the change logs into a new FILE once they reach SIZE (default 64mb, at least 1kb)' },
  scenario: { value: 'FILE', description: "start in a scenario's state (its given and scripts, not its steps)" },
  'admin-token': { value: 'TOKEN', description: 'require Authorization: Bearer TOKEN on the control API' },
  wire: { value: 'spec|live', description: 'wire format of the answers (default spec)' },
  catalog: { value: 'FILE', description: "a catalog document (JSON or YAML) that replaces or extends the wire's catalog (docs/catalog.md)" },
  quiet: { description: 'no request log lines' },
  'stream-buffer': { value: 'SIZE', description: 'bytes that may wait for one event-stream consumer (default 4mb, at least 1kb)' },
  'exit-with-parent': { description: 'stop once the process that started the server is gone (npm start sets it)' },
  ...HELP_OPTION,
};

const EVENTS_HELP: Record<string, OptionHelp> = {
  url: { value: 'URL', description: "the server's API base URL (default $VOXSIM_URL or http://127.0.0.1:4010/api)" },
  'admin-token': { value: 'TOKEN', description: "the server's admin token (default $VOXSIM_ADMIN_TOKEN)" },
  type: { value: 'PREFIX', description: 'only events whose type starts with PREFIX (repeatable, or comma-separated)' },
  account: { value: 'ID', description: "only this account's events" },
  since: { value: 'SEQ', description: 'replay the events after SEQ first' },
  json: { description: 'print raw JSON lines' },
  'no-color': { description: 'no colours (also NO_COLOR)' },
  ...HELP_OPTION,
};

/** The help of each command: usage line, what it does, its options. */
export const COMMAND_HELP = {
  serve: { usage: 'voxsim serve [options]', about: 'Starts the standalone server (API, control API, event stream and dashboard).', options: SERVE_HELP },
  events: { usage: 'voxsim events [options]', about: "Follows a server's events, one line each, until Ctrl-C or the server stops.", options: EVENTS_HELP },
  scenario: {
    usage: 'voxsim scenario run|list|schema|from-har [options]',
    about:
      'Scenario files. Commands:\n  run FILE|NAME...  play scenario files or shipped scenarios by name; exit 1 on a failure\n  list              list the shipped scenarios\n  schema            print the JSON Schema of scenario files\n  from-har FILE     write a scenario that reproduces a recorded session',
    options: HELP_OPTION,
  },
  'scenario run': {
    usage: 'voxsim scenario run FILE|NAME... [options]',
    about: 'Plays each scenario on a fresh simulator and prints its timeline; a NAME is a shipped scenario (voxsim scenario list).',
    options: HELP_OPTION,
  },
  'scenario list': { usage: 'voxsim scenario list [options]', about: 'Lists the shipped scenarios: the name to run them by, their name and description.', options: HELP_OPTION },
  openapi: {
    usage: 'voxsim openapi [options]',
    about: 'Prints the OpenAPI 3.1 document of the platform API (spec and live routes) and the control API, as a server serves it at {base_url}/__sim/openapi.json.',
    options: { server: { value: 'URL', description: `the server URL the document names (default ${DEFAULT_SERVER_URL})` }, ...HELP_OPTION },
  },
  'scenario schema': { usage: 'voxsim scenario schema [options]', about: 'Prints the JSON Schema of scenario files (scenario.schema.json).', options: HELP_OPTION },
  catalog: {
    usage: 'voxsim catalog pull|schema [options]',
    about: 'Catalog documents (docs/catalog.md). Commands:\n  pull    read the catalog routes of a running platform and write a catalog document\n  schema  print the JSON Schema of catalog documents',
    options: HELP_OPTION,
  },
  'catalog pull': {
    usage: 'voxsim catalog pull --from URL --key KEY [--out FILE] [options]',
    about: "Reads the catalog routes of a running platform (the live one, or another voxsim) with KEY and writes a catalog document that voxsim serve --catalog takes (to stdout without --out). A refusal or a network error is one line and exit 2.",
    options: {
      from: { value: 'URL', description: "the platform's API base URL, such as http://127.0.0.1:4010/api" },
      key: { value: 'KEY', description: 'an API key of an account on that platform' },
      out: { value: 'FILE', description: 'write the document to FILE instead of stdout' },
      ...HELP_OPTION,
    },
  },
  'catalog schema': { usage: 'voxsim catalog schema [options]', about: 'Prints the JSON Schema of catalog documents (catalog.schema.json).', options: HELP_OPTION },
  ...RECORDING_HELP,
} as const;
export type CommandName = keyof typeof COMMAND_HELP;

/**
 * The `--help` text of a command: its usage, what it does and each option on one line.
 * @example commandHelp('serve').split('\n')[0] // 'Usage: voxsim serve [options]'
 */
export function commandHelp(command: CommandName): string {
  const { usage, about, options } = COMMAND_HELP[command];
  const flags = Object.entries(options as Record<string, OptionHelp>).map(([name, o]) => [`${name === 'help' ? '-h, ' : ''}--${name}${o.value ? ` ${o.value}` : ''}`, o.description] as const);
  const width = Math.max(...flags.map(([flag]) => flag.length)) + 2;
  return [`Usage: ${usage}`, '', about, '', 'Options:', ...flags.map(([flag, description]) => `  ${flag.padEnd(width)}${description}`)].join('\n');
}

/**
 * The message of a usage error from `parseArgs`: an unknown option becomes
 * `unknown option --prot; did you mean --port?` (when one is close); others keep their text.
 * @example usageMessage(error, 'serve') // 'unknown option --prot; did you mean --port?'
 */
export function usageMessage(error: Error, command: CommandName): string {
  const unknown = (error as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /Unknown option '([^']+)'/.exec(error.message) : null;
  if (!unknown) return error.message;
  const option = unknown[1]!;
  return `unknown option ${option}${didYouMean(option.replace(/^-+/, ''), Object.keys(COMMAND_HELP[command].options), (name) => `--${name}`)}`;
}

const wantsHelp = (args: string[]) => args.some((arg) => arg === '--help' || arg === '-h');

/** A usage error: the message, a blank line, the command's usage; exit 2. */
function usageError(out: Pick<Console, 'error'>, message: string, command?: CommandName): number {
  out.error(`${message}\n\n${command === undefined ? USAGE : commandHelp(command)}`);
  return EXIT_USAGE;
}

/**
 * The package's own folder (where `scenarios/` is), found from this file in src/ or dist/src/, not from the cwd.
 * @example join(packageRoot(), 'scenarios')
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!(existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'scenarios')))) {
    if (dirname(dir) === dir) throw new Error('the voxsim package folder (with scenarios/) cannot be found');
    dir = dirname(dir);
  }
  return dir;
}

/**
 * The shipped scenarios: name (file name without .yaml) and file, sorted by name.
 * @example shippedScenarios().find((s) => s.name === 'voicemail-then-human')?.file
 */
export function shippedScenarios(): { name: string; file: string }[] {
  const dir = join(packageRoot(), 'scenarios');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .map((file) => ({ name: file.slice(0, -'.yaml'.length), file: join(dir, file) }));
}

/**
 * `voxsim scenario list`: each shipped scenario's name, then its title and description, indented.
 * @example listScenarios(console) // 0
 */
export function listScenarios(out: Pick<Console, 'log'>): number {
  for (const { name, file } of shippedScenarios()) {
    const { scenario } = loadScenario(readFileSync(file, 'utf8'), file);
    out.log(name);
    out.log(`    ${scenario.name}${scenario.description ? `: ${scenario.description.replace(/\s+/g, ' ').trim()}` : ''}`);
  }
  return 0;
}

/** A `scenario run` argument: an existing file, else a shipped scenario's name (`voicemail-then-human`). */
function scenarioFile(arg: string): string {
  if (existsSync(arg)) return arg;
  if (/[\\/]|\.(ya?ml|json)$/i.test(arg)) throw new Error(`no such scenario file: ${arg}`);
  const shipped = shippedScenarios();
  const found = shipped.find((s) => s.name === arg);
  if (found) return found.file;
  throw new Error(`no file and no shipped scenario is named "${arg}"${didYouMean(arg, shipped.map((s) => s.name))} (voxsim scenario list shows them)`);
}

export interface ServeOptions {
  port: number;
  host: string;
  seed: number;
  basePath: string;
  start?: string;
  /** Realtime clock at this speed (60 = a real second is a simulated minute); manual without it. */
  speed?: number;
  stateFile?: string;
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
}

/** Progress lines of long clock moves: one per this many events. */
export const PROGRESS_EVERY = 10_000;

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

/** The loopback names and the wildcard addresses, whose server answers on every loopback name. */
const LOOPBACK_HOSTS = new Set([...LOOPBACK, '0.0.0.0', '::']);

/** Reads `serve` flags; throws an Error with a readable message on bad input. */
export function parseServeArgs(args: string[]): ServeOptions {
  const { values } = parseArgs({ args, options: SERVE_OPTIONS, strict: true });
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
  return {
    port,
    host: values.host,
    seed,
    basePath: normaliseBasePath(values['base-path']),
    quiet: values.quiet,
    ...(values.start !== undefined && { start: values.start }),
    ...(speed !== undefined && { speed }),
    ...(values['state-file'] !== undefined && { stateFile: values['state-file'] }),
    ...(values.scenario !== undefined && { scenario: values.scenario }),
    ...(values['admin-token'] !== undefined && { adminToken: values['admin-token'] }),
    ...(wire !== undefined && { wire }),
    ...(values.catalog !== undefined && { catalog: values.catalog }),
    ...(streamBuffer !== undefined && { streamBuffer }),
    ...(compactAfter !== undefined && { compactAfter }),
    ...(values['exit-with-parent'] && { exitWithParent: true }),
  };
}

export interface RunningServer {
  sim: Simulator;
  server: Server;
  /** e.g. `http://127.0.0.1:4010/api` */
  url: string;
  /** Writes the state file's snapshot now and removes its change logs (when there is a state file). */
  saveState(): void;
  /** Folds the change logs into a new snapshot in the background (slices between requests); resolves when it is written. */
  compact(): Promise<void>;
  /** Resolves when no background compaction of the state file's logs is running. */
  compacted(): Promise<void>;
  close(): Promise<void>;
}

/** The temp file a state write goes through before it is renamed over the state file (as `StateStore` writes it). */
const tempFileOf = (file: string) => `${file}.${process.pid}.tmp`;

/**
 * A reason `voxsim serve` cannot start (a state file it cannot use, a port it cannot
 * bind): `main()` prints the message as one line and exits with `EXIT_STARTUP`.
 */
export class StartupError extends Error {}

/** Exit code of `voxsim serve` when a start-up check fails (a bad flag is `EXIT_USAGE`, also 2). */
export const EXIT_STARTUP = 2;

/** The one-line texts of failed start-up checks. */
export const STARTUP_MESSAGES = {
  ...LISTEN_MESSAGES,
  stateDirMissing: (dir: string) => `state file directory ${dir} does not exist; create it or pass another --state-file`,
  stateDirNotDirectory: (dir: string) => `state file directory ${dir} is not a directory; pass another --state-file`,
  stateDirUnwritable: (dir: string, why: string) => `state file directory ${dir} is not writable (${why}); pass another --state-file`,
  stateFileIsDirectory: (file: string) => `state file ${file} is a directory; pass a file to --state-file`,
  stateFileUnreadable: (file: string, why: string) => `state file ${file} cannot be read (${why}); pass another --state-file`,
  stateFileEmpty: (file: string) => `state file ${file} is empty; pass another --state-file`,
  stateFileTruncated: (file: string) => `state file ${file} is truncated (its JSON ends early); pass another --state-file`,
  stateFileNotJson: (file: string, why: string) => `state file ${file} is not JSON (${why}); pass another --state-file`,
  stateFileForeign: (file: string, format: unknown) =>
    `state file ${file} is not a voxsim snapshot (${typeof format === 'string' ? `its format is "${format}", not` : 'no "format":'} "${SNAPSHOT_FORMAT}"); pass another --state-file`,
  stateFileDamaged: (file: string, why: string) => `state file ${file} is a damaged voxsim snapshot (${why}); pass another --state-file`,
  stateLogsWithoutFile: (file: string, log: string) => `state file ${file} is missing but its change log ${log} is there; restore the file or remove its logs`,
  scenarioMissing: (file: string) => `scenario file ${file} does not exist; pass another --scenario`,
  scenarioUnreadable: (file: string, why: string) => `scenario file ${file} cannot be read (${why}); pass another --scenario`,
  scenarioInvalid: (why: string) => `scenario file ${why}`,
  catalogInvalid: (why: string) => `catalog file ${why.replace(/\.$/, '')}; pass another --catalog`,
  catalogMissing: (file: string) => `catalog file ${file} does not exist; pass another --catalog`,
  catalogUnreadable: (file: string, why: string) => `catalog file ${file} cannot be read (${why}); pass another --catalog`,
} as const;

/** One line of printable text: control characters escaped, whitespace runs collapsed. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).trim();
}

/**
 * The state file's directory must exist and take new files (each save writes a temp file
 * there and renames it): checked at start by creating and removing that temp file, so an
 * unusable directory stops the server now rather than failing its first save.
 */
function checkStateDirectory(file: string): void {
  // `file` is absolute (serve() resolves it), so its directory is too.
  const dir = dirname(file);
  let isDirectory: boolean;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new StartupError(STARTUP_MESSAGES.stateDirMissing(dir));
    throw new StartupError(STARTUP_MESSAGES.stateDirUnwritable(dir, fsReason(error)));
  }
  if (!isDirectory) throw new StartupError(STARTUP_MESSAGES.stateDirNotDirectory(dir));
  const temp = tempFileOf(file);
  try {
    closeSync(openSync(temp, 'w'));
    unlinkSync(temp);
  } catch (error) {
    throw new StartupError(STARTUP_MESSAGES.stateDirUnwritable(dir, fsReason(error)));
  }
}

/**
 * Reads the state file: undefined when it does not exist yet (a first start), the parsed
 * snapshot candidate otherwise. A file that cannot be used is a `StartupError` naming it
 * and what is wrong with it; `sim.restore()` checks the snapshot's contents.
 */
async function readStateFile(file: string): Promise<{ format?: unknown } | undefined> {
  let text: string;
  try {
    // The command read it ahead while its modules loaded (src/bin.ts); otherwise, or when that read failed or the file has changed since, it is read now.
    const ahead = await takeReadAhead(file);
    if (ahead === undefined && statSync(file).isDirectory()) throw new StartupError(STARTUP_MESSAGES.stateFileIsDirectory(file));
    text = ahead ?? readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof StartupError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StartupError(STARTUP_MESSAGES.stateFileUnreadable(file, fsReason(error)));
  }
  if (text.trim() === '') throw new StartupError(STARTUP_MESSAGES.stateFileEmpty(file));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    if (endsEarly(message, text)) throw new StartupError(STARTUP_MESSAGES.stateFileTruncated(file));
    // V8 quotes a piece of the text ("Unexpected token 'g', "garbage mo"... is not valid JSON"): the token is enough.
    throw new StartupError(STARTUP_MESSAGES.stateFileNotJson(file, oneLine(message.replace(/, (\.\.\.)?".*"(\.\.\.)? is not valid JSON$/s, ''))));
  }
  const format = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as { format?: unknown }).format : undefined;
  if (format !== SNAPSHOT_FORMAT) throw new StartupError(STARTUP_MESSAGES.stateFileForeign(file, format));
  return parsed as { format?: unknown };
}

/**
 * The state to start from: the state file's snapshot with every change log left beside
 * it applied (`snapshot` undefined on a first start), the next log generation and the
 * bytes of those logs. A log that cannot be used, or logs without their snapshot, is a
 * `StartupError` naming the file.
 */
async function readState(file: string): Promise<{ snapshot?: { format?: unknown }; nextGen: number; logBytes: number }> {
  const snapshot = await readStateFile(file);
  const logs = logFiles(file);
  if (logs.length > 0 && !snapshot) throw new StartupError(STARTUP_MESSAGES.stateLogsWithoutFile(file, logs[0]!.path));
  let logBytes = 0;
  for (const log of logs) {
    try {
      logBytes += statSync(log.path).size;
      applyLog(snapshot as SimulatorSnapshot, log.path);
    } catch (error) {
      if (error instanceof StateFileError) throw new StartupError(`${error.message}; pass another --state-file`);
      if (error instanceof TypeError) throw new StartupError(STARTUP_MESSAGES.stateFileDamaged(file, oneLine(error.message)));
      throw new StartupError(STARTUP_MESSAGES.stateFileUnreadable(log.path, fsReason(error)));
    }
  }
  return { ...(snapshot && { snapshot }), nextGen: (logs.at(-1)?.gen ?? 0) + 1, logBytes };
}

/** What a start-up file (`--catalog`, `--scenario`) that cannot be used says, by how it fails. */
interface StartFileMessages {
  invalid: (why: string) => string;
  missing: (file: string) => string;
  unreadable: (file: string, why: string) => string;
}

/**
 * Loads a file named at start: one that is not what it must be (`Invalid`), is missing
 * or cannot be read is one start-up line.
 */
async function loadStartFile<T>(file: string, load: () => Promise<T>, Invalid: abstract new (...args: never[]) => Error, messages: StartFileMessages): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (error instanceof Invalid) throw new StartupError(messages.invalid(oneLine(error.message)));
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new StartupError(messages.missing(resolvePath(file)));
    if (code !== undefined) throw new StartupError(messages.unreadable(resolvePath(file), code === 'EISDIR' ? 'it is a directory' : fsReason(error)));
    throw error;
  }
}

/** `--catalog FILE` at start: a catalog document for the wire. */
function loadStartCatalog(file: string, wire: Wire): Promise<CatalogDocument> {
  return loadStartFile(file, () => readCatalogFile(file, wire), CatalogFileError, {
    invalid: STARTUP_MESSAGES.catalogInvalid,
    missing: STARTUP_MESSAGES.catalogMissing,
    unreadable: STARTUP_MESSAGES.catalogUnreadable,
  });
}

/** `--scenario FILE` at start: its given and scripts, not its steps. */
async function loadStartScenario(sim: Simulator, file: string): Promise<void> {
  await loadStartFile(file, () => sim.loadScenario(file, { steps: false }), ScenarioError, {
    invalid: STARTUP_MESSAGES.scenarioInvalid,
    missing: STARTUP_MESSAGES.scenarioMissing,
    unreadable: STARTUP_MESSAGES.scenarioUnreadable,
  });
}

/**
 * Whether JSON.parse failed because the text stops before its JSON does (a cut-off
 * write): the parser ran out of input, inside a string or where a value or name had to
 * follow. A wrong character before the end is "not JSON" instead.
 */
function endsEarly(parseError: string, text: string): boolean {
  if (/end of JSON input|Unterminated string/.test(parseError)) return true;
  const at = /at position (\d+)/.exec(parseError);
  return at !== null && Number(at[1]) >= text.trimEnd().length;
}

/** The start-up line of a failed listen: the port in use, a port or host this process may not use. */
function listenError(error: NodeJS.ErrnoException, options: ServeOptions): Error {
  const message = listenMessage(error, options.port, options.host);
  return message === undefined ? error : new StartupError(message);
}

/**
 * Starts a server; resolves once it listens.
 * @example const { url, close } = await serve({ port: 0, host: '127.0.0.1', seed: 1, basePath: '/api' })
 */
export async function serve(options: ServeOptions, log: (line: string) => void = () => undefined): Promise<RunningServer> {
  // Start-up lines name the state file by its absolute path: the server's working directory is not always the user's.
  const stateFile = options.stateFile === undefined ? undefined : resolvePath(options.stateFile);
  if (stateFile) checkStateDirectory(stateFile);
  const saved = stateFile ? await readState(stateFile) : { nextGen: 1, logBytes: 0 };
  const catalog = options.catalog === undefined ? undefined : await loadStartCatalog(options.catalog, options.wire ?? 'spec');
  // A state file's snapshot replaces the accounts a simulator starts with: none are built first (unless a scenario's given comes first).
  const build = saved.snapshot && !options.scenario ? simulatorToRestore : createSimulator;
  const sim = build({
    ...(catalog !== undefined && { catalog }),
    seed: options.seed,
    ...(options.start !== undefined && { startAt: options.start }),
    ...(options.adminToken !== undefined && { adminToken: options.adminToken }),
    ...(options.wire !== undefined && { wire: options.wire }),
  });
  try {
    if (options.scenario) await loadStartScenario(sim, options.scenario);
    if (saved.snapshot) {
      try {
        // The parsed file is the state: nothing else holds it, so it is not copied again.
        sim.restore(saved.snapshot as SimulatorSnapshot, { owned: true });
      } catch (error) {
        // restore() refuses a damaged snapshot whole: "The snapshot is damaged at clock.now: ...".
        throw new StartupError(STARTUP_MESSAGES.stateFileDamaged(stateFile!, oneLine((error as Error).message.replace(/^The snapshot is damaged /, '').replace(/\.$/, ''))));
      }
    }
  } catch (error) {
    sim.dispose();
    throw error;
  }
  if (options.speed !== undefined) sim.clock.setMode('realtime', options.speed);

  // The state file: a snapshot plus change logs (src/state/persist.ts). A first start writes the snapshot at once.
  let store: StateStore | undefined;
  if (stateFile) {
    store = new StateStore(stateFile, sim, {
      nextGen: saved.nextGen,
      logBytes: saved.logBytes,
      ...(options.compactAfter !== undefined && { compactAfter: options.compactAfter }),
      // A record that cannot be written is replaced by a new snapshot; when that fails too, answers are 503 until a save point succeeds.
      onError: (error) => log(JSON.stringify({ level: 'error', msg: 'state not saved', file: stateFile, error: fsReason(error) })),
      onRewritten: (cause) => log(JSON.stringify({ level: 'warn', msg: 'state file rewritten', file: stateFile, error: fsReason(cause) })),
      onSavedAgain: () => log(JSON.stringify({ level: 'info', msg: 'state saved again', file: stateFile })),
    });
    try {
      if (!saved.snapshot) store.saveNow();
      // Logs left by the last run are folded into a new snapshot in the background.
      else if (saved.logBytes > 0) void store.compact().catch((error) => log(JSON.stringify({ level: 'error', msg: 'state not saved', file: stateFile, error: fsReason(error) })));
    } catch (error) {
      store.detach();
      sim.dispose();
      throw new StartupError(STARTUP_MESSAGES.stateDirUnwritable(dirname(stateFile), fsReason(error)));
    }
  }
  const saveState = () => store?.saveNow();

  logProgress(sim, options.progressEvery ?? PROGRESS_EVERY, log);
  const app = createApp(sim, {
    basePath: options.basePath,
    ...(!options.quiet && { onRequest: (entry) => log(requestLine(sim, entry)) }),
    ...(store && { beforeAnswer: () => store.flushed() }),
  });
  const server = createHttpServer(app);
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      store?.detach();
      sim.dispose();
      reject(listenError(error, options));
    };
    server.once('error', failed);
    server.listen(options.port, options.host, () => {
      server.off('error', failed);
      // The rows a restore leaves (this start's, or a PUT /__sim/state's) are put in while the server is idle.
      const unpacking = unpackWhenIdle(sim);
      unpacking.start();
      const stopOnRestore = sim.events.on('sim.restored', () => unpacking.start());
      const stream = attachEventStream(server, sim, {
        basePath: options.basePath,
        bufferLimit: options.streamBuffer ?? DEFAULT_STREAM_BUFFER_LIMIT,
        onDrop: (drop) => log(JSON.stringify({ level: 'warn', msg: 'stream consumer dropped', ...drop })),
      });
      const { port } = server.address() as AddressInfo;
      const host = options.host.includes(':') ? `[${options.host}]` : options.host;
      const url = `http://${host}:${port}${options.basePath}`;
      // Deliveries must not loop back into the server under any of its loopback names.
      const names = LOOPBACK_HOSTS.has(options.host) ? [...LOOPBACK] : [host];
      for (const name of names) sim.webhooks.refuseUnder(`http://${name.includes(':') ? `[${name}]` : name}:${port}${options.basePath}`);
      resolve({
        sim,
        server,
        url,
        saveState,
        compact: async () => store?.compact(),
        compacted: async () => store?.idle(),
        // Resolves once the server is closed; rejects, closed all the same, when the last state write fails.
        close: async () => {
          const closed = new Promise<void>((done) => server.close(() => done()));
          server.closeAllConnections();
          stream.close();
          stopOnRestore();
          unpacking.stop();
          let saveError: unknown;
          try {
            // The last changes are in the log already; the final snapshot folds the logs away.
            await store?.close();
          } catch (error) {
            saveError = error;
          }
          sim.dispose();
          await closed;
          // Changes not even logged are lost; a final snapshot that failed leaves them in the change logs.
          if (saveError instanceof StateNotSavedError) throw new Error(`state file ${stateFile} could not be written (${fsReason(saveError)}); the last changes are lost`);
          if (saveError !== undefined) throw new Error(`state file ${stateFile} could not be rewritten (${fsReason(saveError)}); its change logs hold the last changes`);
        },
      });
    });
  });
}

/** Rows `unpackWhenIdle` puts in per turn of the event loop: about 2 ms of call records. */
const UNPACK_SLICE = 4096;

/**
 * Puts in the rows a restore left (`Database.unpackSome`) a slice per turn of the event
 * loop, from `start()` until none are left: a request waits for one slice at most, and the
 * calls take their compact form soon after a restart rather than at their first read.
 */
function unpackWhenIdle(sim: Simulator): { start(): void; stop(): void } {
  let next: NodeJS.Immediate | undefined;
  const step = () => {
    next = sim.db.unpackSome(UNPACK_SLICE) ? setImmediate(step) : undefined;
  };
  return {
    start: () => {
      next ??= setImmediate(step);
    },
    stop: () => {
      if (next) clearImmediate(next);
      next = undefined;
    },
  };
}

/** The per-request log line: JSON with the simulated time, and the error message of a 4xx/5xx answer. */
function requestLine(sim: Simulator, entry: RequestLogEntry): string {
  return JSON.stringify({ level: entry.status >= 500 ? 'error' : 'info', msg: 'request', sim_time: new Date(sim.clock.now()).toISOString(), ...entry });
}

/**
 * Long clock moves log their progress: a line every `every` events while the move runs,
 * and one when a move that ran at least that many is done.
 */
function logProgress(sim: Simulator, every: number, log: (line: string) => void): void {
  let ran = 0;
  const line = (fields: Record<string, unknown>) => log(JSON.stringify({ level: 'info', ...fields }));
  sim.clock.onFired(() => {
    ran++;
    if (ran % every === 0) line({ msg: 'clock progress', sim_time: new Date(sim.clock.now()).toISOString(), ran });
  });
  sim.clock.onMoved((move) => {
    ran = 0;
    if (move.ran >= every) {
      line({ msg: 'clock moved', sim_time: new Date(move.to).toISOString(), by: move.by, from: new Date(move.from).toISOString(), ran: move.ran });
    }
  });
}

/** The banner printed when the server is up. */
export function banner(url: string, adminToken?: string): string {
  return [
    `voxsim ${VERSION} listening on ${url}`,
    `  API base URL:  ${url}`,
    `  API key:       ${DEFAULT_API_KEY}   (Authorization: Bearer ${DEFAULT_API_KEY})`,
    `  Control API:   ${url}/__sim   (try ${url}/__sim/health)${adminToken ? '   (Authorization: Bearer <admin token>)' : ''}`,
  ].join('\n');
}

/** The lines after the banner: where to watch the server live. */
export function liveLines(url: string, adminToken?: string): string {
  const stream = url.replace(/^http/, 'ws');
  return [
    `  Dashboard:     ${url}/__sim/ui${adminToken ? `   (it asks for the admin token, or open ${url}/__sim/ui#token=<admin token>)` : ''}`,
    `  Event stream:  ${stream}/__sim/events   (voxsim events --url ${url}${adminToken ? ' --admin-token <admin token>' : ''})`,
  ].join('\n');
}

/**
 * `voxsim scenario run FILE|NAME...`: each file (or shipped scenario) on a fresh
 * simulator; answers the exit code. With `progress` (a terminal), a line per file says
 * which one is playing.
 */
export async function runScenarios(files: string[], out: Pick<Console, 'log' | 'error'>, options: { progress?: boolean } = {}): Promise<number> {
  if (files.length === 0) return usageError(out, 'No scenario file given.', 'scenario run');
  // An argument that names no file and no shipped scenario is a usage error: nothing runs (exit 2).
  const resolved: string[] = [];
  for (const arg of files) {
    try {
      resolved.push(scenarioFile(arg));
    } catch (error) {
      return usageError(out, (error as Error).message, 'scenario run');
    }
  }
  let failed = 0;
  for (const [index, file] of resolved.entries()) {
    if (options.progress) out.error(`[${index + 1}/${files.length}] ${files[index]}`);
    try {
      const loaded = loadScenario(readFileSync(file, 'utf8'), file);
      out.log(`${loaded.scenario.name}  (${file})`);
      const sim = createSimulator();
      const run = await playScenario(sim, loaded, { onStep: (r) => out.log(formatStep(r)), onProgress: (m) => out.error(`  ${m}`) });
      sim.dispose();
      const checks = run.steps.filter((s) => s.expectation);
      const passedChecks = checks.filter((s) => s.ok).length;
      out.log(`${run.passed ? 'PASS' : 'FAIL'}  ${passedChecks}/${checks.length} expectations, clock at ${formatSqlUtc(sim.clock.now())}\n`);
      if (!run.passed) failed++;
    } catch (error) {
      failed++;
      out.log(`ERROR  ${error instanceof ScenarioError ? error.message : `${file}: ${(error as Error).message}`}\n`);
    }
  }
  out.log(`${files.length - failed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

/** Runs the command line; resolves to the exit code (a running server keeps the process alive). */
export async function main(argv: string[], out: Pick<Console, 'log' | 'error'> = console): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) {
    out.error(USAGE);
    return EXIT_USAGE;
  }
  if (command === '--help' || command === '-h' || command === 'help') {
    // `voxsim help serve` is `voxsim serve --help`.
    if (command === 'help' && rest.length > 0) return main([...rest, '--help'], out);
    out.log(USAGE);
    return 0;
  }
  if (command === '--version' || command === '-v') {
    out.log(VERSION);
    return 0;
  }
  if (command === 'scenario') return scenarioCommand(rest, out);
  if (command === 'openapi') return openApiCommand(rest, out);
  if (command === 'catalog') return catalogCommand(rest, out);
  if (command === 'record' || command === 'drift') {
    if (wantsHelp(rest)) {
      out.log(commandHelp(command));
      return 0;
    }
    try {
      if (command === 'drift') {
        const options = parseDriftArgs(rest);
        return driftCommand(options, out);
      }
      const options = parseRecordArgs(rest);
      return recordCommand(options, out);
    } catch (error) {
      return usageError(out, usageMessage(error as Error, command), command);
    }
  }
  if (command !== 'serve' && command !== 'events') {
    const near = closest(command, ['serve', 'events', 'scenario', 'catalog', 'record', 'drift', 'openapi', 'help', '--help', '--version']);
    return usageError(out, `Unknown command "${command}".${near === undefined ? '' : ` Did you mean ${near}?`}`);
  }
  if (wantsHelp(rest)) {
    out.log(commandHelp(command));
    return 0;
  }
  if (command === 'events') {
    let options: EventsOptions;
    try {
      options = parseEventsArgs(rest, process.env, process.stdout.isTTY === true);
    } catch (error) {
      return usageError(out, usageMessage(error as Error, 'events'), 'events');
    }
    return followEvents(options, out);
  }
  let options: ServeOptions;
  try {
    options = parseServeArgs(rest);
  } catch (error) {
    return usageError(out, usageMessage(error as Error, 'serve'), 'serve');
  }
  let running: RunningServer;
  try {
    running = await serve(options, (line) => out.log(line));
  } catch (error) {
    if (!(error instanceof StartupError)) throw error;
    out.error(error.message);
    return EXIT_STARTUP;
  }
  out.log(banner(running.url, options.adminToken));
  out.log(liveLines(running.url, options.adminToken));
  let stopping = false;
  // Several signals (or a signal and the parent watch) may ask; the server closes once.
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void running.close().then(
      () => process.exit(0),
      (error: Error) => {
        out.error(error.message);
        process.exit(1);
      },
    );
  };
  // A hang-up (the terminal closed) stops the server as cleanly as SIGINT and SIGTERM do.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, stop);
  if (options.exitWithParent) watchParent(stop);
  return 0;
}

/**
 * `--exit-with-parent`: under `npm start` the server is npm's child (the script `exec`s
 * node with this flag), and npm forwards SIGINT and SIGTERM only: when npm goes some other
 * way (SIGHUP, SIGKILL), the server would live on without it. So it stops once its parent
 * is gone (it has been handed to another parent). Without the flag (`npx`, a shell,
 * `nohup`, a script that starts it in the background) it outlives its parent as a server
 * should.
 */
function watchParent(stop: () => void): void {
  const parent = process.ppid;
  const cancel = everyRealInterval(500, () => {
    if (process.ppid === parent) return;
    cancel();
    stop();
  });
}

/** `voxsim openapi [--server URL]`: the document `GET {base_url}/__sim/openapi.json` answers. */
function openApiCommand(args: string[], out: Pick<Console, 'log' | 'error'>): number {
  if (wantsHelp(args)) {
    out.log(commandHelp('openapi'));
    return 0;
  }
  let server: string | undefined;
  try {
    ({ values: { server } } = parseArgs({ args, options: { server: { type: 'string' } }, strict: true, allowPositionals: false }));
  } catch (error) {
    return usageError(out, usageMessage(error as Error, 'openapi'), 'openapi');
  }
  out.log(JSON.stringify(openApiDocument(ROUTES, server === undefined ? {} : { serverUrl: server }), null, 2));
  return 0;
}

/**
 * `voxsim catalog pull|schema`, each with `--help` (issue 27). A pull that is refused or
 * cannot reach the platform is one line and exit 2.
 */
async function catalogCommand(args: string[], out: Pick<Console, 'log' | 'error'>): Promise<number> {
  const chosen = subcommand('catalog', ['pull', 'schema'] as const, args, out);
  if (typeof chosen === 'number') return chosen;
  const { sub, rest, command } = chosen;
  if (sub === 'schema') {
    try {
      parseArgs({ args: rest, options: {}, strict: true, allowPositionals: false });
    } catch (error) {
      return usageError(out, usageMessage(error as Error, command), command);
    }
    out.log(JSON.stringify(catalogJsonSchema(), null, 2));
    return 0;
  }
  let values: { from?: string; key?: string; out?: string };
  try {
    ({ values } = parseArgs({ args: rest, options: { from: { type: 'string' }, key: { type: 'string' }, out: { type: 'string' } }, strict: true, allowPositionals: false }));
    if (values.from === undefined || !/^https?:\/\/[^/]/.test(values.from)) throw new Error(`--from must be the platform's API base URL, such as http://127.0.0.1:4010/api${values.from === undefined ? '' : `, got "${values.from}"`}`);
    if (values.key === undefined || values.key === '') throw new Error('--key must be an API key of the platform');
  } catch (error) {
    return usageError(out, usageMessage(error as Error, command), command);
  }
  try {
    const text = `${JSON.stringify(await pullCatalog(values.from, values.key), null, 2)}\n`;
    if (values.out === undefined) process.stdout.write(text);
    else {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(values.out, text);
      out.error(`Wrote the catalog of ${values.from} to ${values.out}.`);
    }
    return 0;
  } catch (error) {
    if (error instanceof CatalogPullError) out.error(`voxsim catalog pull: ${error.message}`);
    else if ((error as NodeJS.ErrnoException).code !== undefined) out.error(`voxsim catalog pull: cannot write ${values.out} (${fsReason(error)})`);
    else throw error;
    return EXIT_USAGE;
  }
}

/**
 * The subcommand of a command group (`voxsim catalog pull ...`) with the arguments after it,
 * or the exit code once the group's or the subcommand's help, or a usage error for a missing
 * or unknown subcommand (with the closest one), has been printed.
 */
function subcommand<G extends 'catalog' | 'scenario', S extends string>(
  group: G,
  subs: readonly S[],
  args: string[],
  out: Pick<Console, 'log' | 'error'>,
): number | { sub: S; rest: string[]; command: `${G} ${S}` & CommandName } {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    if (sub === undefined) return usageError(out, `No ${group} command given.`, group);
    out.log(commandHelp(group));
    return 0;
  }
  if (!(subs as readonly string[]).includes(sub)) {
    const near = closest(sub, subs);
    return usageError(out, `Unknown ${group} command "${sub}".${near === undefined ? '' : ` Did you mean ${near}?`}`, group);
  }
  const command = `${group} ${sub}` as `${G} ${S}` & CommandName;
  if (wantsHelp(rest)) {
    out.log(commandHelp(command));
    return 0;
  }
  return { sub: sub as S, rest, command };
}

/** `voxsim scenario run|list|schema|from-har`, each with `--help`. */
async function scenarioCommand(args: string[], out: Pick<Console, 'log' | 'error'>): Promise<number> {
  const chosen = subcommand('scenario', ['run', 'list', 'schema', 'from-har'] as const, args, out);
  if (typeof chosen === 'number') return chosen;
  const { sub, rest, command } = chosen;
  if (sub === 'from-har') {
    let options: ReturnType<typeof parseFromHarArgs>;
    try {
      options = parseFromHarArgs(rest);
    } catch (error) {
      return usageError(out, usageMessage(error as Error, command), command);
    }
    return fromHarCommand(options, out);
  }
  let positionals: string[];
  try {
    ({ positionals } = parseArgs({ args: rest, options: {}, strict: true, allowPositionals: sub === 'run' }));
  } catch (error) {
    return usageError(out, usageMessage(error as Error, command), command);
  }
  if (sub === 'run') return runScenarios(positionals, out, { progress: process.stderr.isTTY === true });
  if (sub === 'list') return listScenarios(out);
  out.log(JSON.stringify(scenarioJsonSchema(), null, 2));
  return 0;
}

export interface EventsOptions {
  url: string;
  adminToken?: string;
  types: string[];
  accountId?: number;
  since?: number;
  json: boolean;
  colour: boolean;
}

/**
 * Reads `events` flags; `--url` and `--admin-token` default to `VOXSIM_URL` and
 * `VOXSIM_ADMIN_TOKEN`; colour follows the terminal, `NO_COLOR`, `FORCE_COLOR` and `--no-color`.
 */
export function parseEventsArgs(args: string[], env: Record<string, string | undefined> = {}, tty = false): EventsOptions {
  const { values } = parseArgs({
    args,
    options: {
      url: { type: 'string', default: env.VOXSIM_URL ?? 'http://127.0.0.1:4010/api' },
      'admin-token': { type: 'string' },
      type: { type: 'string', multiple: true },
      account: { type: 'string' },
      since: { type: 'string' },
      json: { type: 'boolean', default: false },
      'no-color': { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (!/^https?:\/\/[^/]/.test(values.url)) throw new Error(`--url must be the server's API base URL, such as http://127.0.0.1:4010/api, got "${values.url}"`);
  const whole = (flag: string, text: string | undefined, min: number) => {
    if (text === undefined) return undefined;
    const n = Number(text);
    if (!/^\d+$/.test(text) || n < min) throw new Error(`--${flag} must be a whole number${min > 0 ? ` from ${min}` : ''}, got "${text}"`);
    return n;
  };
  const accountId = whole('account', values.account, 1);
  const since = whole('since', values.since, 0);
  const adminToken = values['admin-token'] ?? env.VOXSIM_ADMIN_TOKEN;
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0';
  return {
    url: values.url.replace(/\/+$/, ''),
    types: (values.type ?? []).flatMap((t) => t.split(',')).map((t) => t.trim()).filter((t) => t.length > 0),
    json: values.json,
    colour: !values['no-color'] && env.NO_COLOR === undefined && (forced || tty),
    ...(adminToken !== undefined && { adminToken }),
    ...(accountId !== undefined && { accountId }),
    ...(since !== undefined && { since }),
  };
}

/**
 * `voxsim events`: prints a server's events until the stream ends (or SIGINT). A drop as
 * a slow consumer (1013) reconnects at once from the last event seen, so nothing that is
 * still in the server's history is missed. Resolves to the exit code.
 */
export function followEvents(options: EventsOptions, out: Pick<Console, 'log' | 'error'>): Promise<number> {
  return new Promise((resolve) => {
    let lastSeq = options.since;
    let close: () => void = () => undefined;
    let stopped = false;
    const connect = () => {
      close = openEventStream({
        url: options.url,
        adminToken: options.adminToken,
        types: options.types,
        accountId: options.accountId,
        since: lastSeq,
        onHello: (hello) => {
          const { latest_seq, replayed, missed } = hello.data;
          // Without --since, a reconnection continues from where this one started.
          lastSeq ??= latest_seq;
          out.error(`Following ${options.url}/__sim/events (latest seq ${latest_seq}${replayed > 0 ? `, replaying ${replayed}` : ''}${missed > 0 ? `, ${missed} no longer in the history` : ''}). Ctrl-C stops.`);
        },
        onEvent: (event) => {
          lastSeq = event.seq;
          out.log(options.json ? JSON.stringify(event) : formatEventLine(event, { colour: options.colour }));
        },
        onEnd: (end) => {
          if (stopped) return resolve(0);
          if (end.status !== undefined) {
            out.error(`The server refused the stream: ${end.status} ${end.reason}`);
            return resolve(1);
          }
          if (end.code === SLOW_CONSUMER_CLOSE_CODE) {
            out.error(`Dropped as a slow consumer (${end.reason}); reconnecting from seq ${lastSeq ?? 0}.`);
            return connect();
          }
          out.error(`The stream ended (${end.code}${end.reason ? ` ${end.reason}` : ''}).`);
          resolve(end.code === 1000 || end.code === 1001 ? 0 : 1);
        },
      });
    };
    process.once('SIGINT', () => {
      stopped = true;
      close();
    });
    connect();
  });
}
