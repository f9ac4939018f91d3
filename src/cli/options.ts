/**
 * Option checks the commands share (`voxsim serve`, `record`, `drift`, `scenario
 * from-har`): each throws an Error whose message is the one line the command prints.
 */
import { join } from 'node:path';
import { WIRES, type Wire } from '../core/wire.js';
import { parseFlags } from './help.js';

/** The names of this machine alone: a server bound to another must be guarded by an admin token. */
export const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/**
 * `--wire`: one of the wires, or undefined when the option is absent.
 * @example wireOption('live') // 'live'
 */
export function wireOption(text: string | undefined): Wire | undefined {
  if (text === undefined) return undefined;
  if (!(WIRES as readonly string[]).includes(text)) throw new Error(`--wire must be one of ${WIRES.join(', ')}, got "${text}"`);
  return text as Wire;
}

/**
 * `--port`: 0 (a free one) to 65535.
 * @example portOption('4010') // 4010
 */
export function portOption(text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number (0-65535), got "${text}"`);
  return port;
}

/** A server reachable from other machines must protect its control routes: `--admin-token` is then required. */
export function requireTokenOffLoopback(host: string, adminToken: string | undefined): void {
  if (!LOOPBACK.has(host) && !adminToken) throw new Error(`--admin-token is required when binding to ${host} (not a loopback address)`);
}

/**
 * The state file a `voxsim` command line serves from: its `--state-file` when the command
 * is `serve` and its options read as `serve` reads them; undefined otherwise (a usage error
 * is the command's to report).
 * @example serveStateFile(['serve', '--state-file', 'state.json']) // 'state.json'
 */
export function serveStateFile(argv: readonly string[]): string | undefined {
  if (argv[0] !== 'serve') return undefined;
  try {
    const { values } = parseFlags('serve', argv.slice(1));
    // --state-dir keeps the server's own state in DIR/server.json (docs/sandboxes.md: durable sandboxes).
    return values['state-file'] ?? (values['state-dir'] === undefined ? undefined : serverStateFile(values['state-dir']));
  } catch {
    return undefined;
  }
}

/**
 * The state file of the server's own simulator under `--state-dir DIR`.
 * @example serverStateFile('/var/voxsim') // '/var/voxsim/server.json'
 */
export function serverStateFile(dir: string): string {
  return join(dir, 'server.json');
}

/** The lines of a server that cannot listen (`voxsim serve`, `voxsim record`). */
export const LISTEN_MESSAGES = {
  portInUse: (port: number) => `port ${port} is in use; pass --port`,
  portDenied: (port: number) => `port ${port} may not be used by this user; pass --port`,
  hostUnavailable: (host: string) => `host ${host} is not an address of this machine; pass --host`,
  hostUnknown: (host: string) => `host ${host} cannot be found; pass --host`,
};

/**
 * The line of a listen on `port` and `host` that failed with `error`: the port in use or
 * denied, the host not this machine's or unknown; undefined for any other error.
 * @example listenMessage(Object.assign(new Error(), { code: 'EADDRINUSE' }), 4010, '127.0.0.1') // 'port 4010 is in use; pass --port'
 */
export function listenMessage(error: unknown, port: number, host: string): string | undefined {
  const { code, syscall } = error as NodeJS.ErrnoException;
  if (code === 'EADDRINUSE') return LISTEN_MESSAGES.portInUse(port);
  // A permission error of another call (writing a file) is not the port's.
  if (code === 'EACCES' && syscall === 'listen') return LISTEN_MESSAGES.portDenied(port);
  if (code === 'EADDRNOTAVAIL') return LISTEN_MESSAGES.hostUnavailable(host);
  if (code === 'ENOTFOUND') return LISTEN_MESSAGES.hostUnknown(host);
  return undefined;
}
