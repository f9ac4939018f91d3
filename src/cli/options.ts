/**
 * Option checks the commands share (`voxsim serve`, `record`, `drift`, `scenario
 * from-har`): each throws an Error whose message is the one line the command prints.
 */
import { WIRES, type Wire } from '../core/wire.js';

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
