/**
 * The start-up checks of `voxsim serve`: the state file (its directory, its snapshot and
 * change logs), the `--catalog` and `--scenario` files. A file that cannot be used is a
 * `StartupError` whose message is the one line the command prints before it exits with
 * `EXIT_STARTUP`.
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { dirname, resolve as resolvePath } from 'node:path';
import type { Wire } from '../core/wire.js';
import type { CatalogDocument } from '../domain/catalog/document.js';
import { CatalogFileError, readCatalogFile } from '../scenario/catalog-file.js';
import { ScenarioError } from '../scenario/load.js';
import { SNAPSHOT_FORMAT, type Simulator, type SimulatorSnapshot } from '../simulator.js';
import { applyLog, fsReason, logFiles, StateFileError } from '../state/persist.js';
import { takeReadAhead } from '../state/read-ahead.js';
import { LISTEN_MESSAGES } from './options.js';

/** The temp file a state write goes through before it is renamed over the state file (as `StateStore` writes it). */
const tempFileOf = (file: string) => `${file}.${process.pid}.tmp`;

/**
 * A reason `voxsim serve` cannot start (a state file it cannot use, a port it cannot
 * bind): `serveCommand()` prints the message as one line and exits with `EXIT_STARTUP`.
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
  /** `--state-dir`: its sandbox list or a sandbox's state file cannot be used (`why` names the file: src/sandboxes/durable.ts). */
  sandboxDirBroken: (why: string) => `${why}; pass another --state-dir`,
  scenarioMissing: (file: string) => `scenario file ${file} does not exist; pass another --scenario`,
  scenarioUnreadable: (file: string, why: string) => `scenario file ${file} cannot be read (${why}); pass another --scenario`,
  scenarioInvalid: (why: string) => `scenario file ${why}`,
  catalogInvalid: (why: string) => `catalog file ${why.replace(/\.$/, '')}; pass another --catalog`,
  catalogMissing: (file: string) => `catalog file ${file} does not exist; pass another --catalog`,
  catalogUnreadable: (file: string, why: string) => `catalog file ${file} cannot be read (${why}); pass another --catalog`,
} as const;

/** One line of printable text: control characters escaped, whitespace runs collapsed. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).trim();
}

/**
 * The state file's directory must exist and take new files (each save writes a temp file
 * there and renames it): checked at start by creating and removing that temp file, so an
 * unusable directory stops the server now rather than failing its first save.
 */
export function checkStateDirectory(file: string): void {
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
export async function readState(file: string): Promise<{ snapshot?: { format?: unknown }; nextGen: number; logBytes: number }> {
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
export function loadStartCatalog(file: string, wire: Wire): Promise<CatalogDocument> {
  return loadStartFile(file, () => readCatalogFile(file, wire), CatalogFileError, {
    invalid: STARTUP_MESSAGES.catalogInvalid,
    missing: STARTUP_MESSAGES.catalogMissing,
    unreadable: STARTUP_MESSAGES.catalogUnreadable,
  });
}

/** `--scenario FILE` at start: its given and scripts, not its steps. */
export async function loadStartScenario(sim: Simulator, file: string): Promise<void> {
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
