/**
 * `GET {base}/__sim/events` over WebSocket: one JSON message per `sim.events` event,
 * filtered by `type` prefixes and `account_id`, replaying the journal after `since`
 * first (paced by the consumer, so a replay of the whole journal fits any limit). The
 * admin token guards it like every control route (the `Authorization` header, or
 * `?token=` for browsers, whose WebSocket cannot send headers). A consumer that does not
 * keep up with live events is closed with 1013 once more than `bufferLimit` bytes wait
 * for it, so it never grows the server's memory without bound.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { COMMON_MESSAGES, SimError } from '../core/errors.js';
import { toWire, type SimEvent, type Subscription } from '../core/events.js';
import { formatControlTime } from '../core/time.js';
import type { Simulator } from '../simulator.js';

/** Bytes that may wait for one consumer before it is dropped (4 MiB). */
export const DEFAULT_STREAM_BUFFER_LIMIT = 4 * 1024 * 1024;
/** The close code of a dropped slow consumer ("Try Again Later"). */
export const SLOW_CONSUMER_CLOSE_CODE = 1013;

export interface EventStreamOptions {
  /** Path prefix of the API, e.g. `/api` (normalised). */
  basePath: string;
  /** Bytes that may wait for one consumer before it is closed with 1013. Default 4 MiB. */
  bufferLimit?: number;
  /** Told when a consumer is dropped as too slow: the close code, the reason and how many events it was sent. */
  onDrop?: (drop: { code: number; reason: string; sent: number }) => void;
}

/** What hosts several simulators (a `SandboxHost`): the one an `Authorization` value may watch, if any. */
export interface StreamSource {
  controlled(authorization: string | undefined): Simulator | undefined;
}

export interface EventStream {
  /** How many consumers are connected. */
  readonly clients: number;
  /** Closes every consumer (1001, going away) and stops accepting new ones. */
  close(): void;
}

/** The first message of every connection: where the stream starts and what it replayed. */
export interface StreamHello {
  type: 'stream.hello';
  at: string;
  at_ms: number;
  data: {
    latest_seq: number;
    oldest_seq: number | null;
    since: number | null;
    replayed: number;
    missed: number;
    buffer_limit: number;
    filters: { type: string[]; account_id: number | null };
  };
}

/** Answers an upgrade request with a plain HTTP error in the control API's shape, and hangs up. */
function refuse(socket: Duplex, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  const reason = status === 401 ? 'Unauthorized' : status === 404 ? 'Not Found' : status === 422 ? 'Unprocessable Entity' : 'Bad Request';
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
}

/** The query of a request URL with repeated keys kept as arrays (`type=call.&type=lead.`). */
function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    query[key] = values.length === 1 ? values[0]! : values;
  }
  return query;
}

/**
 * Serves the event stream on `server`'s upgrade requests to `{basePath}/__sim/events`
 * (`basePath` from the server's root, a mount prefix included). Upgrades to other paths
 * are refused with 404 unless the server has other upgrade listeners (a host app's own
 * WebSockets), which then answer them.
 * @example const stream = attachEventStream(server, sim, { basePath: '/api' }); stream.close()
 */
