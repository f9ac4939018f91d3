/**
 * `voxsim serve`: the standalone server (API, control API, event stream and dashboard)
 * over one simulator, its state file, its request and progress log lines and its banner.
 * Its flags are src/cli/serve-options.ts, its start-up checks src/cli/serve-startup.ts.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, resolve as resolvePath } from 'node:path';
import { SandboxDirError, SandboxDirectory } from '../sandboxes/durable.js';
import { attachEventStream, createApp, createHttpServer, DEFAULT_STREAM_BUFFER_LIMIT, SandboxHost, type RequestLogEntry } from '../adapters/express.js';
import { everyRealInterval } from '../core/clock.js';
import { DEFAULT_API_KEY } from '../domain/accounts/schema.js';
import { createSimulator, simulatorToRestore, type Simulator, type SimulatorSnapshot } from '../simulator.js';
import { fsReason, StateNotSavedError, StateStore } from '../state/persist.js';
import { VERSION } from '../version.js';
import { usageError, usageMessage } from './help.js';
import { listenMessage, LOOPBACK, serverStateFile } from './options.js';
import { parseServeArgs, type ServeOptions } from './serve-options.js';
import { checkStateDirectory, EXIT_STARTUP, loadStartCatalog, loadStartScenario, oneLine, readState, StartupError, STARTUP_MESSAGES } from './serve-startup.js';

/** Progress lines of long clock moves: one per this many events. */
export const PROGRESS_EVERY = 10_000;

/** The loopback names and the wildcard addresses, whose server answers on every loopback name. */
const LOOPBACK_HOSTS = new Set([...LOOPBACK, '0.0.0.0', '::']);

export interface RunningServer {
  /** The server's own simulator: it answers every request that names no sandbox. */
  sim: Simulator;
  /** The sandboxes beside it (issue 35). */
  sandboxes: SandboxHost;
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
  if (options.stateDir === undefined) return serveWith(options, undefined, log);
  // --state-dir: the server's own state is DIR/server.json; its start-up lines point at the flag that was given.
  const dir = resolvePath(options.stateDir);
  try {
    const sandboxes = openSandboxDir(dir, options, log);
    return await serveWith({ ...options, stateFile: serverStateFile(dir) }, sandboxes, log);
  } catch (error) {
    if (error instanceof StartupError) throw new StartupError(error.message.replace(/--state-file\b/g, '--state-dir').replace(/^state file directory /, 'state directory '));
    throw error;
  }
}

/** `--state-dir`'s sandboxes: the list read, each sandbox's file checked (a directory that cannot be used is a start-up line). */
function openSandboxDir(dir: string, options: ServeOptions, log: (line: string) => void): SandboxDirectory {
  checkStateDirectory(serverStateFile(dir));
  try {
    return SandboxDirectory.open(dir, {
      ...(options.compactAfter !== undefined && { compactAfter: options.compactAfter }),
      report: (entry) => log(JSON.stringify(entry)),
    });
  } catch (error) {
    if (error instanceof SandboxDirError) throw new StartupError(STARTUP_MESSAGES.sandboxDirBroken(oneLine(error.message)));
    throw error;
  }
}

async function serveWith(options: ServeOptions, keeper: SandboxDirectory | undefined, log: (line: string) => void): Promise<RunningServer> {
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
  // Sandboxes (issue 35) start as the server's own simulator does (its start, wire and catalog), with its webhook guard.
  const loopbackUrls: string[] = [];
  let serverUrl = '';
  const sandboxes = new SandboxHost(sim, {
    ...(options.maxSandboxes !== undefined && { maxSandboxes: options.maxSandboxes }),
    ...(options.maxLoadedSandboxes !== undefined && { maxLoadedSandboxes: options.maxLoadedSandboxes }),
    ...(options.sandboxTtlMs !== undefined && { ttlMs: options.sandboxTtlMs }),
    ...(options.openSandboxes && { openSandboxes: true }),
    ...(options.shard !== undefined && { shard: options.shard }),
    ...(keeper && { keeper }),
    simulator: {
      ...(catalog !== undefined && { catalog }),
      ...(options.start !== undefined && { startAt: options.start }),
      ...(options.wire !== undefined && { wire: options.wire }),
    },
    configure: (sandbox) => {
      for (const url of loopbackUrls) sandbox.webhooks.refuseUnder(url);
      if (loopbackUrls.length > 0) sandbox.setBaseUrl(serverUrl);
      logProgress(sandbox, options.progressEvery ?? PROGRESS_EVERY, log);
    },
  });
  const app = createApp(sandboxes, {
    basePath: options.basePath,
    ...(!options.quiet && { onRequest: (entry) => log(requestLine(sim, entry)) }),
    // An answer waits until the changes of the simulator that answered it are on disk (a sandbox's with --state-dir).
    ...((store || keeper) && { beforeAnswer: (request) => sandboxes.saved(request, store && (() => store.flushed())) }),
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
      const stream = attachEventStream(server, sandboxes, {
        basePath: options.basePath,
        bufferLimit: options.streamBuffer ?? DEFAULT_STREAM_BUFFER_LIMIT,
        onDrop: (drop) => log(JSON.stringify({ level: 'warn', msg: 'stream consumer dropped', ...drop })),
      });
      const { port } = server.address() as AddressInfo;
      const host = options.host.includes(':') ? `[${options.host}]` : options.host;
      const url = `http://${host}:${port}${options.basePath}`;
      // Deliveries must not loop back into the server under any of its loopback names.
      const names = LOOPBACK_HOSTS.has(options.host) ? [...LOOPBACK] : [host];
      loopbackUrls.push(...names.map((name) => `http://${name.includes(':') ? `[${name}]` : name}:${port}${options.basePath}`));
      for (const url of loopbackUrls) sim.webhooks.refuseUnder(url);
      // live-platform H.7: the links of files (recordings, attachments) name the server's own URL.
      serverUrl = url;
      for (const each of sandboxes.simulators()) each.setBaseUrl(url);
      resolve({
        sim,
        sandboxes,
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
          let sandboxError: unknown;
          try {
            // --state-dir: each loaded sandbox's final snapshot and the list.
            await sandboxes.close();
          } catch (error) {
            sandboxError = error;
          }
          sim.dispose();
          await closed;
          // Changes not even logged are lost; a final snapshot that failed leaves them in the change logs.
          if (saveError instanceof StateNotSavedError) throw new Error(`state file ${stateFile} could not be written (${fsReason(saveError)}); the last changes are lost`);
          if (saveError !== undefined) throw new Error(`state file ${stateFile} could not be rewritten (${fsReason(saveError)}); its change logs hold the last changes`);
          if (sandboxError !== undefined) throw new Error(`state directory ${options.stateDir}: ${(sandboxError as Error).message}`);
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
    `  Sandboxes:     ${url}/__sim/sandboxes   (voxsim sandbox create --url ${url}${adminToken ? ' --admin-token <admin token>' : ''})`,
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
 * `voxsim serve` (its `--help` is the main's): reads its flags, starts the server and
 * prints the banner; SIGINT, SIGTERM and SIGHUP (and, with `--exit-with-parent`, its
 * parent gone) stop it. Resolves to the exit code once it listens (the running server
 * keeps the process alive).
 */
export async function serveCommand(args: string[], out: Pick<Console, 'log' | 'error'>): Promise<number> {
  let options: ServeOptions;
  try {
    options = parseServeArgs(args);
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
