/**
 * The simulator as an Express 5 app. The body is carried as raw text and parsed in
 * the core, so malformed JSON gets the same answer as under MSW.
 */
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
  /** Largest accepted request body. Default `5mb`. */
  bodyLimit?: string;
  /** Sees every answered request (structured request logs), with the error message of a failure. */
  onRequest?: (entry: RequestLogEntry) => void;
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
  const raw = express.text({ type: () => true, limit: options.bodyLimit ?? '5mb' });
  // The dashboard: one static page with no data in it; everything it shows comes from the control API and the stream.
  app.get(`${basePath}/__sim/ui`, (_req: Request, res: Response) => {
    res.status(200).set({ 'content-security-policy': DASHBOARD_CSP, 'cache-control': 'no-store' }).type('text/html').send(dashboardPage());
  });
  // The event stream answers WebSocket upgrades (event-stream.ts); a plain GET is told so.
  app.get(`${basePath}/__sim/events`, (req: Request, res: Response) => {
    res.status(426).set('upgrade', 'websocket').json({ message: `GET ${basePath}/__sim/events is a WebSocket stream: connect with a WebSocket client (ws://${req.headers.host ?? 'host'}${basePath}/__sim/events).` });
  });
  app.use(basePath || '/', raw, async (req: Request, res: Response) => {
    const started = performance.now();
    const simRequest: SimRequest = {
      method: req.method,
      path: req.path,
      query: req.query as SimRequest['query'],
      headers: req.headers,
      body: typeof req.body === 'string' ? req.body : null,
      url: `${req.protocol}://${req.get('host') ?? 'localhost'}${req.originalUrl}`,
    };
    const response = await sim.handle(simRequest);
    res.status(response.status).set(response.headers ?? {}).type('application/json').send(JSON.stringify(response.body));
    if (options.onRequest) {
      const error = errorMessageOf(response.status, response.body);
      options.onRequest({
        method: req.method,
        path: `${basePath}${req.path}`,
        status: response.status,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
        ...(error !== null && { error }),
      });
    }
  });
  app.use((req: Request, res: Response) => {
    res.status(404).json({ message: COMMON_MESSAGES.routeNotFound(req.path) });
  });
  // Body-reading failures (too large, bad encoding) keep the platform's shape A.
  app.use((error: { status?: number; message?: string }, _req: Request, res: Response, _next: NextFunction) => {
    const status = typeof error.status === 'number' && error.status >= 400 && error.status < 600 ? error.status : 500;
    res.status(status).json({ message: status === 413 ? 'The request body is too large.' : status === 500 ? COMMON_MESSAGES.serverError : (error.message ?? 'Bad request.') });
  });
  return app;
}
