/** The `/__sim` control API: one route per `sim.control` operation (STYLE 8). */
import { defineRoute, ok, type HttpMethod, type RouteArgs, type SimResponse } from '../core/http.js';
import type { RouteCtx } from '../domain/routing.js';
import { pathId } from '../domain/ids.js';
import type { Control } from './control.js';
import { AnyObject } from './schema.js';

/** What the router hands a control route: a platform route's context and the control plane. */
export interface ControlRouteCtx extends RouteCtx {
  control: Control;
}

type Handler = (args: RouteArgs<ControlRouteCtx, Record<string, unknown>, unknown>) => SimResponse | Promise<SimResponse>;

function controlRoute(method: HttpMethod, path: string, handle: Handler) {
  const withBody = method !== 'GET' && method !== 'DELETE';
  return defineRoute<ControlRouteCtx, Record<string, unknown>>({
    method,
    path: `/__sim${path}`,
    family: 'control',
    auth: 'control',
    ...(withBody && { body: AnyObject }),
    handle: (args) => handle({ ...args, body: args.body ?? {} }),
  });
}

export const controlRoutes = [
  // The scenario arrives as YAML or JSON text, so the route reads the raw body.
  defineRoute<ControlRouteCtx>({
    method: 'POST', path: '/__sim/scenario', family: 'control', auth: 'control',
    handle: async ({ ctx, request }) => ok(await ctx.control.scenario.load(request.body ?? '')),
  }),
  controlRoute('GET', '/health', ({ ctx }) => ok(ctx.control.health())),
  controlRoute('POST', '/reset', ({ ctx, body }) => ok(ctx.control.reset(body))),
  controlRoute('GET', '/requests', ({ ctx, request }) => ok(ctx.control.requests.list(request.query ?? {}))),
  controlRoute('GET', '/overview', ({ ctx, request }) => ok(ctx.control.overview(request.query ?? {}))),
  controlRoute('GET', '/state', ({ ctx }) => ok(ctx.control.state.get())),
  controlRoute('PUT', '/state', ({ ctx, body }) => ok(ctx.control.state.put(body))),
  controlRoute('GET', '/clock', ({ ctx }) => ok(ctx.control.clock.get())),
  controlRoute('PUT', '/clock', ({ ctx, body }) => ok(ctx.control.clock.setMode(body))),
  controlRoute('POST', '/clock/advance', async ({ ctx, body }) => ok(await ctx.control.clock.advance(body))),
  controlRoute('POST', '/clock/run-until-idle', async ({ ctx, body }) => ok(await ctx.control.clock.runUntilIdle(body))),
  controlRoute('GET', '/accounts', ({ ctx }) => ok(ctx.control.accounts.list())),
  controlRoute('POST', '/accounts', ({ ctx, body }) => ok(ctx.control.accounts.create(body), 201)),
  controlRoute('PATCH', '/accounts/:id', ({ ctx, body, params }) => ok(ctx.control.accounts.patch(pathId(params.id), body))),
  controlRoute('POST', '/phone-numbers', ({ ctx, body }) => ok(ctx.control.phoneNumbers.add(body), 201)),
  controlRoute('POST', '/calls', ({ ctx, body }) => ok(ctx.control.calls.insert(body), 201)),
  controlRoute('POST', '/calls/inbound', ({ ctx, body }) => ok(ctx.control.calls.inbound(body), 201)),
  controlRoute('PUT', '/outcomes', ({ ctx, body }) => ok(ctx.control.outcomes.set(body))),
  controlRoute('GET', '/outcomes', ({ ctx }) => ok(ctx.control.outcomes.list())),
  controlRoute('GET', '/charges', ({ ctx, request }) => ok(ctx.control.charges.list(request.query ?? {}))),
  controlRoute('GET', '/documents', ({ ctx, request }) => ok(ctx.control.documents.list(request.query ?? {}))),
  controlRoute('GET', '/sms', ({ ctx, request }) => ok(ctx.control.sms.list(request.query ?? {}))),
  controlRoute('POST', '/webhooks/failures', ({ ctx, body }) => ok(ctx.control.webhooks.failNext(body), 201)),
  controlRoute('GET', '/webhooks/failures', ({ ctx }) => ok(ctx.control.webhooks.failures())),
  controlRoute('DELETE', '/webhooks/failures', ({ ctx }) => ok(ctx.control.webhooks.clearFailures())),
  controlRoute('GET', '/webhooks/deliveries', ({ ctx, request }) => ok(ctx.control.webhooks.deliveries(request.query ?? {}))),
  controlRoute('PUT', '/replies', ({ ctx, body }) => ok(ctx.control.replies.set(body))),
  controlRoute('GET', '/replies', ({ ctx }) => ok(ctx.control.replies.list())),
  controlRoute('POST', '/msgapp/inbound', ({ ctx, body }) => ok(ctx.control.msgapp.inbound(body), 201)),
  controlRoute('PATCH', '/msgapp/senders/:id', ({ ctx, body, params }) => ok(ctx.control.msgapp.patchSender(pathId(params.id), body))),
  controlRoute('GET', '/faults', ({ ctx }) => ok(ctx.control.faults.list())),
  controlRoute('POST', '/faults', ({ ctx, body }) => ok(ctx.control.faults.add(body), 201)),
  controlRoute('DELETE', '/faults', ({ ctx }) => ok(ctx.control.faults.clear())),
];
