/**
 * `voxsim/express`: the simulator as Express 5 middleware (`middleware`) and as the
 * standalone server's app (`createApp`). The body is carried as raw text and parsed in
 * the core, so malformed JSON gets the same answer as under MSW. The public types are
 * Node's and this module's own, so consumers need no `@types/express`.
 */
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import express, { type Request, type RequestHandler, type Response } from 'express';
import { afterRealDelay } from '../core/clock.js';
import { COMMON_MESSAGES, errorMessageOf } from '../core/errors.js';
import { foldQuery, normaliseBasePath, type SimRequest } from '../core/http.js';
import { answerText } from '../core/json.js';
import { FileBody } from '../core/files.js';
import { isMultipart } from '../core/multipart.js';
import type { Simulator } from '../simulator.js';
import { DASHBOARD_CSP, dashboardPage } from './dashboard.js';

// Part of `voxsim/express` (and what cli.ts imports it from): it lives in core/http.ts, which the recording commands share.
export { normaliseBasePath };
export { attachEventStream, DEFAULT_STREAM_BUFFER_LIMIT, SLOW_CONSUMER_CLOSE_CODE, type EventStream, type EventStreamOptions, type StreamSource } from './event-stream.js';
// One server, many simulators (issue 35): `createApp(new SandboxHost(sim, options))` serves sandboxes beside `sim`.
export {
  SandboxHost,
  DEFAULT_MAX_SANDBOXES,
  DEFAULT_SANDBOX_TTL_MS,
  SANDBOX_MESSAGES,
  SANDBOX_TTL_RANGE,
  SHARD_NAME,
  type SandboxAnswer,
  type SandboxHostOptions,
  type SandboxInput,
} from '../sandboxes/host.js';

/** What the per-request log sees: `error` is the message of a 4xx/5xx answer. */
export interface RequestLogEntry {
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  error?: string;
}

export interface AppOptions {
  /** Path prefix of the API (and of `/__sim`), e.g. `/api`. Default `/api`. */
  basePath?: string;
  /** Largest accepted request body (bytes, or text such as `64kb`); a larger one is 413. Default `5mb`. */
  bodyLimit?: string | number;
  /** Largest accepted `multipart/form-data` body (an upload); a larger one is 413. Default 21 MiB. */
  uploadLimit?: string | number;
  /** Largest body of `PUT /__sim/state` (a whole snapshot): bytes or text such as `256mb`. Default `256mb`. */
  stateBodyLimit?: string | number;
  /**
   * Runs after the core answered and before the answer is sent (the state file writes
   * the request's changes there, so that what a client was told survives a kill); the
   * answer waits for a promise it returns. When that promise rejects, the answer is 503
   * with the rejection's message instead, in the route family's shape (`sim.unavailable`).
   * It is given the request, so that a server of many simulators waits for the one that
   * answered (`SandboxHost.saved`).
   */
  beforeAnswer?: (request: SimRequest) => void | Promise<void>;
  /** Sees every answered request (structured request logs), with the error message of a failure. */
  onRequest?: (entry: RequestLogEntry) => void;
  /** How many bytes of a refused body are still read and dropped before the connection closes. Default `DISCARD_LIMIT` (64 MiB). */
  discardLimit?: number;
  /** How long (ms) a refused body is still read and dropped before the connection closes. Default `DISCARD_TIMEOUT_MS` (10 s). */
  discardTimeoutMs?: number;
}

/** How long and how much of a refused request is read and dropped (`AppOptions.discardLimit`, `discardTimeoutMs`). */
export type DiscardBounds = Pick<AppOptions, 'discardLimit' | 'discardTimeoutMs'>;

/** Largest request body the server reads: 5 MiB (`AppOptions.bodyLimit`). */
export const DEFAULT_BODY_LIMIT = 5 * 1024 * 1024;
/**
 * Largest upload body: a document file may hold 20,971,520 bytes (live-platform C.1),
 * and the form around it needs room, so a file one byte over the limit still reaches
 * the core and gets its 422 on `file`.
 */
export const DEFAULT_UPLOAD_LIMIT = 21 * 1024 * 1024;
/**
 * Largest body of `PUT /__sim/state`: 256 MiB (`AppOptions.stateBodyLimit`). A snapshot
 * of 100k leads and 220k calls is about 220 MB; a JavaScript string holds at most ~512 MB.
 */
