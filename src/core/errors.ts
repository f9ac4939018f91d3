/**
 * The five error shapes of the specification (spec: Errors), raised as `SimError`
 * from anywhere below a route and turned into a response by the router.
 */
import type { Texts, Wire } from './wire.js';

/** Shape B's `errors` member: field path -> messages. */
export type FieldErrors = Record<string, string[]>;

/** An error that is an answer: a status and a body of one of the spec's shapes. */
export class SimError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
    /** The body on the live wire, when it differs (live-platform D.5). */
    readonly live?: Record<string, unknown>,
  ) {
    super(typeof body.message === 'string' ? body.message : typeof body.error === 'string' ? body.error : `HTTP ${status}`);
  }

  /** The body this error answers on `wire`. */
  bodyOn(wire: Wire): Record<string, unknown> {
    return wire === 'live' && this.live ? this.live : this.body;
  }

  /** The same error with another body on the live wire. */
  withLive(live: Record<string, unknown>): SimError {
    return new SimError(this.status, this.body, this.headers, live);
  }
}

/** A body per wire from a builder and a text that may differ by wire. */
function both(status: number, text: string | Texts, build: (text: string) => Record<string, unknown>, headers: Record<string, string> = {}): SimError {
  return typeof text === 'string' ? new SimError(status, build(text), headers) : new SimError(status, build(text.spec), headers, build(text.live));
}

/**
 * Shape A `{message}`.
 * @example shapeA(404, 'Assistant not found.')
 */
export function shapeA(status: number, message: string | Texts): SimError {
  return both(status, message, (text) => ({ message: text }));
}

/**
 * Shape B `{message, errors}`: the message is the first error, plus a count of the others.
 * @example shapeB({ name: ['The name field is required.'] })
 */
export function shapeB(errors: FieldErrors, status = 422): SimError {
  const all = Object.values(errors).flat();
  const others = all.length - 1;
  const message = others > 0 ? `${all[0]} (and ${others} more error${others === 1 ? '' : 's'})` : (all[0] ?? 'The given data was invalid.');
  return new SimError(status, { message, errors });
}

/** Shape C `{error}`. */
export function shapeC(status: number, error: string | Texts): SimError {
  return both(status, error, (text) => ({ error: text }));
}

/** Shape D `{success: false, error, error_code}` (messaging channel), with optional extras such as `session_status`. */
export function shapeD(status: number, error: string | Texts, errorCode: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): SimError {
  return both(status, error, (text) => ({ success: false, error: text, error_code: errorCode, ...extra }), headers);
}

/** Shape E `{status: false, error}` (chat routes). */
export function shapeE(status: number, error: string | Texts): SimError {
  return both(status, error, (text) => ({ status: false, error: text }));
}

/** Shape R `{message: "Too Many Attempts.", retry_after}` with a `Retry-After` header carrying the same seconds (live-platform Rule 3). */
export function shapeR(retryAfter: number): SimError {
  return new SimError(429, { message: 'Too Many Attempts.', retry_after: retryAfter }, { 'retry-after': String(retryAfter) });
}

/** Which shape a route family answers its generic failures in (malformed JSON, validation). */
export type RouteFamily = 'management' | 'chat' | 'messaging' | 'control';

/** Texts shared by every route. */
export const COMMON_MESSAGES = {
  unauthenticated: 'Unauthenticated.',
  malformedJson: 'Malformed JSON in request body.',
  bodyNotObject: 'The request body must be a JSON object.',
  malformedForm: 'Malformed multipart/form-data request body.',
  tooDeep: (attribute: string, levels = 64) => `The ${attribute} may not nest more than ${levels} levels deep.`,
  serverError: 'Server Error.',
  invalidData: 'The given data was invalid.',
  routeNotFound: (path: string) => `The route ${path.replace(/^\//, '')} could not be found.`,
  methodNotAllowed: (method: string, path: string, allowed: string[]) =>
    `The ${method} method is not supported for route ${path.replace(/^\//, '')}. Supported methods: ${allowed.join(', ')}.`,
} as const;

/**
 * A failure answered in the route family's shape (ARCHITECTURE §2): A on management and
 * control routes, E on chat routes, D with `errorCode` on messaging sends.
 * @example familyError('chat', 400, 'Malformed JSON in request body.', 'VALIDATION_ERROR') // {status: false, error: …}
 */
export function familyError(family: RouteFamily, status: number, message: string, errorCode: string): SimError {
  switch (family) {
    case 'chat':
      return shapeE(status, message);
    case 'messaging':
      return shapeD(status, message, errorCode);
    default:
      return shapeA(status, message);
  }
}

/** A malformed JSON body, answered in the route family's shape (ARCHITECTURE §2). */
export function malformedJson(family: RouteFamily, message: string = COMMON_MESSAGES.malformedJson): SimError {
  return familyError(family, 400, message, 'VALIDATION_ERROR');
}

/**
 * The error text of a failed answer in any of the five shapes (`message` of A and B,
 * `error` of C, D and E), for logs and the dashboard; null for a success.
 * @example errorMessageOf(422, { message: 'The name field is required.', errors: {...} }) // 'The name field is required.'
 */
export function errorMessageOf(status: number, body: unknown): string | null {
  if (status < 400 || body === null || typeof body !== 'object') return null;
  const { message, error } = body as { message?: unknown; error?: unknown };
  if (typeof message === 'string') return message;
  return typeof error === 'string' ? error : null;
}
