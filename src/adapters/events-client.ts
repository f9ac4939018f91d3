/**
 * A client of a server's event stream (`voxsim events`): connects to
 * `{url}/__sim/events` with the admin token as a header and hands over each message.
 */
import { WebSocket } from 'ws';
import type { WireEvent } from '../core/events.js';
import type { StreamHello } from './event-stream.js';

export interface EventStreamClientOptions {
  /** The API base URL, e.g. `http://127.0.0.1:4010/api`. */
  url: string;
  adminToken?: string | undefined;
  types?: string[] | undefined;
  accountId?: number | undefined;
  since?: number | undefined;
  onHello(hello: StreamHello): void;
  onEvent(event: WireEvent): void;
  /** The stream ended: the close code and reason, or the refusal of the server (`status`, its message). */
  onEnd(end: { code: number; reason: string; status?: number }): void;
}

/**
 * The WebSocket URL of a server's stream with the filters in its query.
 * @example streamUrl('http://127.0.0.1:4010/api', { types: ['call.'], since: 10 }) // 'ws://127.0.0.1:4010/api/__sim/events?type=call.&since=10'
 */
export function streamUrl(url: string, filters: { types?: string[] | undefined; accountId?: number | undefined; since?: number | undefined }): string {
  const base = new URL(url);
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new Error(`--url must be an http(s) URL, got "${url}"`);
  const ws = new URL(`${base.protocol === 'https:' ? 'wss:' : 'ws:'}//${base.host}${base.pathname.replace(/\/+$/, '')}/__sim/events`);
  for (const type of filters.types ?? []) ws.searchParams.append('type', type);
  if (filters.accountId !== undefined) ws.searchParams.set('account_id', String(filters.accountId));
  if (filters.since !== undefined) ws.searchParams.set('since', String(filters.since));
  return ws.toString();
}

/**
 * Opens the stream; answers a function that closes it.
 * @example const close = openEventStream({ url, onHello, onEvent: (e) => console.log(e.type), onEnd })
 */
export function openEventStream(options: EventStreamClientOptions): () => void {
  const socket = new WebSocket(streamUrl(options.url, options), {
    headers: options.adminToken ? { authorization: `Bearer ${options.adminToken}` } : {},
  });
  let ended = false;
  const end = (result: { code: number; reason: string; status?: number }) => {
    if (ended) return;
    ended = true;
    options.onEnd(result);
  };
  socket.on('message', (data) => {
    const message = JSON.parse(data.toString()) as WireEvent | StreamHello;
    if (message.type === 'stream.hello' && !('seq' in message)) options.onHello(message as StreamHello);
    else options.onEvent(message as WireEvent);
  });
  socket.on('unexpected-response', (_request, response) => {
    let body = '';
    response.on('data', (chunk: Buffer) => (body += chunk.toString()));
    response.on('end', () => {
      let reason = body;
      try {
        const parsed = JSON.parse(body) as { message?: string };
        reason = parsed.message ?? body;
      } catch {
        // Not JSON: the text as it came.
      }
      end({ code: 1006, reason, status: response.statusCode ?? 0 });
      socket.terminate();
    });
  });
  socket.on('close', (code, reason) => end({ code, reason: reason.toString() }));
  socket.on('error', (error) => end({ code: 1006, reason: error.message }));
  return () => socket.close(1000);
}