export const DEFAULT_STATE_BODY_LIMIT = 256 * 1024 * 1024;
/** Largest request line plus headers: 16 KiB, Node's own default, set explicitly so a `--max-http-header-size` does not move it. */
export const MAX_HEADER_BYTES = 16 * 1024;
/**
 * How much of a refused request the server still reads and drops before it closes the
 * connection: 64 MiB past the refusal *(ours)*. A client writes its whole body before it
 * reads the answer (Node's fetch, Python's requests); closing while it writes resets the
 * connection, and the client then sees `EPIPE` or `ECONNRESET` instead of the 413.
 */
export const DISCARD_LIMIT = 64 * 1024 * 1024;
/** How long the server keeps reading and dropping a refused request before it closes the connection: 10 s *(ours)*. */
export const DISCARD_TIMEOUT_MS = 10_000;
/** Set on a request whose client waits for `100 Continue` before it sends the body (`createHttpServer`). */
const AWAITING_CONTINUE = Symbol('voxsim.awaitingContinue');

/**
 * Texts of the answers the adapter gives itself, before a request reaches the core: a body
 * it cannot read in the route family's shape (`Simulator.refusal`), a request line, headers
 * or a request it cannot parse in shape A (no route is known yet). Divergence: the
 * platform's own texts for these are not shown in the specification.
 */
export const ADAPTER_MESSAGES = {
  bodyTooLarge: (limit: number) => `The request body may not be larger than ${formatBytes(limit)}.`,
  headersTooLarge: (limit: number) => `The request URL and headers may not be larger than ${formatBytes(limit)}.`,
  unsupportedCharset: (charset: string) => `The request body's charset "${charset}" is not supported; send UTF-8.`,
  unsupportedEncoding: (encoding: string) => `The request body's content encoding "${encoding}" is not supported.`,
  unreadableBody: 'The request body could not be read.',
  malformedRequest: 'Malformed HTTP request.',
  requestTimeout: 'The request was not received in time.',
} as const;

/** `5242880` -> `5 MB`, `16384` -> `16 KB`, else bytes. */
function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}

/**
 * What the middleware answers requests with: a simulator, or a host of several (a
 * `SandboxHost`, issue 35, which hands each request to the simulator its key names).
 */
export type Answerer = Pick<Simulator, 'handle' | 'refusal' | 'unavailable'>;

/** The Node request as the middleware reads it (an Express request is one). */
export type MiddlewareRequest = IncomingMessage;
/** The Node response as the middleware writes it (an Express response is one). */
export type MiddlewareResponse = ServerResponse;
/** Express's `next`: called for requests outside the base path, or with a failure that is not the body's. */
export type MiddlewareNext = (error?: unknown) => void;

/**
 * `voxsim/express` middleware: an Express request handler. Its types are Node's own, so a
 * consumer needs no `@types/express`; Express's `app.use()` takes it as it is.
 */
export interface VoxsimMiddleware {
  (req: MiddlewareRequest, res: MiddlewareResponse, next: MiddlewareNext): void;
}

/** The standalone app of `createApp`: a Node request listener that can listen. */
export interface VoxsimApp {
  (req: MiddlewareRequest, res: MiddlewareResponse, next?: MiddlewareNext): void;
  /** Listens like `http.Server#listen`; `callback` runs once it listens. */
  listen(port?: number, hostname?: string, callback?: () => void): Server;
}

/** What Express and body-parser put on a request; read structurally, so no Express types leak out. */
type ExpressRequest = Request & { body?: unknown };

/**
 * The request body as text for the core: the raw text read here, or, when a parser of the
 * host app (`express.json()`, `express.text()`, `express.raw()`, `express.urlencoded()`)
 * has already consumed the stream, what that parser left, as the text it was read from:
 * text as is, bytes as UTF-8, a form as form text, any other parsed value (a JSON
 * parser's, `null` of `strict: false` included) as JSON. So the core answers the same
 * with a host parser as without (STYLE: the core parses and validates every body itself):
 * a form sent to a JSON route is malformed JSON either way. The one value it cannot tell
 * apart: a top-level JSON string that `express.json({ strict: false })` parsed reaches the
 * core as that string's text.
 */
function bodyText(req: ExpressRequest): string | null {
  const body = req.body;
  // body-parser 2 leaves `req.body` undefined when no parser read the body.
  if (body === undefined) return null;
  if (typeof body === 'string') return body;
  if (Buffer.isBuffer(body)) return body.toString('utf8');
  if (isFormEncoded(req.headers['content-type']) && typeof body === 'object' && body !== null) return formText(body as Record<string, unknown>);
  return JSON.stringify(body);
}

