/**
 * The `voxsim` command line: `voxsim serve` starts the standalone server;
 * `voxsim scenario run` plays scenario files; `voxsim scenario schema` prints the
 * scenario format's JSON Schema.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createApp, normaliseBasePath } from './adapters/express.js';
import { afterRealDelay } from './core/clock.js';
import { parseInstant, formatSqlUtc } from './core/time.js';
import { WIRES, type Wire } from './core/wire.js';
import { DEFAULT_API_KEY } from './domain/accounts/schema.js';
import { ScenarioError, loadScenario } from './scenario/load.js';
import { formatStep, playScenario } from './scenario/runner.js';
import { scenarioJsonSchema } from './scenario/schema.js';
import { createSimulator, type Simulator, type SimulatorSnapshot } from './simulator.js';
import { VERSION } from './version.js';

export const USAGE = `voxsim ${VERSION}: a local simulator of the Voice and Chat Assistant Platform API

Usage:
  voxsim serve [--port 4010] [--host 127.0.0.1] [--seed 1] [--base-path /api] [--start ISO-8601]
               [--speed N] [--state-file FILE] [--scenario FILE] [--admin-token TOKEN]
               [--wire spec|live] [--quiet]
  voxsim scenario run FILE...     play scenario files, print their timelines, exit 1 on a failure
  voxsim scenario schema          print the JSON Schema of scenario files
  voxsim --help | --version
`;

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
  /** No request log lines. */
  quiet?: boolean;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '0.0.0.0', '::']);
const PRIVATE_LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** Reads `serve` flags; throws an Error with a readable message on bad input. */
export function parseServeArgs(args: string[]): ServeOptions {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string', default: '4010' },
      host: { type: 'string', default: '127.0.0.1' },
      seed: { type: 'string', default: '1' },
      'base-path': { type: 'string', default: '/api' },
      start: { type: 'string' },
      speed: { type: 'string' },
      'state-file': { type: 'string' },
      scenario: { type: 'string' },
      'admin-token': { type: 'string' },
      wire: { type: 'string' },
      quiet: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number (0-65535), got "${values.port}"`);
  const seed = Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 31 - 1) throw new Error(`--seed must be a whole number from 0 to 2147483647, got "${values.seed}"`);
  if (values.start !== undefined && parseInstant(values.start) === undefined) throw new Error(`--start must be an ISO 8601 time, got "${values.start}"`);
  const speed = values.speed === undefined ? undefined : Number(values.speed);
  if (speed !== undefined && !(speed > 0 && speed <= 1_000_000)) throw new Error(`--speed must be a number above 0 (60 = a minute per second), got "${values.speed}"`);
  if (values.wire !== undefined && !(WIRES as readonly string[]).includes(values.wire)) throw new Error(`--wire must be one of ${WIRES.join(', ')}, got "${values.wire}"`);
  // A server reachable from other machines must protect its control API.
  if (!PRIVATE_LOOPBACK.has(values.host) && !values['admin-token']) throw new Error(`--admin-token is required when binding to ${values.host} (not a loopback address)`);
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
    ...(values.wire !== undefined && { wire: values.wire as Wire }),
  };
}

export interface RunningServer {
  sim: Simulator;
  server: Server;
  /** e.g. `http://127.0.0.1:4010/api` */
  url: string;
  /** Writes the state file now (when there is one). */
  saveState(): void;
  close(): Promise<void>;
}

/** Writes the snapshot atomically: a temp file renamed over the old one. */
function writeState(file: string, sim: Simulator): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(sim.snapshot()));
  renameSync(temp, file);
}

/**
 * Starts a server; resolves once it listens.
 * @example const { url, close } = await serve({ port: 0, host: '127.0.0.1', seed: 1, basePath: '/api' })
 */
export async function serve(options: ServeOptions, log: (line: string) => void = () => undefined): Promise<RunningServer> {
  const sim = createSimulator({
    seed: options.seed,
    ...(options.start !== undefined && { startAt: options.start }),
    ...(options.adminToken !== undefined && { adminToken: options.adminToken }),
    ...(options.wire !== undefined && { wire: options.wire }),
  });
  if (options.scenario) await sim.loadScenario(options.scenario, { steps: false });
  if (options.stateFile && existsSync(options.stateFile)) sim.restore(JSON.parse(readFileSync(options.stateFile, 'utf8')) as SimulatorSnapshot);
  if (options.speed !== undefined) sim.clock.setMode('realtime', options.speed);

  let cancelSave: (() => void) | undefined;
  const saveState = () => {
    cancelSave?.();
    cancelSave = undefined;
    if (options.stateFile) writeState(options.stateFile, sim);
  };
  // Debounced: a burst of changes is written once, 250 ms after the last.
  if (options.stateFile) sim.onChange(() => {
    cancelSave?.();
    cancelSave = afterRealDelay(250, saveState);
  });

  const app = createApp(sim, {
    basePath: options.basePath,
    ...(!options.quiet && {
      onRequest: (entry) => log(JSON.stringify({ level: 'info', msg: 'request', sim_time: new Date(sim.clock.now()).toISOString(), ...entry })),
    }),
  });
  return new Promise((resolve, reject) => {
    const server = app.listen(options.port, options.host, (error?: Error) => {
      if (error) return reject(error);
      const { port } = server.address() as AddressInfo;
      const host = options.host.includes(':') ? `[${options.host}]` : options.host;
      const url = `http://${host}:${port}${options.basePath}`;
      // Deliveries must not loop back into the server under any of its loopback names.
      const names = LOOPBACK_HOSTS.has(options.host) ? [...PRIVATE_LOOPBACK] : [host];
      for (const name of names) sim.webhooks.refuseUnder(`http://${name.includes(':') ? `[${name}]` : name}:${port}${options.basePath}`);
      resolve({
        sim,
        server,
        url,
        saveState,
        close: () =>
          new Promise<void>((done) => {
            if (options.stateFile) saveState();
            sim.dispose();
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
    server.on('error', reject);
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

/** `voxsim scenario run FILE...`: each file on a fresh simulator; answers the exit code. */
export async function runScenarios(files: string[], out: Pick<Console, 'log' | 'error'>): Promise<number> {
  if (files.length === 0) {
    out.error(`No scenario file given.\n\n${USAGE}`);
    return 1;
  }
  let failed = 0;
  for (const file of files) {
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
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    out.log(USAGE);
    return command === undefined ? 1 : 0;
  }
  if (command === '--version' || command === '-v') {
    out.log(VERSION);
    return 0;
  }
  if (command === 'scenario') {
    const [sub, ...files] = rest;
    if (sub === 'run') return runScenarios(files, out);
    if (sub === 'schema') {
      out.log(JSON.stringify(scenarioJsonSchema(), null, 2));
      return 0;
    }
    out.error(`Unknown scenario command "${sub ?? ''}".\n\n${USAGE}`);
    return 1;
  }
  if (command !== 'serve') {
    out.error(`Unknown command "${command}".\n\n${USAGE}`);
    return 1;
  }
  let options: ServeOptions;
  try {
    options = parseServeArgs(rest);
  } catch (error) {
    out.error(`${(error as Error).message}\n\n${USAGE}`);
    return 1;
  }
  const running = await serve(options, (line) => out.log(line));
  out.log(banner(running.url, options.adminToken));
  const stop = () => void running.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return 0;
}
