/**
 * The recording proxy (`voxsim record`, `recordHar`): a local HTTP server that sends every
 * request under its base path to the upstream unchanged (method, path below the base path,
 * query, headers less hop-by-hop ones, body bytes) and answers with the upstream's answer
 * unchanged (status, headers, body bytes), writing each exchange to a HAR file (or keeping
 * it in memory). An upstream that cannot be reached is a 502 in shape A naming it, recorded
 * like any answer. `{base}/__record` tells what is being recorded (behind the admin token
 * when one is set); it is neither forwarded nor recorded.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { realNow } from '../core/clock.js';
import { normaliseBasePath } from '../core/http.js';
import { HarWriter, type RecordedExchange } from './har-writer.js';
import type { HarLog } from './har.js';
import { parseUpstream } from './session.js';

/** Headers of one connection, not of the message (RFC 9110 7.6.1), and those the proxy sets itself. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host']);

export interface RecordOptions {
  /** The platform's base URL, e.g. `https://api.example.com/api`. */
  upstream: string;
  /** Port to listen on (default 0: a free one). */
  port?: number;
  /** Address to bind (default 127.0.0.1). */
  host?: string;
  /** The path clients use under the proxy (default `/api`); what follows it is appended to the upstream URL. */
  basePath?: string;
  /** The HAR file, each exchange appended (a valid HAR after each one); without it the log is kept in memory only. */
  out?: string;
  /** Required as `Authorization: Bearer TOKEN` on `{base}/__record`. */
  adminToken?: string;
  /** voxsim's version, for the HAR's creator. */
  version?: string;
  /** Called after each exchange is recorded. */
  onExchange?: (exchange: { method: string; url: string; status: number; entries: number }) => void;
  /** How long the upstream may take to answer, in real ms (default 120,000). */
  timeoutMs?: number;
}

export interface RecordingProxy {
  /** Where to point the client, e.g. `http://127.0.0.1:4011/api`. */
  url: string;
  /** The HAR so far. */
  har(): HarLog;
  /** Exchanges recorded. */
  readonly entries: number;
  close(): Promise<void>;
}

/** The proxy's own texts (shape A). */
export const RECORD_MESSAGES = {
  unreachable: (upstream: string, why: string) => `The upstream ${upstream} cannot be reached (${why}).`,
  outside: (base: string) => `Only requests under ${base || '/'} are recorded and forwarded.`,
  unauthenticated: 'Unauthenticated.',
} as const;

/** Reads a request's body whole. */
function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

/** The raw header pairs of a message, as sent (names as written, repeats kept). */
function pairs(raw: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i]!, raw[i + 1]!]);
  return out;
}

interface Answer {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: Buffer;
}

/** Sends one request to the upstream; resolves with its answer, rejects when it cannot be reached. */
function forward(target: URL, method: string, headers: [string, string][], body: Buffer, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const outgoing: string[] = [];
    for (const [name, value] of headers) outgoing.push(name, value);
    outgoing.push('Host', target.host);
    const req = send(target, { method, headers: outgoing, timeout: timeoutMs });
    req.on('timeout', () => req.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
    req.on('response', (res) => {
      readAll(res).then(
        (buffer) => resolve({ status: res.statusCode ?? 502, statusText: res.statusMessage ?? '', headers: pairs(res.rawHeaders), body: buffer }),
        reject,
      );
    });
    req.end(body);
  });
}

/**
 * Starts a recording proxy; resolves once it listens.
 * @example const proxy = await recordHar({ upstream: 'https://api.example.com/api', out: 'session.har' }); // point the client at proxy.url
 */
export function recordHar(options: RecordOptions): Promise<RecordingProxy> {
  const upstream = parseUpstream(options.upstream);
  const base = normaliseBasePath(options.basePath);
  const timeoutMs = options.timeoutMs ?? 120_000;
  const writer = new HarWriter(options.out ?? '', options.version ?? '0', { _voxsim: { upstream: upstream.text, base_path: upstream.url.pathname } });
  const sendJson = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const incoming = new URL(req.url ?? '/', 'http://proxy.invalid');
    const path = incoming.pathname;
    const under = base === '' || path === base || path.startsWith(`${base}/`);
    if (!under) {
      await readAll(req);
      return sendJson(res, 404, { message: RECORD_MESSAGES.outside(base) });
    }
    const rest = path.slice(base.length);
    if (rest === '/__record') {
      await readAll(req);
      if (options.adminToken !== undefined && req.headers.authorization !== `Bearer ${options.adminToken}`) return sendJson(res, 401, { message: RECORD_MESSAGES.unauthenticated });
      return sendJson(res, 200, { upstream: upstream.text, file: options.out ?? null, entries: writer.count });
    }
    const target = new URL(upstream.url);
    target.pathname = `${upstream.url.pathname}${rest}`;
    target.search = incoming.search;
    const headers = pairs(req.rawHeaders).filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase()));
    const startedAt = realNow();
    const body = await readAll(req);
    let answer: Answer;
    try {
      answer = await forward(target, req.method ?? 'GET', headers, body, timeoutMs);
    } catch (error) {
      const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      const text = Buffer.from(JSON.stringify({ message: RECORD_MESSAGES.unreachable(upstream.text, why) }));
      answer = { status: 502, statusText: 'Bad Gateway', headers: [['Content-Type', 'application/json'], ['Content-Length', String(text.length)]], body: text };
    }
    const exchange: RecordedExchange = {
      startedAt,
      durationMs: realNow() - startedAt,
      method: req.method ?? 'GET',
      url: target.href,
      httpVersion: `HTTP/${req.httpVersion}`,
      requestHeaders: headers,
      requestBody: body.length === 0 ? null : body,
      status: answer.status,
      statusText: answer.statusText,
      responseHeaders: answer.headers,
      responseBody: answer.body,
    };
    // Recorded before the client has the answer: the file holds every exchange a client has seen.
    writer.add(exchange);
    options.onExchange?.({ method: exchange.method, url: target.href, status: answer.status, entries: writer.count });
    const out: string[] = [];
    for (const [name, value] of answer.headers) if (!HOP_BY_HOP.has(name.toLowerCase()) && name.toLowerCase() !== 'content-length') out.push(name, value);
    out.push('Content-Length', String(answer.body.length));
    res.writeHead(answer.status, answer.statusText, out);
    res.end(answer.body);
  };
  // The file exists (an empty log) before the first client comes, and a path that cannot be written fails now.
  writer.write();
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 502, { message: RECORD_MESSAGES.unreachable(upstream.text, (error as Error).message) });
      else res.destroy();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      const host = (options.host ?? '127.0.0.1').includes(':') ? `[${options.host}]` : (options.host ?? '127.0.0.1');
      resolve({
        url: `http://${host}:${port}${base}`,
        har: () => writer.log(),
        get entries() {
          return writer.count;
        },
        close: () =>
          new Promise<void>((done) => {
            server.close(() => {
              writer.close();
              done();
            });
            server.closeAllConnections();
          }),
      });
    });
  });
}

/**
 * Whether the upstream answers at all (any HTTP status will do): undefined when it does,
 * else why not (`ECONNREFUSED`, `ENOTFOUND`, `no answer within 5000 ms`).
 * @example await probeUpstream(new URL('https://api.example.com/api')) // undefined
 */
export function probeUpstream(url: URL, timeoutMs = 5000): Promise<string | undefined> {
  return new Promise((resolve) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, { method: 'GET', timeout: timeoutMs });
    req.on('timeout', () => req.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: `no answer within ${timeoutMs} ms` })));
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.on('response', (res) => {
      res.resume();
      resolve(undefined);
    });
    req.end();
  });
}