function isFormEncoded(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.split(';')[0]!.trim().toLowerCase() === 'application/x-www-form-urlencoded';
}

/** A parsed form back as form text: `a=1&b[c]=2&d[0]=3` (nested values in the bracket form `qs` reads). */
function formText(fields: Record<string, unknown>): string {
  const pairs = new URLSearchParams();
  const add = (key: string, value: unknown) => {
    if (value !== null && typeof value === 'object') for (const [inner, v] of Object.entries(value)) add(`${key}[${inner}]`, v);
    else pairs.append(key, String(value));
  };
  for (const [key, value] of Object.entries(fields)) add(key, value);
  return pairs.toString();
}

/** An upload's bytes go to the core as bytes (multipart.ts reads them); any other body as text. */
function requestBody(req: ExpressRequest, upload: boolean): Pick<SimRequest, 'body' | 'bytes'> {
  const body = req.body;
  if (upload && Buffer.isBuffer(body)) return { body: null, bytes: new Uint8Array(body.buffer, body.byteOffset, body.length) };
  return { body: bodyText(req) };
}

/**
 * The simulator as Express middleware answering every request under `basePath`, relative
 * to where it is mounted: `app.use(middleware(sim))` serves `/api/...`, `app.use('/sim',
 * middleware(sim, { basePath: '' }))` serves `/sim/...`. Requests outside the base path go
 * on to the host's next handler. It works before or after the host's body parsers: a body
 * they have already read is taken from `req.body` *(ours)*.
 * @example
 * const app = express()
 * app.use(express.json())
 * app.use(middleware(sim, { basePath: '/api' }))
 * app.get('/health', (req, res) => res.send('ok'))
 */
