/**
 * A real `ws` client of a server's event stream for the tests: it collects every
 * message, and waits (bounded) for the messages a test expects. Nothing sleeps.
 */
import { WebSocket } from 'ws';
import { within } from './processes.js';

/** One message of the stream: the hello or an event. */
export interface Message {
  seq?: number;
  type: string;
  at: string;
  at_ms: number;
  data: Record<string, any>;
}

export interface StreamClient {
  ws: WebSocket;
  /** Every message so far, in order. */
  messages: Message[];
  /** The events so far (the messages after the hello). */
  events(): Message[];
  /** Waits until `done(messages)` holds. */
  until(done: (messages: Message[]) => boolean, what: string, ms?: number): Promise<Message[]>;
  /** Resolves with the close code and reason. */
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

/** The stream URL of a server's API base URL with a query. */
export function streamUrl(api: string, query = ''): string {
  return `${api.replace(/^http/, 'ws')}/__sim/events${query ? `?${query}` : ''}`;
}

const clients = new Set<WebSocket>();

/** Connects and waits for the hello. */
export async function connect(api: string, query = '', headers: Record<string, string> = {}): Promise<StreamClient> {
  const ws = new WebSocket(streamUrl(api, query), { headers });
  clients.add(ws);
  const messages: Message[] = [];
  const waiters = new Set<() => void>();
  ws.on('message', (data) => {
    messages.push(JSON.parse(data.toString()) as Message);
    for (const wake of waiters) wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on('close', (code, reason) => {
      clients.delete(ws);
      resolve({ code, reason: reason.toString() });
    });
  });
  const until = (done: (m: Message[]) => boolean, what: string, ms?: number) =>
    within(
      new Promise<Message[]>((resolve) => {
        const check = () => {
          if (!done(messages)) return;
          waiters.delete(check);
          resolve(messages);
        };
        waiters.add(check);
        check();
      }),
      what,
      ms,
    );
  const client: StreamClient = {
    ws,
    messages,
    events: () => messages.filter((m) => m.type !== 'stream.hello'),
    until,
    closed,
    close: () => ws.close(1000),
  };
  await within(
    new Promise<void>((resolve, reject) => {
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`refused with ${res.statusCode}`)));
      void until((m) => m.length > 0, 'the hello').then(() => resolve());
    }),
    'the stream hello',
  );
  // The replay follows the hello, which counts it.
  const replayed = Number(messages[0]?.data.replayed ?? 0);
  await until((m) => m.length >= 1 + replayed, `the ${replayed} replayed events`);
  return client;
}

/** Connects expecting a refusal: the HTTP status and JSON body of the answer. */
export function refusal(api: string, query = '', headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const ws = new WebSocket(streamUrl(api, query), { headers });
  // Ending the refused handshake reports an error; it is expected here.
  ws.on('error', () => undefined);
  return within(
    new Promise((resolve, reject) => {
      ws.once('open', () => {
        ws.terminate();
        reject(new Error('the stream was opened, not refused'));
      });
      ws.once('unexpected-response', (_req, res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => {
          ws.terminate();
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
        });
      });
    }),
    'the refusal',
  );
}

/** Closes every client still open (a failed test leaves nothing behind). */
export function closeAllClients(): void {
  for (const ws of clients) ws.terminate();
  clients.clear();
}
