/**
 * The transport-neutral request and response, route definitions and the router.
 * Adapters turn their native objects into a `SimRequest` and a `SimResponse` back;
 * everything between (JSON parsing, matching, validation, errors) happens here once.
 */
import type * as z from 'zod';
import { COMMON_MESSAGES, SimError, malformedJson, shapeA, type FieldErrors, type RouteFamily } from './errors.js';
import { parseTrimmed, trimQuery } from './input.js';
import { isMultipart, parseMultipart } from './multipart.js';
import { attributeName, MAX_JSON_DEPTH, nestsTooDeep, parseInput, validationFailure } from './validation.js';
import type { Wire } from './wire.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A request as the simulator sees it: the path is relative to the base URL. */
export interface SimRequest {
  method: string;
  path: string;
  query?: Record<string, string | string[] | undefined>;
  headers?: Record<string, string | string[] | undefined>;
  /** The raw body text; JSON is parsed by the router. */
  body?: string | null;
  /**
   * The raw body bytes, which adapters give instead of `body` for a
   * `multipart/form-data` request (an upload's size counts bytes, and a binary file is
   * no text). The router reads them as a form on routes that take one, else as text.
   */
  bytes?: Uint8Array | null;
  /**
   * The request URL as received (scheme, host, port, the full path with any base path),
   * for answers that link to themselves (live paginator, cursor `path`). Adapters set it;
   * without it those links are the relative `path`.
   */
  url?: string;
  /** The wire to answer in, when it is not the simulator's (`handlers(sim, { wire })`). */
  wire?: Wire;
  /**
   * Set by adapters, which send the answer as JSON text: the body may then be a
   * `JsonText`, written from texts the core keeps (a list's rows), with no records
   * built. Read it with `answerText(response.body)`.
   */
  encoded?: boolean;
}