export function middleware(sim: Answerer, options: AppOptions = {}): VoxsimMiddleware {
  const basePath = normaliseBasePath(options.basePath);
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const uploadLimit = options.uploadLimit ?? DEFAULT_UPLOAD_LIMIT;
  const stateBodyLimit = options.stateBodyLimit ?? DEFAULT_STATE_BODY_LIMIT;
  const uploads = (req: IncomingMessage) => isMultipart(req.headers['content-type']);
  // Uploads are read as bytes (their size counts bytes, and a binary file is no text), everything else as text;
  // a parser skips a stream a host parser has already consumed (body-parser then passes the request on untouched).
  // Each reader with its limit in bytes, worked out once.
  const reader = (parse: typeof express.text, readLimit: string | number) => ({ parse: parse({ type: () => true, limit: readLimit }), bytes: bytesOf(readLimit) });
  const form = reader(express.raw, uploadLimit);
  const text = reader(express.text, limit);
  // A whole snapshot may be far larger than any API body: only its control route reads that much.
  const state = reader(express.text, stateBodyLimit);
  const inBase = (path: string) => basePath === '' || path === basePath || path.startsWith(`${basePath}/`);
  // The dashboard's and the stream's paths, matched as Express routes match: case-insensitively, a trailing slash allowed.
  const uiPath = `${basePath}/__sim/ui`.toLowerCase();
  const eventsPath = `${basePath}/__sim/events`.toLowerCase();
  const isPath = (path: string, wanted: string) => {
    const lower = path.toLowerCase();
    return lower === wanted || lower === `${wanted}/`;
  };

  const logAnswer = (req: Request, started: number, status: number, body: unknown) => {
    if (!options.onRequest) return;
    const error = errorMessageOf(status, body);
    options.onRequest({
      method: req.method,
      path: `${req.baseUrl}${req.path}`,
      status,
      duration_ms: Math.round((performance.now() - started) * 10) / 10,
      ...(error !== null && { error }),
    });
  };
  // Body-reading failures (too large, bad encoding) are answered in the route family's shape; nothing reached the core, so nothing changed.
  const refuseBody = (error: unknown, req: Request, res: Response, simPath: string, started: number, next: MiddlewareNext) => {
    // An answer already on its way cannot be replaced (Express closes the connection); another failure is the host's.
    if (res.headersSent || !isBodyReadError(error)) return next(error);
    const { status, message, code } = bodyReadAnswer(error);
    const { body } = sim.refusal({ method: req.method, path: simPath }, status, message, code);
    writeJson(res, status, JSON.stringify(body));
    logAnswer(req, started, status, body);
  };
  const answer = async (req: Request, res: Response, simPath: string, started: number, next: MiddlewareNext) => {
    try {
      const original = req.originalUrl;
      const at = original.indexOf('?');
      // A fragment is no part of the query (as `new URL` reads it).
      const end = at < 0 ? -1 : original.indexOf('#', at);
      const upload = uploads(req);
      const simRequest: SimRequest = {
        method: req.method,
        path: simPath,
        // Read from the URL, not `req.query`: the host's query parser setting must not change what the core sees.
        query: at < 0 ? {} : foldQuery(new URLSearchParams(original.slice(at + 1, end < 0 ? undefined : end))),
        headers: req.headers,
        ...requestBody(req as ExpressRequest, upload),
        url: `${req.protocol}://${req.get('host') ?? 'localhost'}${original}`,
        encoded: true,
      };
      let response = await sim.handle(simRequest);
      const saved = options.beforeAnswer?.(simRequest);
      if (saved) response = await saved.then(() => response, (error: unknown) => sim.unavailable(simRequest, (error as Error).message));
      if (response.body instanceof FileBody) writeFile(res, response.status, response.body, response.headers);
      else writeJson(res, response.status, answerText(response.body), response.headers);
      logAnswer(req, started, response.status, response.body);
    } catch (failure) {
      next(failure);
    }
  };
  // A plain function rather than an Express router: a request passes one function, not a stack of layers.
  const handle = (req: Request, res: Response, next: MiddlewareNext) => {
    // When the request began, for the log line (a body-reading failure is answered before the core).
    const started = options.onRequest ? performance.now() : 0;
    const path = req.path;
    const get = req.method === 'GET' || req.method === 'HEAD';
    // The dashboard: one static page with no data in it; everything it shows comes from the control API and the stream.
    if (get && isPath(path, uiPath)) {
      writeAnswer(res, 200, 'text/html; charset=utf-8', dashboardPage(), { 'content-security-policy': DASHBOARD_CSP, 'cache-control': 'no-store' });
      return;
    }
    // The event stream answers WebSocket upgrades (event-stream.ts); a plain GET is told so.
    if (get && isPath(path, eventsPath)) {
      const at = `${req.baseUrl}${basePath}/__sim/events`;
      const message = `GET ${at} is a WebSocket stream: connect with a WebSocket client (ws://${req.headers.host ?? 'host'}${at}).`;
      writeJson(res, 426, JSON.stringify({ message }), { upgrade: 'websocket' });
      return;
    }
    // Outside the base path: the host's own routes (or its 404) answer.
    if (!inBase(path)) return next();
    const simPath = path.slice(basePath.length) || '/';
    // A request without a body (no length, no chunks) has nothing to read: the core gets it at once.
    if (!hasBody(req)) return void answer(req, res, simPath, started, next);
    const { parse, bytes } = req.method === 'PUT' && simPath === '/__sim/state' ? state : uploads(req) ? form : text;
    const awaiting = (req as ContinueRequest)[AWAITING_CONTINUE] === true;
    // A declared length over the limit is refused at once (body-parser would read and drop it all first). A client
    // waiting for 100 Continue has sent no body: it gets the 413 instead of the 100, and the connection closes (Node
    // keeps no connection whose client expected a 100 it did not get). Any other client is sending the body: it is
    // read and dropped, bounded, so the client's write completes and it reads the answer.
    if (bytes !== undefined && declaredOver(req, bytes)) {
      refuseBody({ type: 'entity.too.large', status: 413, limit: bytes }, req, res, simPath, started, next);
      if (!awaiting) discardBody(req, 0, options);
      return;
    }
    if (awaiting) res.writeContinue();
    // A body of no declared length (chunks), or encoded, is read to its limit and then dropped by body-parser: bounded here.
    if (bytes !== undefined && (req.headers['content-length'] === undefined || isEncoded(req))) discardBody(req, bytes, options);
    parse(req, res, (error?: unknown) => (error === undefined ? void answer(req, res, simPath, started, next) : refuseBody(error, req, res, simPath, started, next)));
  };
  return handle as unknown as VoxsimMiddleware;
}

/**
 * Writes an answer on the Node response itself rather than through Express's `res.send`,
 * which copies the text into a buffer, hashes it for an ETag and checks the request's
 * freshness against it: the answers are not cacheable, so they carry no ETag and a
 * conditional request gets the answer, not a 304 *(ours)*. The headers are the ones
 * `res.send` wrote, spelled as it spells them; a HEAD request gets them without the body
 * (Node's response leaves it out).
 */
