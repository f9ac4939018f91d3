/**
 * `voxsim sandbox create|list|delete` (issue 35): a running server's sandboxes from the
 * command line. `create` prints the new sandbox's key alone (for
 * `export FAMULOR_API_KEY=$(voxsim sandbox create …)`), or the whole sandbox with `--json`.
 * A refusal or a server it cannot reach is one line on stderr and exit 2. The server is
 * `--url`, as `voxsim events` names it (`--server`, its name before, still works).
 */
import { MAX_SEED } from '../core/random.js';
import { DEFAULT_URL } from './commands.js';
import { EXIT_USAGE, parseFlags, usageError, usageMessage } from './help.js';
import { wireOption } from './options.js';

type Out = Pick<Console, 'log' | 'error'>;

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

/** The server a sandbox command talks to: its `--url` (or `--server`), else `$VOXSIM_URL`, else `voxsim serve`'s default. */
const serverOf = (url: string | undefined, env: NodeJS.ProcessEnv) => url ?? env.VOXSIM_URL ?? DEFAULT_URL;

/** Runs a sandbox command's request; a refusal or a server it cannot reach is its one line on stderr and exit 2. */
async function answering(out: Out, send: () => Promise<void>): Promise<number> {
  try {
    await send();
    return 0;
  } catch (error) {
    if (!(error instanceof SandboxRequestError)) throw error;
    out.error(error.message);
    return EXIT_USAGE;
  }
}

/** `voxsim sandbox create` (its `--help` is the main's): prints the new sandbox's key, or the whole sandbox with `--json`. */
export async function sandboxCreateCommand(args: string[], out: Out, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const command = 'sandbox create';
  let values;
  let body: Record<string, unknown>;
  try {
    ({ values } = parseFlags(command, args));
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
  const { url, json } = values;
  const token = values['admin-token'] ?? env.VOXSIM_ADMIN_TOKEN;
  return answering(out, async () => {
    const made = (await request('create', serverOf(url, env), 'POST', '/__sim/sandboxes', token, body)) as SandboxRecord;
    out.log(json ? JSON.stringify(made, null, 2) : made.api_key);
  });
}

/** `voxsim sandbox list`: the server's sandboxes as a table, or as JSON with `--json` (the admin's). */
export async function sandboxListCommand(args: string[], out: Out, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const command = 'sandbox list';
  let values;
  try {
    ({ values } = parseFlags(command, args));
  } catch (error) {
    return usageError(out, usageMessage(error as Error, command), command);
  }
  const { url, json } = values;
  const token = values['admin-token'] ?? env.VOXSIM_ADMIN_TOKEN;
  return answering(out, async () => {
    const { data } = (await request('list', serverOf(url, env), 'GET', '/__sim/sandboxes', token)) as { data: SandboxRecord[] };
    out.log(json ? JSON.stringify(data, null, 2) : table(data));
  });
}

/** `voxsim sandbox delete ID | --key KEY`: by id it is the admin's; with its own key a sandbox ends itself. */
export async function sandboxDeleteCommand(args: string[], out: Out, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const command = 'sandbox delete';
  let values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseFlags(command, args));
    if (positionals.length > 1) throw new Error(`give one sandbox id, got ${positionals.length}`);
    if ((positionals[0] === undefined) === (values.key === undefined)) throw new Error("give the sandbox id (with the admin token) or --key KEY (the sandbox's own key)");
  } catch (error) {
    return usageError(out, usageMessage(error as Error, command), command);
  }
  const { url, json, key } = values;
  const token = values['admin-token'] ?? env.VOXSIM_ADMIN_TOKEN;
  const id = positionals[0];
  return answering(out, async () => {
    const server = serverOf(url, env);
    const done = (
      id === undefined
        ? await request('delete', server, 'DELETE', '/__sim/sandbox', key)
        : await request('delete', server, 'DELETE', `/__sim/sandboxes/${encodeURIComponent(id)}`, token)
    ) as { id: string };
    out.log(json ? JSON.stringify(done, null, 2) : `deleted ${done.id}`);
  });
}

/** The sandboxes as an aligned table: id, name, key, virtual time, wire, expiry; a line saying none when empty. */
function table(rows: SandboxRecord[]): string {
  if (rows.length === 0) return 'no sandboxes';
  const cells = [['ID', 'NAME', 'KEY', 'NOW', 'WIRE', 'EXPIRES'], ...rows.map((r) => [r.id, r.name ?? '-', r.api_key, r.now, r.wire, r.expires_at])];
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  return cells.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
}