/** A response: `body` is JSON data, serialised by the adapter (`answerText`). */
export interface SimResponse {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

/** A route's success answers: status -> the schema of its body (`RouteDef.responses`). */
export type Responses = Readonly<Record<number, z.ZodType>>;

/** How a route is authenticated. */
export type AuthMode = 'bearer' | 'optional' | 'none' | 'control';

export interface RouteArgs<C, B, Q> {
  ctx: C;
  body: B;
  query: Q;
  params: Record<string, string>;
  request: SimRequest;
}

/** One operation: method + path bound to a handler, with its input schemas. */
export interface RouteDef<C, B = unknown, Q = unknown> {
  method: HttpMethod;
  path: string;
  family: RouteFamily;
  auth: AuthMode;
  body?: z.ZodType<B>;
  query?: z.ZodType<Q>;
  /** The documented failure a forced fault produces (else 500 "Server Error."). */
  failure?: () => SimError;
  /** The live wire's body of a failed validation, from its field errors (live-platform D.5 "Validation failed", G.3 the reference's texts). */
  liveInvalid?: (errors: FieldErrors) => Record<string, unknown>;
  /** Also takes a `multipart/form-data` body (an upload); its fields reach `body` as strings and `UploadedFile`s. */
  multipart?: boolean;
  /** How many levels the JSON body may nest (the body itself is the first); default MAX_JSON_DEPTH. */
  maxDepth?: number;
  /**
   * The schemas the OpenAPI document shows instead of `body`/`query` when the route validates
   * its input elsewhere, or reads it per wire: a control operation validates its own input,
   * a query read per wire is shown as either wire takes it (one document serves both), a
   * query the route ignores names what clients send it.
   */
  doc?: { body?: z.ZodType; query?: z.ZodType };
  /**
   * The success answers: status -> the schema of the body (core/answers.ts), shown by the
   * OpenAPI document and checked by the contract suites against every answer. Never parsed
   * at run time, so they are built when first asked for, not while the package is imported
   * (issue 29).
   */
  responses?: () => Responses;
  /** Runs after authentication and before the body is read (a rate limit checked before validation). */
  guard?(ctx: C, request: SimRequest): void;
  handle(args: RouteArgs<C, B, Q>): SimResponse | Promise<SimResponse>;
}

/**
 * Declares a route with typed body and query.
 * @example
 * defineRoute({ method: 'GET', path: '/user/me', family: 'management', auth: 'bearer',
 *   handle: ({ ctx }) => ok(serialiseMe(ctx.account)) })
 */
export function defineRoute<C, B = unknown, Q = unknown>(def: RouteDef<C, B, Q>): RouteDef<C> {
  return def as unknown as RouteDef<C>;
}

/**
 * The same operation under another method and path (the live platform's spellings):
 * same schemas, checks, answers and fault failure; only the route table entry differs.
 * @example alias(createCampaignRoute, 'POST', '/user/campaigns')
 */
export function alias<C>(route: RouteDef<C>, method: HttpMethod, path: string): RouteDef<C> {
  return { ...route, method, path };
}

/** A 200 (or `status`) answer. */
export function ok(body: unknown, status = 200, headers?: Record<string, string>): SimResponse {
  return headers ? { status, body, headers } : { status, body };
}

/**
 * The request URL as received without its query (live-platform D.1 `path`), else the
 * request's path when no adapter gave the URL.
 * @example selfPath({ method: 'GET', path: '/user/calls', url: 'http://127.0.0.1:4010/api/user/calls?page=2' }) // 'http://127.0.0.1:4010/api/user/calls'
 */
export function selfPath(request: SimRequest): string {
  const full = request.url ?? request.path;
  const at = full.search(/[?#]/);
  return at < 0 ? full : full.slice(0, at);
}

/**
 * Normalises a base path: leading slash, no trailing slash, `''` for the root. The server,
 * the middleware and the recording commands read `--base-path` alike through it.
 * @example normaliseBasePath('api/') // '/api'
 */
export function normaliseBasePath(basePath = '/api'): string {
  const trimmed = basePath.trim().replace(/\/+$/, '');
  if (trimmed === '') return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/**
 * The token of an `Authorization: Bearer <token>` header; undefined for none or another
 * scheme. The one reading of an API key: authentication, and the recording's redaction
 * and replays, agree on what the key is. (The control API's admin token is compared with
 * the whole header, `Bearer <token>`, as ARCHITECTURE §6 words it: a token may hold any
 * character.)
 * @example bearerToken('Bearer sim_test_key') // 'sim_test_key'
 */
export function bearerToken(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
}

/** A header value, case-insensitively. */
export function header(request: SimRequest, name: string): string | undefined {
  const headers = request.headers ?? {};
  const wanted = name.toLowerCase();
  // Adapters hand over Node's headers, whose names are lower case already: no walk over them.
  const direct = headers[wanted];
  if (direct !== undefined) return Array.isArray(direct) ? direct[0] : direct;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

interface CompiledRoute<C> {
  def: RouteDef<C>;
  segments: string[];
}

export interface RouterHooks<C> {
  /** Resolves the route's context (authentication); throws a SimError to refuse. A caller of `handle` may give its own. */
  context?(request: SimRequest, route: RouteDef<C>): C;
  /** Runs after validation, before the handler (fault injection). */
  beforeHandle?(route: RouteDef<C>, request: SimRequest, ctx: C): void;
  /** Sees unexpected exceptions (logging); the answer is a 500 either way. */
  onError?(error: unknown, request: SimRequest): void;
}

/** Splits a path into decoded segments, ignoring empty ones (so a trailing slash does not matter). */
export function pathSegments(path: string): string[] {
  return path
    .split('?')[0]!
    .split('/')
    .filter((s) => s.length > 0)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
}

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | undefined {
  if (pattern.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    if (p.startsWith(':')) params[p.slice(1)] = actual[i]!;
    else if (p !== actual[i]) return undefined;
  }
  return params;
}

/**
 * The body a route's schema reads: a form on a route that takes one and a request
 * that sends one, else JSON (a form sent to a JSON route is malformed JSON, as before).
 */
function readBody(route: RouteDef<unknown>, request: SimRequest): unknown {
  const contentType = header(request, 'content-type');
  if (route.multipart && isMultipart(contentType)) {
    const bytes = request.bytes ?? new TextEncoder().encode(request.body ?? '');
    const form = parseMultipart(bytes, contentType!);
    if (!form) throw malformedJson(route.family, COMMON_MESSAGES.malformedForm);
    return form;
  }
  return parseBody(route, request.body ?? (request.bytes ? new TextDecoder().decode(request.bytes) : null));
}

function parseBody(route: RouteDef<unknown>, raw: string | null | undefined): unknown {
  if (raw === undefined || raw === null || raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw malformedJson(route.family);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw malformedJson(route.family, COMMON_MESSAGES.bodyNotObject);
  }
  const limit = route.maxDepth ?? MAX_JSON_DEPTH;
  const tooDeep = deepestKey(parsed as Record<string, unknown>, limit);
  if (tooDeep !== undefined) throw validationFailure({ [tooDeep]: [COMMON_MESSAGES.tooDeep(attributeName([tooDeep]), limit)] }, route.family);
  return parsed;
}

/** The top-level key of a body whose value nests too deep (the body itself is the first level). */
function deepestKey(body: Record<string, unknown>, limit: number): string | undefined {
  return Object.keys(body).find((key) => nestsTooDeep(body[key], 2, limit));
}

/**
 * Folds query parameters into `into`: a repeated key becomes an array of its values, in order.
 * @example foldQuery(new URLSearchParams('type=a&type=b&x=1')) // { type: ['a', 'b'], x: '1' }
 */
export function foldQuery(params: URLSearchParams, into: Record<string, string | string[] | undefined> = {}): Record<string, string | string[] | undefined> {
  for (const [key, value] of params) {
    const prior = into[key];
    into[key] = prior === undefined ? value : [...(Array.isArray(prior) ? prior : [prior]), value];
  }
  return into;
}

/** Moves a query string written into `path` into `query` (in-process callers may write either). */
function withPathQuery(request: SimRequest): SimRequest {
  const at = request.path.indexOf('?');
  if (at < 0) return request;
  return { ...request, path: request.path.slice(0, at), query: foldQuery(new URLSearchParams(request.path.slice(at + 1)), { ...request.query }) };
}

/**
 * Route tables already split into segments and grouped by their number: every simulator
 * is built over the same constant table, so it is compiled once (a memo of a pure
 * function, gone with the table).
 */
const COMPILED = new WeakMap<readonly RouteDef<never>[], Map<number, CompiledRoute<never>[]>>();

/**
 * Matches requests to routes and runs them: JSON parsing, authentication,
 * validation, the handler, and every failure turned into one of the spec's shapes.
 */
export class Router<C> {
  /** The routes by their number of segments (only those can match a path), each list in declaration order. */
  private readonly routes: Map<number, CompiledRoute<C>[]>;

  constructor(
    routes: readonly RouteDef<C>[],
    private readonly hooks: RouterHooks<C>,
  ) {
    let compiled = COMPILED.get(routes) as Map<number, CompiledRoute<C>[]> | undefined;
    if (!compiled) {
      compiled = new Map();
      for (const def of routes) {
        const segments = pathSegments(def.path);
        const same = compiled.get(segments.length);
        if (same) same.push({ def, segments });
        else compiled.set(segments.length, [{ def, segments }]);
      }
      COMPILED.set(routes, compiled as Map<number, CompiledRoute<never>[]>);
    }
    this.routes = compiled;
  }

  /** Finds the route for a method and path; `allowed` lists the methods of a path matched without its method. */
  match(method: string, path: string): { route?: RouteDef<C>; params: Record<string, string>; allowed: string[] } {
    const segments = pathSegments(path);
    const allowed: string[] = [];
    for (const { def, segments: pattern } of this.routes.get(segments.length) ?? []) {
      const params = matchSegments(pattern, segments);
      if (!params) continue;
      if (def.method === method) return { route: def, params, allowed };
      allowed.push(def.method);
    }
    return { params: {}, allowed };
  }

  /**
   * Answers a request; `context` resolves the matched route's context instead of the
   * hooks' (the caller authenticated already); errors answer in `wire`'s bodies.
   */
  async handle(request: SimRequest, context?: (route: RouteDef<C>) => C, wire: Wire = 'spec'): Promise<SimResponse> {
    request = withPathQuery(request);
    const method = request.method.toUpperCase();
    const { route, params, allowed } = this.match(method, request.path);
    if (!route) {
      if (allowed.length > 0) {
        return { status: 405, headers: { allow: allowed.join(', ') }, body: { message: COMMON_MESSAGES.methodNotAllowed(method, request.path, allowed) } };
      }
      return { status: 404, body: { message: COMMON_MESSAGES.routeNotFound(request.path) } };
    }
    // live-platform G.3 item 3: the live wire reads the platform's input trimmed (core/input.ts); the control API is ours.
    const trims = wire === 'live' && route.family !== 'control';
    if (trims && request.query) request = { ...request, query: trimQuery(request.query) };
    try {
      const ctx = context ? context(route) : this.hooks.context!(request, route);
      route.guard?.(ctx, request);
      let body: unknown;
      let query: unknown;
      try {
        if (route.body) {
          const raw = readBody(route as RouteDef<unknown>, request);
          body = trims ? parseTrimmed(route.body, raw, route.family) : parseInput(route.body, raw, route.family);
        }
        query = route.query ? parseInput(route.query, request.query ?? {}, route.family) : undefined;
      } catch (error) {
        if (error instanceof SimError && error.status === 422 && route.liveInvalid !== undefined) throw error.withLive(route.liveInvalid(error.body.errors as FieldErrors));
        throw error;
      }
      this.hooks.beforeHandle?.(route, request, ctx);
      return await route.handle({ ctx, body, query, params, request });
    } catch (error) {
      if (error instanceof SimError) return { status: error.status, body: error.bodyOn(wire), ...(Object.keys(error.headers).length ? { headers: error.headers } : {}) };
      this.hooks.onError?.(error, request);
      return { status: 500, body: shapeA(500, COMMON_MESSAGES.serverError).body };
    }
  }
}