function writeAnswer(res: ServerResponse, status: number, type: string, text: string, headers?: Record<string, string>): void {
  res.statusCode = status;
  if (headers) for (const name in headers) res.setHeader(name, headers[name]!);
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** A file's answer (live-platform H.7): its bytes and media type; a HEAD request gets the headers alone. */
function writeFile(res: ServerResponse, status: number, file: FileBody, headers?: Record<string, string>): void {
  res.statusCode = status;
  if (headers) for (const name in headers) res.setHeader(name, headers[name]!);
  res.setHeader('Content-Type', file.contentType);
  res.setHeader('Content-Length', file.bytes.length);
  res.end(file.bytes);
}

/** A JSON answer (`writeAnswer`). */
function writeJson(res: ServerResponse, status: number, text: string, headers?: Record<string, string>): void {
  writeAnswer(res, status, 'application/json; charset=utf-8', text, headers);
}

/** A body limit in bytes (`64kb` in 1024s, as body-parser reads it), or undefined for text it reads otherwise. */
function bytesOf(limit: string | number): number | undefined {
  if (typeof limit === 'number') return limit;
  const units = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb|tb)?\s*$/i.exec(limit);
  return units ? Math.floor(Number(units[1]) * 1024 ** ['b', 'kb', 'mb', 'gb', 'tb'].indexOf((units[2] ?? 'b').toLowerCase())) : undefined;
}

/** Whether a body is encoded (its length is known only once decoded). */
function isEncoded(req: IncomingMessage): boolean {
  const encoding = req.headers['content-encoding'];
  return encoding !== undefined && encoding.toLowerCase() !== 'identity';
}

/** Whether a request's declared `Content-Length` is over `limit` bytes (never for a body in chunks or encoded). */
function declaredOver(req: IncomingMessage, limit: number): boolean {
  return !isEncoded(req) && Number(req.headers['content-length']) > limit;
}

/**
 * Bounds what is read of a request body past `allowed` bytes: once more than `allowed`
 * bytes arrived (at once for a refused body, `allowed` 0), the rest is read and dropped for
 * at most `DISCARD_LIMIT` more bytes and `DISCARD_TIMEOUT_MS` (a body of no declared
 * length that is encoded gets no timer: its size past the limit is known only once
 * decoded); past either bound the connection closes. A body that ends within the bounds
 * leaves the connection open for the client's next request.
 */
function discardBody(req: IncomingMessage, allowed: number, bounds: DiscardBounds): void {
  const limit = allowed + (bounds.discardLimit ?? DISCARD_LIMIT);
  const startTimer = () => afterRealDelay(bounds.discardTimeoutMs ?? DISCARD_TIMEOUT_MS, close);
  let seen = 0;
  let cancel: (() => void) | undefined;
  function close() {
    cancel?.();
    req.socket.destroy();
  }
  const settle = () => cancel?.();
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen <= allowed) return;
    if (seen > limit) return close();
    if (cancel === undefined && !isEncoded(req)) cancel = startTimer();
  });
  req.once('end', settle);
  req.once('close', settle);
  // A refused body (no parser reading it) flows here; a parser's reading makes it flow anyway.
  if (allowed === 0) {
    cancel = startTimer();
    req.resume();
  }
}

/** Whether a request carries a body, exactly as body-parser decides it (type-is): chunks, or any numeric length, `0` included. */
function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(req.headers['content-length']));
}

/**
 * The standalone server's app: `middleware(sim, options)` at the root, and a JSON 404
 * (shape A) for every path outside the base path.
 * @example createApp(sim, { basePath: '/api' }).listen(4010)
 */
export function createApp(sim: Answerer, options: AppOptions = {}): VoxsimApp {
  const app = express();
  app.disable('x-powered-by');
  app.use(middleware(sim, options) as unknown as RequestHandler);
  app.use((req: Request, res: Response) => {
    writeJson(res, 404, JSON.stringify({ message: COMMON_MESSAGES.routeNotFound(req.path) }));
  });
  // A failure that reached no answer (the answer hook rejecting): logged as Express's own handler logs it, answered
  // 500 shape A where Express would answer an HTML page; an answer already on its way cannot be replaced.
  app.use((error: unknown, _req: Request, res: Response, _next: MiddlewareNext) => {
    console.error(error);
    if (res.headersSent) res.destroy();
    else writeJson(res, 500, JSON.stringify({ message: COMMON_MESSAGES.serverError }));
  });
  return app as unknown as VoxsimApp;
}

