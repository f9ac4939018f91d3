/**
 * The simulator as an Express 5 app. The body is carried as raw text and parsed in
 * the core, so malformed JSON gets the same answer as under MSW.
 */
import { createServer, STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { COMMON_MESSAGES, errorMessageOf } from '../core/errors.js';
import type { SimRequest } from '../core/http.js';
import type { Simulator } from '../simulator.js';
import { DASHBOARD_CSP, dashboardPage } from './dashboard.js';

export { attachEventStream, DEFAULT_STREAM_BUFFER_LIMIT, SLOW_CONSUMER_CLOSE_CODE, type EventStream, type EventStreamOptions } from './event-stream.js';

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
  /** Largest body of `PUT /__sim/state` (a whole snapshot): bytes or text such as `256mb`. Default `256mb`. */
  stateBodyLimit?: string | number;
  /** Sees every answered request (structured request logs), with the error message of a failure. */
  onRequest?: (entry: RequestLogEntry) => void;
  /**
   * Runs after the core answered and before the answer is sent (the state file writes
   * the request's changes there, so that what a client was told survives a kill).
   */
  beforeAnswer?: () => void;
}

/** Largest request body the server reads: 5 MiB (`AppOptions.bodyLimit`). */
export const DEFAULT_BODY_LIMIT = 5 * 1024 * 1024;
/**
 * Largest body of `PUT /__sim/state`: 256 MiB (`AppOptions.stateBodyLimit`). A snapshot
 * of 100k leads and 220k calls is about 220 MB; a JavaScript string holds at most ~512 MB.
 */
export const DEFAULT_STATE_BODY_LIMIT = 256 * 1024 * 1024;
/** Largest request line plus headers: 16 KiB, Node's own default, set explicitly so a `--max-http-header-size` does not move it. */
export const MAX_HEADER_BYTES = 16 * 1024;

/**
 * Texts of the answers the adapter gives itself, before a request reaches the core (all
 * shape A). Divergence: the platform's own texts for these are not shown in the specification.
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

/** Normalises a base path: leading slash, no trailing slash, `''` for the root. */
export function normaliseBasePath(basePath = '/api'): string {
  const trimmed = basePath.trim().replace(/\/+$/, '');
  if (trimmed === '') return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/**
 * An Express app answering every request under `basePath` from `sim`.
 * @example createApp(sim, { basePath: '/api' }).listen(4010)
 */
export function createApp(sim: Simulator, options: AppOptions = {}): Express {
  const basePath = normaliseBasePath(options.basePath);
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  const raw = express.text({ type: () => true, limit: options.bodyLimit ?? DEFAULT_BODY_LIMIT });
  const rawState = express.text({ type: () => true, limit: options.stateBodyLimit ?? DEFAULT_STATE_BODY_LIMIT });
  // A whole snapshot may be far larger than any API body: only its control route reads that much.
  const body = (req: Request, res: Response, next: NextFunction) => (req.method === 'PUT' && req.path === '/__sim/state' ? rawState : raw)(req, res, next);
  // When the request began, for the log line of an answer given before the core (a body-reading failure).
  app.use((_req: Request, res: Response, next: NextFunction) => {
    res.locals.started = performance.now();
    next();
  });
  // The dashboard: one static page with no data in it; everything it shows comes from the control API and the stream.
  app.get(`${basePath}/__sim/ui`, (_req: Request, res: Response) => {
    res.status(200).set({ 'content-security-policy': DASHBOARD_CSP, 'cache-control': 'no-store' }).type('text/html').send(dashboardPage());
  });
  // The event stream answers WebSocket upgrades (event-stream.ts); a plain GET is told so.
  app.get(`${basePath}/__sim/events`, (req: Request, res: Response) => {
    res.status(426).set('upgrade', 'websocket').json({ message: `GET ${basePath}/__sim/events is a WebSocket stream: connect with a WebSocket client (ws://${req.headers.host ?? 'host'}${basePath}/__sim/events).` });
  });
  const logAnswer = (req: Request, res: Response, status: number, body: unknown) => {
    if (!options.onRequest) return;
    const error = errorMessageOf(status, body);
    options.onRequest({
      method: req.method,
      path: `${req.baseUrl}${req.path}`,
      status,
      duration_ms: Math.round((performance.now() - (res.locals.started as number)) * 10) / 10,
      ...(error !== null && { error }),
    });
  };
  app.use(basePath || '/', body, async (req: Request, res: Response) => {
    const simRequest: SimRequest = {
      method: req.method,
      path: req.path,
      query: req.query as SimRequest['query'],
      headers: req.headers,
      body: typeof req.body === 'string' ? req.body : null,
      url: `${req.protocol}://${req.get('host') ?? 'localhost'}${req.originalUrl}`,
    };
    const response = await sim.handle(simRequest);
    options.beforeAnswer?.();
    res.status(response.status).set(response.headers ?? {}).type('application/json').send(JSON.stringify(response.body));
    logAnswer(req, res, response.status, response.body);
  });
  app.use((req: Request, res: Response) => {
    res.status(404).json({ message: COMMON_MESSAGES.routeNotFound(req.path) });
  });
  // Body-reading failures (too large, bad encoding) keep the platform's shape A; nothing reached the core, so nothing changed.
  app.use((error: BodyReadError, req: Request, res: Response, next: NextFunction) => {
    // An answer already on its way cannot be replaced: Express closes the connection.
    if (res.headersSent) return next(error);
    const { status, message } = bodyReadAnswer(error);
    const body = { message };
    res.status(status).json(body);
    logAnswer(req, res, status, body);
  });
  return app;
}

/** What body-parser (raw-body) reports when it cannot read a body. */
interface BodyReadError {
  status?: number;
  type?: string;
  limit?: number;
  charset?: string;
  encoding?: string;
}

/** The status and shape-A message of a body that could not be read. */
function bodyReadAnswer(error: BodyReadError): { status: number; message: string } {
  switch (error.type) {
    case 'entity.too.large':
      return { status: 413, message: ADAPTER_MESSAGES.bodyTooLarge(error.limit ?? DEFAULT_BODY_LIMIT) };
    case 'charset.unsupported':
      return { status: 415, message: ADAPTER_MESSAGES.unsupportedCharset(error.charset ?? '') };
    case 'encoding.unsupported':
      return { status: 415, message: ADAPTER_MESSAGES.unsupportedEncoding(error.encoding ?? '') };
  }
  const status = typeof error.status === 'number' && error.status >= 400 && error.status < 500 ? error.status : 500;
  return { status, message: status === 500 ? COMMON_MESSAGES.serverError : ADAPTER_MESSAGES.unreadableBody };
}

/**
 * An HTTP server for `app` whose own refusals are JSON too: a request line and headers
 * over `MAX_HEADER_BYTES` get 431 shape A (Node alone answers it with an empty body), a
 * request Node cannot parse 400, one too slow to arrive 408.
 * @example createHttpServer(createApp(sim)).listen(4010, '127.0.0.1')
 */
export function createHttpServer(app: Express): Server {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, app);
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
  });
  return server;
}
