/**
 * A recorded session as drift and from-har read it: the exchanges under the platform's
 * base path (others counted and left out), each with its operation (method + route
 * template), and the timeline that says where the virtual clock stands before each one.
 */
import { normaliseBasePath, Router, type RouteDef } from '../core/http.js';
import { isMultipart } from '../core/multipart.js';
import { parseInstant } from '../core/time.js';
import { parseBodyText, type Exchange } from './har.js';

/** An exchange of the platform: the path under the base path, its operation, the bodies read. */
export interface PlatformExchange extends Exchange {
  /** The path under the base path, without the query (`/user/assistant/812`). */
  path: string;
  /** The query string without `?` ('' when none). */
  search: string;
  /** `METHOD /route/{template}`, or `METHOD /path` when no route matches. */
  operation: string;
  /** The route template matched (`/user/assistant/:id`), if any. */
  template: string | undefined;
  /**
   * The route's parameters as the router reads them from the path: decoded, a malformed
   * escape (`%E0`) kept as written. `{}` when no route matches.
   */
  params: Record<string, string>;
  /** Whether the body is a `multipart/form-data` form (isMultipart, as the router decides): kept as bytes, not read as text. */
  multipart: boolean;
  /** The request body: JSON, else its text (undefined when empty or binary multipart). */
  requestBody: unknown;
  /** The recorded answer: JSON, else its text (undefined when empty). */
  responseBody: unknown;
}

export interface SessionSelection {
  exchanges: PlatformExchange[];
  /** Entries left out, and why (`outside /api`, `OPTIONS (CORS preflight)`, `no answer (status 0)`). */
  ignored: { count: number; reasons: Record<string, number> };
}

/** The platform's base URL as the recording proxy forwards to it. */
export interface Upstream {
  /** Normalised: no trailing slash on the path, no query, no fragment. */
  url: URL;
  /** The URL as messages and the HAR name it (`https://api.example.com/api`; no `/` after a bare origin). */
  text: string;
}

/**
 * The upstream's base URL, parsed once; throws a readable Error when it is none.
 * @example parseUpstream('https://api.example.com/api/').text // 'https://api.example.com/api'
 */
export function parseUpstream(text: string): Upstream {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`--upstream must be the platform's base URL, such as https://api.example.com/api, got "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`--upstream must be an http or https URL, got "${text}"`);
  url.pathname = url.pathname.replace(/\/+$/, '');
  url.search = '';
  url.hash = '';
  // A bare origin's href ends in the `/` of its empty path; no other has one left.
  return { url, text: url.href.replace(/\/$/, '') };
}

/** The route template in `{param}` form. */
const braced = (path: string) => path.replace(/:(\w+)/g, '{$1}');

/**
 * The platform's exchanges of a HAR: those under `basePath` with an answer, in recorded
 * order, each with its operation.
 * @example selectSession(readHar(text), ROUTES, '/api').exchanges.map((e) => e.operation)
 */
export function selectSession(exchanges: Exchange[], routes: readonly RouteDef<unknown>[], basePath = '/api'): SessionSelection {
  const base = normaliseBasePath(basePath);
  const router = new Router<unknown>(routes, {});
  const ignored: Record<string, number> = {};
  const skip = (reason: string) => (ignored[reason] = (ignored[reason] ?? 0) + 1);
  const kept: PlatformExchange[] = [];
  for (const exchange of exchanges) {
    const pathname = exchange.url.pathname;
    if (base !== '' && pathname !== base && !pathname.startsWith(`${base}/`)) {
      skip(`outside ${base}`);
      continue;
    }
    if (exchange.method === 'OPTIONS' || exchange.method === 'HEAD') {
      skip(`${exchange.method} (not an operation)`);
      continue;
    }
    if (exchange.status === 0) {
      skip('no answer (status 0)');
      continue;
    }
    const path = pathname.slice(base.length) || '/';
    const { route, params } = router.match(exchange.method, path);
    const multipart = isMultipart(exchange.requestHeaders['content-type']);
    const text = exchange.requestBytes === null || multipart ? '' : new TextDecoder().decode(exchange.requestBytes);
    kept.push({
      ...exchange,
      path,
      search: exchange.url.search.replace(/^\?/, ''),
      template: route?.path,
      params,
      multipart,
      operation: `${exchange.method} ${route ? braced(route.path) : path}`,
      requestBody: parseBodyText(text),
      responseBody: parseBodyText(exchange.responseText),
    });
  }
  return { exchanges: kept, ignored: { count: Object.values(ignored).reduce((a, b) => a + b, 0), reasons: ignored } };
}

/** The virtual time a `/__sim` answer tells (`now`), if it tells one. */
function toldNow(exchange: PlatformExchange): number | undefined {
  if (!exchange.path.startsWith('/__sim/')) return undefined;
  const now = (exchange.responseBody as { now?: unknown } | undefined)?.now;
  return typeof now === 'string' ? parseInstant(now) : undefined;
}

/** Control operations that move the upstream's clock (or reset it). */
const CLOCK_MOVES = /^\/__sim\/(clock\/advance|clock\/run-until-idle|reset|state)$/;

/**
 * Where the virtual clock stands before each exchange: at the start plus the exchange's
 * offset from the first (`startedDateTime`), shifted by what a voxsim upstream's clock did
 * besides (its `/__sim` answers tell its `now`: after a clock move, later exchanges keep
 * their recorded spacing from there).
 *
 * The start is `start` when given; else, when the session reads a voxsim upstream's clock
 * (`GET /__sim/clock` or `/__sim/health`) before moving it, that clock; else the first
 * exchange's `startedDateTime`.
 */
export class Timeline {
  readonly start: number;
  private readonly first: number;
  private shift = 0;

  constructor(exchanges: readonly PlatformExchange[], start?: number) {
    this.first = exchanges[0]?.at ?? 0;
    this.start = start ?? Timeline.inferredStart(exchanges) ?? this.first;
  }

  private static inferredStart(exchanges: readonly PlatformExchange[]): number | undefined {
    const first = exchanges[0]?.at ?? 0;
    for (const exchange of exchanges) {
      if (exchange.method !== 'GET' && CLOCK_MOVES.test(exchange.path)) return undefined;
      const now = exchange.method === 'GET' ? toldNow(exchange) : undefined;
      if (now !== undefined) return now - (exchange.at - first);
    }
    return undefined;
  }

  /** The time before `exchange` (epoch ms). */
  before(exchange: PlatformExchange): number {
    return this.start + (exchange.at - this.first) + this.shift;
  }

  /**
   * Takes note of a recorded answer: a voxsim upstream's `now` after a clock move (advance,
   * reset, a restored state) re-anchors the following exchanges. Answers that `now`, the
   * upstream's clock after the exchange, when it re-anchored; else undefined.
   * @example const now = timeline.after(exchange); // after `POST /__sim/clock/advance` answered `now`: that time (epoch ms)
   */
  after(exchange: PlatformExchange): number | undefined {
    const now = toldNow(exchange);
    if (now === undefined || !(exchange.status >= 200 && exchange.status < 300) || exchange.method === 'GET') return undefined;
    // The upstream's clock after this exchange is `now`; the next exchange is its recorded spacing later.
    this.shift = now - (this.start + (exchange.at - this.first));
    return now;
  }
}