/** A request `createHttpServer` marked as waiting for `100 Continue`. */
type ContinueRequest = IncomingMessage & { [AWAITING_CONTINUE]?: true };

/** What body-parser (raw-body) reports when it cannot read a body. */
interface BodyReadError {
  status?: number;
  type?: string;
  limit?: number;
  charset?: string;
  encoding?: string;
}

/** body-parser's failures carry an `http-errors` status (and, for the known ones, a `type`). */
function isBodyReadError(error: unknown): error is BodyReadError {
  return typeof error === 'object' && error !== null && (typeof (error as BodyReadError).type === 'string' || typeof (error as BodyReadError).status === 'number');
}

/** The status, message and (messaging sends') error code of a body that could not be read. */
function bodyReadAnswer(error: BodyReadError): { status: number; message: string; code: string } {
  switch (error.type) {
    case 'entity.too.large':
      return { status: 413, message: ADAPTER_MESSAGES.bodyTooLarge(error.limit ?? DEFAULT_BODY_LIMIT), code: 'PAYLOAD_TOO_LARGE' };
    case 'charset.unsupported':
      return { status: 415, message: ADAPTER_MESSAGES.unsupportedCharset(error.charset ?? ''), code: 'UNSUPPORTED_MEDIA_TYPE' };
    case 'encoding.unsupported':
      return { status: 415, message: ADAPTER_MESSAGES.unsupportedEncoding(error.encoding ?? ''), code: 'UNSUPPORTED_MEDIA_TYPE' };
  }
  const status = typeof error.status === 'number' && error.status >= 400 && error.status < 500 ? error.status : 500;
  return status === 500 ? { status, message: COMMON_MESSAGES.serverError, code: 'SERVER_ERROR' } : { status, message: ADAPTER_MESSAGES.unreadableBody, code: 'VALIDATION_ERROR' };
}

/**
 * An HTTP server for `app` whose own refusals are JSON too: a request line and headers
 * over `MAX_HEADER_BYTES` get 431 shape A (Node alone answers it with an empty body), a
 * request Node cannot parse 400, one too slow to arrive 408. What the client still sends
 * after such an answer is read and dropped within `bounds` (as a refused body is), so that
 * it reads the answer rather than a reset connection.
 * @example createHttpServer(createApp(sim)).listen(4010, '127.0.0.1')
 */
export function createHttpServer(app: VoxsimApp, bounds: DiscardBounds = {}): Server {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, app);
  // A client that sends `Expect: 100-continue` gets the 100 from the middleware once it decides to read the body,
  // or the 413 in its place, so it never sends a body that would be refused.
  server.on('checkContinue', (req: ContinueRequest, res: ServerResponse) => {
    req[AWAITING_CONTINUE] = true;
    app(req, res);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // A later chunk of a request already refused errs again: the answer is on its way and
    // the socket closes once the client has read it (destroying it now would reset the
    // connection with the client's bytes unread, and the client would never see the answer).
    if (!socket.writable && error.code !== 'ECONNRESET') return;
    // Like Node's own handler: answer unless a response on this (kept-alive) connection has started.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
    if (error.code === 'ECONNRESET' || inFlight?.headersSent === true) {
      socket.destroy();
      return;
    }
    const [status, message] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, ADAPTER_MESSAGES.headersTooLarge(MAX_HEADER_BYTES)]
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'HPE_HEADERS_TIMEOUT'
          ? [408, ADAPTER_MESSAGES.requestTimeout]
          : [400, ADAPTER_MESSAGES.malformedRequest];
    const body = JSON.stringify({ message });
    // end(), not destroy(): the client may still be sending; closing with unread input would reset the connection before it reads the answer.
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    // What the client still sends is read and dropped, bounded as a refused body is; then the connection closes.
    const closeAt = socket.bytesRead + (bounds.discardLimit ?? DISCARD_LIMIT);
    const cancel = afterRealDelay(bounds.discardTimeoutMs ?? DISCARD_TIMEOUT_MS, () => socket.destroy());
    socket.on('data', () => {
      if (socket.bytesRead > closeAt) socket.destroy();
    });
    socket.once('close', cancel);
  });
  return server;
}
