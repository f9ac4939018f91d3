/**
 * `voxsim events`: follows a server's event stream, one readable line per event (or raw
 * JSON lines), until Ctrl-C or the server stops.
 */
import { SLOW_CONSUMER_CLOSE_CODE } from '../adapters/express.js';
import { openEventStream } from '../adapters/events-client.js';
import { formatEventLine } from '../event-lines.js';
import { DEFAULT_URL } from './commands.js';
import { parseFlags, usageError, usageMessage } from './help.js';

/** `voxsim events` (its `--help` is the main's): reads its flags (and the environment), then follows the stream; resolves to the exit code. */
export function eventsCommand(args: string[], out: Pick<Console, 'log' | 'error'>): number | Promise<number> {
  let options: EventsOptions;
  try {
    options = parseEventsArgs(args, process.env, process.stdout.isTTY === true);
  } catch (error) {
    return usageError(out, usageMessage(error as Error, 'events'), 'events');
  }
  return followEvents(options, out);
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
  const { values } = parseFlags('events', args);
  const url = values.url ?? env.VOXSIM_URL ?? DEFAULT_URL;
  if (!/^https?:\/\/[^/]/.test(url)) throw new Error(`--url must be the server's API base URL, such as http://127.0.0.1:4010/api, got "${url}"`);
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
    url: url.replace(/\/+$/, ''),
    types: values.type.flatMap((t) => t.split(',')).map((t) => t.trim()).filter((t) => t.length > 0),
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
