/** Route helpers for the platform's authenticated routes. */
import { defineRoute, type RouteArgs, type RouteDef, type HttpMethod } from '../core/http.js';
import type { RouteFamily, SimError } from '../core/errors.js';
import type { z } from 'zod';
import type { AccountCtx } from './context.js';
import type { Simulator } from '../simulator.js';

/** What the router hands a route: the caller's account scope (when authenticated) and the simulator. */
export interface RouteCtx {
  account: AccountCtx | null;
  sim: Simulator;
}

interface UserRouteDef<B, Q> {
  method: HttpMethod;
  path: string;
  family?: RouteFamily;
  body?: z.ZodType<B>;
  query?: z.ZodType<Q>;
  failure?: () => SimError;
  handle(args: RouteArgs<AccountCtx, B, Q>): ReturnType<RouteDef<AccountCtx>['handle']>;
}

/**
 * A route behind `Authorization: Bearer <key>` whose handler works in the caller's account.
 * @example userRoute({ method: 'GET', path: '/user/me', handle: ({ ctx }) => ok(serialiseMe(ctx.account)) })
 */
export function userRoute<B = unknown, Q = unknown>(def: UserRouteDef<B, Q>): RouteDef<RouteCtx> {
  return defineRoute<RouteCtx, B, Q>({
    ...def,
    family: def.family ?? 'management',
    auth: 'bearer',
    handle: (args) => def.handle({ ...args, ctx: args.ctx.account! }),
  });
}
