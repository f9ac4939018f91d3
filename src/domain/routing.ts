/** Route helpers for the platform's routes, and the clock handlers domains declare beside them. */
import { defineRoute, type RouteArgs, type RouteDef, type HttpMethod } from '../core/http.js';
import type { RouteFamily, SimError } from '../core/errors.js';
import type * as z from 'zod';
import { record, type FieldKind, type Fields } from '../core/fields.js';
import type { AccountCtx } from './context.js';
import type { SimState } from './state.js';

/** What the router hands a platform route: the caller's account scope (when authenticated) and the state. */
export interface RouteCtx {
  account: AccountCtx | null;
  /** The state, seen in the request's wire. */
  state: SimState;
}

interface UserRouteDef<B, Q> {
  method: HttpMethod;
  path: string;
  family?: RouteFamily;
  body?: z.ZodType<B>;
  query?: z.ZodType<Q>;
  /** What the OpenAPI document shows of an input the route reads itself (core/http RouteDef.doc). */
  doc?: RouteDef<RouteCtx>['doc'];
  /** The success answers (core/http RouteDef.responses): required, so no operation goes undocumented. */
  responses: NonNullable<RouteDef<RouteCtx>['responses']>;
  failure?: () => SimError;
  /** The live wire's body of a failed validation (core/http RouteDef.liveInvalid). */
  liveInvalid?: RouteDef<RouteCtx>['liveInvalid'];
  /** Also takes a `multipart/form-data` body (core/http RouteDef.multipart). */
  multipart?: boolean;
  /** Runs in the caller's account before the body is read (rate limits checked before validation). */
  guard?(ctx: AccountCtx): void;
  handle(args: RouteArgs<AccountCtx, B, Q>): ReturnType<RouteDef<AccountCtx>['handle']>;
}

/**
 * A route behind `Authorization: Bearer <key>` whose handler works in the caller's account.
 * @example userRoute({ method: 'GET', path: '/user/me', handle: ({ ctx }) => ok(serialiseMe(ctx.account)) })
 */
export function userRoute<B = unknown, Q = unknown>(def: UserRouteDef<B, Q>): RouteDef<RouteCtx> {
  const { guard, ...rest } = def;
  return defineRoute<RouteCtx, B, Q>({
    ...rest,
    family: def.family ?? 'management',
    auth: 'bearer',
    ...(guard && { guard: (ctx: RouteCtx) => guard(ctx.account!) }),
    handle: (args) => def.handle({ ...args, ctx: args.ctx.account! }),
  });
}

/** A clock event type, the kind of its payload, and what handles it in the scope of the account its payload names. */
export interface ClockHandler {
  readonly type: string;
  /** The payload's kind: a restored event whose payload is not one is refused (state/snapshot.ts). */
  readonly payload: Pick<FieldKind<unknown>, 'check'>;
  /** May answer a promise (a mid-call tool's request): the clock awaits it. */
  handle(ctx: AccountCtx, payload: { account_id: number }): void | Promise<void>;
}

/**
 * Declares the handler of a clock event that acts for one account (timers are data:
 * ARCHITECTURE §2), with the kind of each payload field. Domains export these beside
 * their routes; the composition root binds them.
 * @example onClock<PeriodEndPayload>(PERIOD_END_EVENT, { account_id: id, phone_number_id: id }, endBillingPeriod)
 */
export function onClock<P extends { account_id: number }>(type: string, payload: Fields<P>, handle: (ctx: AccountCtx, payload: P) => void | Promise<void>): ClockHandler {
  return { type, payload: record(payload), handle: handle as ClockHandler['handle'] };
}