export function attachEventStream(server: Server, source: Simulator | StreamSource, options: EventStreamOptions): EventStream {
  // A sandbox host (issue 35) streams the simulator the credentials control; a lone simulator, itself to its admin.
  const controlled = (authorization: string | undefined): Simulator | undefined =>
    'controlled' in source ? source.controlled(authorization) : source.isAdmin(authorization) ? source : undefined;
  const path = `${options.basePath}/__sim/events`;
  const bufferLimit = options.bufferLimit ?? DEFAULT_STREAM_BUFFER_LIMIT;
  // How much is handed to the socket at once; the rest waits for it to be written.
  const highWater = Math.min(Math.floor(bufferLimit / 2), 256 * 1024);
  const wss = new WebSocketServer({ noServer: true });

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://voxsim.invalid');
    if (url.pathname !== path) {
      // A host app's own upgrade listener on the same server answers its own paths: leave them to it.
      if (server.listenerCount('upgrade') > 1) return;
      return refuse(socket, 404, { message: COMMON_MESSAGES.routeNotFound(url.pathname) });
    }
    const query = queryOf(url);
    const token = typeof query.token === 'string' ? `Bearer ${query.token}` : undefined;
    const sim = controlled(request.headers.authorization) ?? controlled(token);
    if (!sim) return refuse(socket, 401, { message: COMMON_MESSAGES.unauthenticated });
    const { token: _token, ...filters } = query;
    try {
      sim.control.events.filters(filters);
    } catch (error) {
      if (error instanceof SimError) return refuse(socket, error.status, error.body);
      throw error;
    }
    wss.handleUpgrade(request, socket, head, (ws) => connect(ws, filters, sim));
  };

  const connect = (ws: WebSocket, filters: Record<string, string | string[]>, sim: Simulator) => {
    // The replay is sent as the consumer takes it: it holds the journal's own event objects
    // (10,000 at most), so a slow replay grows nothing; live events wait in `queue`, which
    // together with what the socket holds may not pass the limit.
    const replay: SimEvent[] = [];
    let cursor = 0;
    let live = false;
    const queue: string[] = [];
    let queued = 0;
    let waiting = false;
    let dropped = false;
    let sent = 0;
    let subscription: Subscription | undefined;

    const drop = () => {
      dropped = true;
      subscription?.stop();
      queue.length = 0;
      replay.length = 0;
      const reason = `Slow consumer: more than ${bufferLimit} bytes waiting`;
      ws.close(SLOW_CONSUMER_CLOSE_CODE, reason);
      options.onDrop?.({ code: SLOW_CONSUMER_CLOSE_CODE, reason, sent });
    };
    const next = (): string | undefined => {
      if (cursor < replay.length) return JSON.stringify(toWire(replay[cursor++]!));
      const text = queue.shift();
      if (text !== undefined) queued -= Buffer.byteLength(text);
      return text;
    };
    /** Hands messages to the socket until it holds `highWater` bytes, then waits for them to be written. */
    const pump = (): void => {
      waiting = false;
      if (dropped || ws.readyState !== ws.OPEN) return;
      for (let text = next(); text !== undefined; text = next()) {
        sent++;
        if (ws.bufferedAmount + Buffer.byteLength(text) >= highWater) {
          waiting = true;
          ws.send(text, () => pump());
          return;
        }
        ws.send(text);
      }
    };

    subscription = sim.control.events.subscribe(filters, (event) => {
      if (!live) {
        replay.push(event);
        return;
      }
      if (dropped) return;
      const text = JSON.stringify(toWire(event));
      queue.push(text);
      queued += Buffer.byteLength(text);
      if (queued + ws.bufferedAmount > bufferLimit) drop();
      else if (!waiting) pump();
    });
    live = true;
    const parsed = sim.control.events.filters(filters);
    const now = sim.clock.now();
    const hello: StreamHello = {
      type: 'stream.hello',
      at: formatControlTime(now),
      at_ms: now,
      data: {
        latest_seq: subscription.latestSeq,
        oldest_seq: subscription.oldestSeq,
        since: parsed.since ?? null,
        replayed: subscription.replayed,
        missed: subscription.missed,
        buffer_limit: bufferLimit,
        filters: { type: parsed.type ?? [], account_id: parsed.account_id ?? null },
      },
    };
    ws.send(JSON.stringify(hello));
    pump();
    ws.on('close', () => subscription?.stop());
    ws.on('error', () => subscription?.stop());
    // Consumers only listen; anything they send is ignored.
  };

  server.on('upgrade', onUpgrade);
  return {
    get clients() {
      return wss.clients.size;
    },
    close() {
      server.off('upgrade', onUpgrade);
      for (const client of wss.clients) client.close(1001, 'The server is shutting down');
      for (const client of wss.clients) client.terminate();
      wss.close();
    },
  };
}
