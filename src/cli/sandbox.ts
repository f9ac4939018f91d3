/**
 * `voxsim sandbox create|list|delete` (issue 35): a running server's sandboxes from the
 * command line. `create` prints the new sandbox's key alone (for
 * `export FAMULOR_API_KEY=$(voxsim sandbox create …)`), or the whole sandbox with `--json`.
 * A refusal or a server it cannot reach is one line on stderr and exit 2.
 */
import { parseArgs } from 'node:util';
import { MAX_SEED } from '../core/random.js';
import { EXIT_USAGE, subcommand, usageError, usageMessage } from './help.js';
import { wireOption } from './options.js';

/** The server's API base URL when `--server` is not given. */
const DEFAULT_SERVER = 'http://127.0.0.1:4010/api';

/** The lines of a sandbox command that did not get its answer. */
export const SANDBOX_CLI_MESSAGES = {
  refused: (command: string, status: number, message: string) => `voxsim sandbox ${command}: the server answered ${status}: ${message}`,
  unreachable: (command: string, server: string, reason: string) => `voxsim sandbox ${command}: cannot reach ${server} (${reason})`,
} as const;

/** What `create` and `list` print of a sandbox (the JSON of the registry routes). */
interface SandboxRecord {
  id: string;
  name: string | null;
  api_key: string;
  seed: number;
  now: string;
  wire: string;
  created_at: string;
  expires_at: string;
}

/** A request the server refused, or one that never reached it: its line is printed as it is. */
class SandboxRequestError extends Error {}

/** Sends one registry request with the bearer `token`; answers the JSON body of a 2xx, else throws its one line. */
async function request(command: string, server: string, method: string, path: string, token: string | undefined, body?: unknown): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(`${server.replace(/\/+$/, '')}${path}`, {
      method,
      headers: { accept: 'application/json', ...(token !== undefined && { authorization: `Bearer ${token}` }), ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new SandboxRequestError(SANDBOX_CLI_MESSAGES.unreachable(command, server, cause?.code ?? cause?.message ?? (error as Error).message));
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!res.ok) {
    const answer = parsed as { message?: unknown; errors?: Record<string, string[]> } | undefined;
    // Shape B names each field; the first problem is the line (the message counts the rest).
    const message = typeof answer?.message === 'string' ? answer.message : text.slice(0, 200) || res.statusText;
    throw new SandboxRequestError(SANDBOX_CLI_MESSAGES.refused(command, res.status, message));
  }
  return parsed;
}

/** `voxsim sandbox create|list|delete`, each with `--help`. */
export async function sandboxCommand(args: string[], out: Pick<Console, 'log' | 'error'>, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const chosen = subcommand('sandbox', ['create', 'list', 'delete'] as const, args, out);
  if (typeof chosen === 'number') return chosen;
  const { sub, rest, command } = chosen;
  const common = { server: { type: 'string' }, 'admin-token': { type: 'string' }, json: { type: 'boolean', default: false } } as const;
  try {
    if (sub === 'create') {
      let values;
      let body: Record<string, unknown>;
      try {
        ({ values } = parseArgs({
          args: rest,
          options: { ...common, seed: { type: 'string' }, wire: { type: 'string' }, name: { type: 'string' }, start: { type: 'string' }, ttl: { type: 'string' } },
          strict: true,
          allowPositionals: false,
        }));
        const seed = values.seed === undefined ? undefined : Number(values.seed);
        if (seed !== undefined && !(Number.isInteger(seed) && seed >= 0 && seed <= MAX_SEED)) throw new Error(`--seed must be a whole number from 0 to ${MAX_SEED}, got "${values.seed}"`);
        const wire = wireOption(values.wire);
        body = {
          ...(values.name !== undefined && { name: values.name }),
          ...(seed !== undefined && { seed }),
          ...(wire !== undefined && { wire }),
          ...(values.start !== undefined && { start: values.start }),
          ...(values.ttl !== undefined && { ttl: values.ttl }),
        };
      } catch (error) {
        return usageError(out, usageMessage(error as Error, command), command);
      }
      const server = values.server ?? env.VOXSIM_URL ?? DEFAULT_SERVER;
      const made = (await request('create', server, 'POST', '/__sim/sandboxes', values['admin-token'] ?? env.VOXSIM_ADMIN_TOKEN, body)) as SandboxRecord;
      out.log(values.json ? JSON.stringify(made, null, 2) : made.api_key);
      return 0;
    }
    if (sub === 'list') {
      let values;
      try {
        ({ values } = parseArgs({ args: rest, options: common, strict: true, allowPositionals: false }));
      } catch (error) {
        return usageError(out, usageMessage(error as Error, command), command);
      }
      const server = values.server ?? env.VOXSIM_URL ?? DEFAULT_SERVER;
      const { data } = (await request('list', server, 'GET', '/__sim/sandboxes', values['admin-token'] ?? env.VOXSIM_ADMIN_TOKEN)) as { data: SandboxRecord[] };
      if (values.json) out.log(JSON.stringify(data, null, 2));
      else out.log(table(data));
      return 0;
    }
    let values;
    let positionals: string[];
    try {
      ({ values, positionals } = parseArgs({ args: rest, options: { ...common, key: { type: 'string' } }, strict: true, allowPositionals: true }));
      if (positionals.length > 1) throw new Error(`give one sandbox id, got ${positionals.length}`);
      if ((positionals[0] === undefined) === (values.key === undefined)) throw new Error('give the sandbox id (with the admin token) or --key KEY (the sandbox\'s own key)');
    } catch (error) {
      return usageError(out, usageMessage(error as Error, command), command);
    }
    const server = values.server ?? env.VOXSIM_URL ?? DEFAULT_SERVER;
    // With its own key a sandbox ends itself (/__sim/sandbox); by id it is the admin's.
    const id = positionals[0];
    const done = (
      id === undefined
        ? await request('delete', server, 'DELETE', '/__sim/sandbox', values.key)
        : await request('delete', server, 'DELETE', `/__sim/sandboxes/${encodeURIComponent(id)}`, values['admin-token'] ?? env.VOXSIM_ADMIN_TOKEN)
    ) as { id: string };
    out.log(values.json ? JSON.stringify(done, null, 2) : `deleted ${done.id}`);
    return 0;
  } catch (error) {
    if (!(error instanceof SandboxRequestError)) throw error;
    out.error(error.message);
    return EXIT_USAGE;
  }
}

/** The sandboxes as an aligned table: id, name, key, virtual time, wire, expiry; a line saying none when empty. */
function table(rows: SandboxRecord[]): string {
  if (rows.length === 0) return 'no sandboxes';
  const cells = [['ID', 'NAME', 'KEY', 'NOW', 'WIRE', 'EXPIRES'], ...rows.map((r) => [r.id, r.name ?? '-', r.api_key, r.now, r.wire, r.expires_at])];
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  return cells.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
}
