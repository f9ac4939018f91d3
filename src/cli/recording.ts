/**
 * The recording commands (issue 28): `voxsim record` (a recording proxy in front of the real
 * platform), `voxsim drift` (a recording replayed on a fresh simulator, differences
 * reported) and `voxsim scenario from-har` (a recording written as a scenario). Each parses
 * its flags as its declaration says (src/cli/commands.ts; a bad one throws, and its entry
 * prints it with the command's help, exit 2), and reports a file it cannot use as one line
 * naming it (exit 2).
 */
import { readFileSync } from 'node:fs';
import { normaliseBasePath } from '../core/http.js';
import { parseInstant } from '../core/time.js';
import type { Wire } from '../core/wire.js';
import { writeFileAtomically } from '../state/atomic.js';
import { parseFlags, usageError, usageMessage } from './help.js';
import { listenMessage, portOption, requireTokenOffLoopback, wireOption } from './options.js';
import type { DriftReport } from '../recording/drift.js';
import { HarError } from '../recording/har.js';
import type { RecordingProxy } from '../recording/proxy.js';
// The commands' own modules (the proxy's node:http, node:https, node:zlib among them) load
// when a command runs, not with `voxsim serve` (issue 29: start-up).
import { parseUpstream, type Upstream } from '../recording/session.js';
import type { CatalogDocument } from '../domain/catalog/document.js';
import { CatalogFileError, readCatalogFile } from '../scenario/catalog-file.js';
import { ScenarioError } from '../scenario/load.js';
import { createSimulator, ROUTES } from '../simulator.js';
import { VERSION } from '../version.js';

type Out = Pick<Console, 'log' | 'error'>;

/** Exit code of a file that cannot be used, an upstream that cannot be reached, a port that cannot be bound. */
export const EXIT_INPUT = 2;

/**
 * A recording command's entry from the main: its flags read by `parse` (a bad one is a
 * usage error with the command's help, exit 2), then the command run on them.
 */
function entry<A>(command: 'record' | 'drift' | 'scenario from-har', parse: (args: string[]) => A, run: (options: A, out: Out) => Promise<number>) {
  return (args: string[], out: Out): number | Promise<number> => {
    let options: A;
    try {
      options = parse(args);
    } catch (error) {
      return usageError(out, usageMessage(error as Error, command), command);
    }
    return run(options, out);
  };
}

/** `voxsim record` from the main (its `--help` is the main's). */
export const recordMain = entry('record', parseRecordArgs, recordCommand);
/** `voxsim drift` from the main. */
export const driftMain = entry('drift', parseDriftArgs, driftCommand);
/** `voxsim scenario from-har` from the main. */
export const fromHarMain = entry('scenario from-har', parseFromHarArgs, fromHarCommand);

/** The one HAR file a command takes. */
function oneFile(positionals: string[]): string {
  if (positionals.length === 0) throw new Error('No HAR file given.');
  if (positionals.length > 1) throw new Error(`One HAR file at a time, got ${positionals.length}: ${positionals.join(' ')}`);
  return positionals[0]!;
}

/** A file's text, or a one-line reason naming it. */
function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new HarError(file, null, code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : `cannot be read (${code ?? (error as Error).message})`);
  }
}

export interface DriftArgs {
  file: string;
  wire?: Wire;
  given?: string;
  catalog?: string;
  json: boolean;
  html?: string;
  basePath: string;
  start?: string;
}

export function parseDriftArgs(args: string[]): DriftArgs {
  const { values, positionals } = parseFlags('drift', args);
  if (values.start !== undefined && parseInstant(values.start) === undefined) throw new Error(`--start must be an ISO 8601 time, got "${values.start}"`);
  const wire = wireOption(values.wire);
  return {
    file: oneFile(positionals),
    json: values.json,
    basePath: normaliseBasePath(values['base-path']),
    ...(wire && { wire }),
    ...(values.given !== undefined && { given: values.given }),
    ...(values.catalog !== undefined && { catalog: values.catalog }),
    ...(values.html !== undefined && { html: values.html }),
    ...(values.start !== undefined && { start: values.start }),
  };
}

/**
 * Runs drift on a file; answers the report (undefined after printing the one line of a file
 * that cannot be used).
 */
export async function driftFile(options: DriftArgs, out: Out): Promise<DriftReport | undefined> {
  const wire = options.wire ?? 'spec';
  let catalog: CatalogDocument | undefined;
  try {
    if (options.catalog !== undefined) catalog = await readCatalogFile(options.catalog, wire);
  } catch (error) {
    if (error instanceof CatalogFileError) out.error(error.message);
    else if ((error as NodeJS.ErrnoException).code !== undefined) out.error(`${options.catalog}: the --catalog file cannot be read (${(error as NodeJS.ErrnoException).code})`);
    else throw error;
    return undefined;
  }
  try {
    const { replayDrift } = await import('../recording/drift.js');
    return await replayDrift(readText(options.file), { file: options.file, basePath: options.basePath, wire, ...(options.given && { given: options.given }), ...(options.start && { start: options.start }), ...(catalog && { catalog }) }, {
      createHost: (o) => createSimulator(o),
      routes: ROUTES as never,
    });
  } catch (error) {
    if (error instanceof HarError || error instanceof ScenarioError) out.error(error.message);
    else if (options.given !== undefined && (error as NodeJS.ErrnoException).code !== undefined) out.error(`${options.given}: the --given scenario cannot be read (${(error as NodeJS.ErrnoException).code})`);
    else throw error;
    return undefined;
  }
}

