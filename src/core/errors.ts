/**
 * The five error shapes of the specification (spec: Errors), raised as `SimError`
 * from anywhere below a route and turned into a response by the router.
 */

/** Shape B's `errors` member: field path -> messages. */
export type FieldErrors = Record<string, string[]>;

/** An error that is an answer: a status and a body of one of the spec's shapes. */
export class SimError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body.message === 'string' ? body.message : typeof body.error === 'string' ? body.error : `HTTP ${status}`);
  }
}

/**
 * Shape A `{message}`.
 * @example shapeA(404, 'Assistant not found.')
 */
export function shapeA(status: number, message: string): SimError {
  return new SimError(status, { message });
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
export function shapeC(status: number, error: string): SimError {
  return new SimError(status, { error });
}

/** Shape D `{success: false, error, error_code}` (messaging channel), with optional extras such as `session_status`. */
export function shapeD(status: number, error: string, errorCode: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): SimError {
  return new SimError(status, { success: false, error, error_code: errorCode, ...extra }, headers);
}

/** Shape E `{status: false, error}` (chat routes). */
export function shapeE(status: number, error: string): SimError {
  return new SimError(status, { status: false, error });
}

/** Which shape a route family answers its generic failures in (malformed JSON, validation). */
export type RouteFamily = 'management' | 'chat' | 'messaging' | 'control';

/** Texts shared by every route. */
export const COMMON_MESSAGES = {
  unauthenticated: 'Unauthenticated.',
  malformedJson: 'Malformed JSON in request body.',
  bodyNotObject: 'The request body must be a JSON object.',
  serverError: 'Server Error.',
  invalidData: 'The given data was invalid.',
  routeNotFound: (path: string) => `The route ${path.replace(/^\//, '')} could not be found.`,
  methodNotAllowed: (method: string, path: string, allowed: string[]) =>
    `The ${method} method is not supported for route ${path.replace(/^\//, '')}. Supported methods: ${allowed.join(', ')}.`,
} as const;

/** A malformed JSON body, answered in the route family's shape (ARCHITECTURE §2). */
export function malformedJson(family: RouteFamily, message: string = COMMON_MESSAGES.malformedJson): SimError {
  switch (family) {
    case 'chat':
      return shapeE(400, message);
    case 'messaging':
      return shapeD(400, message, 'VALIDATION_ERROR');
    default:
      return shapeA(400, message);
  }
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
