/**
 * The `voxsim` command line: `voxsim serve` starts the standalone server.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createApp, normaliseBasePath } from './adapters/express.js';
import { DEFAULT_API_KEY } from './domain/accounts/schema.js';
import { createSimulator, type Simulator } from './simulator.js';
import { parseInstant } from './core/time.js';
import { VERSION } from './version.js';

export const USAGE = `voxsim ${VERSION}: a local simulator of the Voice and Chat Assistant Platform API

Usage:
  voxsim serve [--port 4010] [--host 127.0.0.1] [--seed 1] [--base-path /api] [--start ISO-8601]
  voxsim --help | --version
`;

export interface ServeOptions {
  port: number;
  host: string;
  seed: number;
  basePath: string;
  start?: string;
}

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
    },
    strict: true,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number (0-65535), got "${values.port}"`);
  const seed = Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 31 - 1) throw new Error(`--seed must be a whole number from 0 to 2147483647, got "${values.seed}"`);
  if (values.start !== undefined && parseInstant(values.start) === undefined) throw new Error(`--start must be an ISO 8601 time, got "${values.start}"`);
  return { port, host: values.host, seed, basePath: normaliseBasePath(values['base-path']), ...(values.start !== undefined && { start: values.start }) };
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '0.0.0.0', '::']);

export interface RunningServer {
  sim: Simulator;
  server: Server;
  /** e.g. `http://127.0.0.1:4010/api` */
  url: string;
  close(): Promise<void>;
}

/**
 * Starts a server; resolves once it listens.
 * @example const { url, close } = await serve({ port: 0, host: '127.0.0.1', seed: 1, basePath: '/api' })
 */
export function serve(options: ServeOptions): Promise<RunningServer> {
  const sim = createSimulator({ seed: options.seed, ...(options.start !== undefined && { startAt: options.start }) });
  const app = createApp(sim, { basePath: options.basePath });
  return new Promise((resolve, reject) => {
    const server = app.listen(options.port, options.host, (error?: Error) => {
      if (error) return reject(error);
      const { port } = server.address() as AddressInfo;
      const host = options.host.includes(':') ? `[${options.host}]` : options.host;
      const url = `http://${host}:${port}${options.basePath}`;
      // Deliveries must not loop back into the server under any of its loopback names.
      const names = LOOPBACK_HOSTS.has(options.host) ? [...LOOPBACK_HOSTS].filter((h) => h !== '0.0.0.0' && h !== '::') : [host];
      for (const name of names) sim.webhooks.refuseUnder(`http://${name.includes(':') ? `[${name}]` : name}:${port}${options.basePath}`);
      resolve({
        sim,
        server,
        url,
        close: () =>
          new Promise<void>((done) => {
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
export function banner(url: string): string {
  return [
    `voxsim ${VERSION} listening on ${url}`,
    `  API base URL:  ${url}`,
    `  API key:       ${DEFAULT_API_KEY}   (Authorization: Bearer ${DEFAULT_API_KEY})`,
    `  Control API:   ${url}/__sim   (try ${url}/__sim/health)`,
  ].join('\n');
}

/** Runs the command line; resolves to the exit code (a running server keeps the process alive). */
export async function main(argv: string[], out = console): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    out.log(USAGE);
    return command === undefined ? 1 : 0;
  }
  if (command === '--version' || command === '-v') {
    out.log(VERSION);
    return 0;
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
  const running = await serve(options);
  out.log(banner(running.url));
  const stop = () => void running.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return 0;
}