/** `voxsim drift FILE.har`: 0 nothing differs, 1 something does, 2 a file that cannot be used. */
export async function driftCommand(options: DriftArgs, out: Out): Promise<number> {
  const report = await driftFile(options, out);
  if (!report) return EXIT_INPUT;
  const { formatDriftHtml, formatDriftText } = await import('../recording/report.js');
  out.log(options.json ? JSON.stringify(report, null, 2) : formatDriftText(report));
  if (options.html !== undefined) {
    try {
      writeAtomically(options.html, formatDriftHtml(report));
    } catch (error) {
      out.error(`${options.html}: the HTML report cannot be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      return EXIT_INPUT;
    }
    if (!options.json) out.log(`HTML report: ${options.html}`);
  }
  return report.differences.length === 0 ? 0 : 1;
}

/** Replaces a report file atomically and durably (src/state/atomic.ts). */
function writeAtomically(file: string, text: string): void {
  writeFileAtomically(file, text);
}

export interface FromHarArgs {
  file: string;
  wire?: Wire;
  out?: string;
  basePath: string;
}

export function parseFromHarArgs(args: string[]): FromHarArgs {
  const { values, positionals } = parseFlags('scenario from-har', args);
  const wire = wireOption(values.wire);
  return { file: oneFile(positionals), basePath: normaliseBasePath(values['base-path']), ...(wire && { wire }), ...(values.out !== undefined && { out: values.out }) };
}

/** `voxsim scenario from-har FILE.har`: prints (or writes) the scenario; 2 for a file that cannot be used. */
export async function fromHarCommand(options: FromHarArgs, out: Out): Promise<number> {
  const { scenarioFromHar } = await import('../recording/from-har.js');
  let yaml: string;
  try {
    yaml = scenarioFromHar(readText(options.file), ROUTES as never, { file: options.file, basePath: options.basePath, ...(options.wire && { wire: options.wire }) });
  } catch (error) {
    if (error instanceof HarError) {
      out.error(error.message);
      return EXIT_INPUT;
    }
    throw error;
  }
  if (options.out === undefined) {
    out.log(yaml.trimEnd());
    return 0;
  }
  try {
    writeAtomically(options.out, yaml);
  } catch (error) {
    out.error(`${options.out}: the scenario cannot be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    return EXIT_INPUT;
  }
  out.error(`Wrote ${options.out}; run it with: voxsim scenario run ${options.out}`);
  return 0;
}

export interface RecordArgs {
  /** Parsed with the flags, so a bad one is refused with the usage. */
  upstream: Upstream;
  out: string;
  port: number;
  host: string;
  basePath: string;
  adminToken?: string;
  quiet: boolean;
}

export function parseRecordArgs(args: string[]): RecordArgs {
  const { values } = parseFlags('record', args);
  if (values.upstream === undefined) throw new Error('--upstream is required: the platform\'s base URL, such as https://api.example.com/api');
  const upstream = parseUpstream(values.upstream);
  if (values.out === undefined) throw new Error('--out is required: the HAR file to write, such as session.har');
  const port = portOption(values.port);
  // A proxy reachable from other machines must protect its status route, as serve protects its control API.
  requireTokenOffLoopback(values.host, values['admin-token']);
  return {
    upstream,
    out: values.out,
    port,
    host: values.host,
    basePath: normaliseBasePath(values['base-path']),
    quiet: values.quiet,
    ...(values['admin-token'] !== undefined && { adminToken: values['admin-token'] }),
  };
}

/** `voxsim record`: runs until SIGINT or SIGTERM (then 0); 2 when the upstream, the port or the file cannot be used. */
export async function recordCommand(options: RecordArgs, out: Out): Promise<number> {
  const { upstream } = options;
  const { probeUpstream, recordHar } = await import('../recording/proxy.js');
  const unreachable = await probeUpstream(upstream.url);
  if (unreachable !== undefined) {
    out.error(`upstream ${upstream.text} cannot be reached (${unreachable}); check --upstream`);
    return EXIT_INPUT;
  }
  let proxy: RecordingProxy;
  try {
    proxy = await recordHar({
      upstream: upstream.text,
      out: options.out,
      port: options.port,
      host: options.host,
      basePath: options.basePath,
      version: VERSION,
      ...(options.adminToken !== undefined && { adminToken: options.adminToken }),
      ...(!options.quiet && { onExchange: (x) => out.log(`  ${x.status} ${x.method} ${x.url}  (${x.entries} recorded)`) }),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const listening = listenMessage(error, options.port, options.host);
    if (listening !== undefined) out.error(listening);
    else if (code !== undefined) out.error(`${options.out}: the HAR file cannot be written (${code})`);
    else throw error;
    return EXIT_INPUT;
  }
  out.log(
    [
      `voxsim ${VERSION} recording ${upstream.text}`,
      `  Point your client at:  ${proxy.url}   (your own key; same paths and bodies)`,
      `  Recording to:          ${options.out}   (a valid HAR after each exchange; keys redacted)`,
      `  Stop with Ctrl-C, then: voxsim drift ${options.out} --wire live   or   voxsim scenario from-har ${options.out}`,
    ].join('\n'),
  );
  return new Promise((resolve) => {
    const stop = () => {
      void proxy.close().then(() => {
        out.log(`Recorded ${proxy.entries} exchanges to ${options.out}.`);
        resolve(0);
      });
    };
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, stop);
  });
}
