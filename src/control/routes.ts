/** The `/__sim` control API: one route per `sim.control` operation (STYLE 8). */
import { defineRoute, ok, type HttpMethod, type RouteArgs, type SimResponse } from '../core/http.js';
import type { RouteCtx } from '../domain/routing.js';
import { pathId } from '../domain/ids.js';
import type { Control } from './control.js';
import type { z } from 'zod';
import { AccountInput, AccountPatch } from '../domain/accounts/schema.js';
import { InsertCallBody } from '../domain/calls/schema.js';
import { InboundBody, SenderPatchBody } from '../domain/msgapp/schema.js';
import { InsertNumberBody } from '../domain/phone-numbers/schema.js';
import { OutcomeRulesBody } from '../engine/outcomes.js';
import { ReplyRulesBody } from '../engine/replies.js';
import {
  AdvanceBody,
  AnyObject,
  ChargesQuery,
  DocumentsQuery,
  ClockModeBody,
  DeliveriesQuery,
  FaultBody,
  InboundCallBody,
  OverviewQuery,
  RequestsQuery,
  ResetBody,
  RunUntilIdleBody,
  WebhookFailureBody,
} from './schema.js';

/** What the router hands a control route: a platform route's context and the control plane. */
export interface ControlRouteCtx extends RouteCtx {
  control: Control;
}

/** The schemas a control operation validates its input with: shown by the OpenAPI document, and typing the route's input. */
interface ControlSchemas<B extends z.ZodType, Q extends z.ZodType> {
  body?: B;
  query?: Q;
}

type Handler<B extends z.ZodType, Q extends z.ZodType> = (
  args: RouteArgs<ControlRouteCtx, z.input<B>, unknown> & { query: z.input<Q> },
) => SimResponse | Promise<SimResponse>;

/**
 * A `/__sim` route handing its input to one `sim.control` operation. The route checks only
 * that a body is a JSON object: the operation validates the input itself, with the schemas
 * given here, so in-process callers and the API share one check (STYLE 8).
 */
function controlRoute<B extends z.ZodType = z.ZodNever, Q extends z.ZodType = z.ZodNever>(
  method: HttpMethod,
  path: string,
  schemas: ControlSchemas<B, Q>,
  handle: Handler<B, Q>,
) {
  const withBody = method !== 'GET' && method !== 'DELETE';
  return defineRoute<ControlRouteCtx, Record<string, unknown>>({
    method,
    path: `/__sim${path}`,
    family: 'control',
    auth: 'control',
    ...(withBody && { body: AnyObject }),
    doc: schemas,
    // The loose input is typed as the operation's input: the operation validates it with these same schemas.
    handle: (args) => handle({ ...args, body: (args.body ?? {}) as z.input<B>, query: (args.request.query ?? {}) as z.input<Q> }),
  });
}

export const controlRoutes = [
  // The scenario arrives as YAML or JSON text, so the route reads the raw body.
  defineRoute<ControlRouteCtx>({
    method: 'POST', path: '/__sim/scenario', family: 'control', auth: 'control',
    handle: async ({ ctx, request }) => ok(await ctx.control.scenario.load(request.body ?? '')),
  }),
  controlRoute('GET', '/health', {}, ({ ctx }) => ok(ctx.control.health())),
  controlRoute('POST', '/reset', { body: ResetBody }, ({ ctx, body }) => ok(ctx.control.reset(body))),
  controlRoute('GET', '/requests', { query: RequestsQuery }, ({ ctx, query }) => ok(ctx.control.requests.list(query))),
  controlRoute('GET', '/overview', { query: OverviewQuery }, ({ ctx, query }) => ok(ctx.control.overview(query))),
  controlRoute('GET', '/state', {}, ({ ctx }) => ok(ctx.control.state.get())),
  controlRoute('PUT', '/state', { body: AnyObject }, ({ ctx, body }) => ok(ctx.control.state.put(body))),
  controlRoute('GET', '/clock', {}, ({ ctx }) => ok(ctx.control.clock.get())),
  controlRoute('PUT', '/clock', { body: ClockModeBody }, ({ ctx, body }) => ok(ctx.control.clock.setMode(body))),
  controlRoute('POST', '/clock/advance', { body: AdvanceBody }, async ({ ctx, body }) => ok(await ctx.control.clock.advance(body))),
  controlRoute('POST', '/clock/run-until-idle', { body: RunUntilIdleBody }, async ({ ctx, body }) => ok(await ctx.control.clock.runUntilIdle(body))),
  controlRoute('GET', '/accounts', {}, ({ ctx }) => ok(ctx.control.accounts.list())),
  controlRoute('POST', '/accounts', { body: AccountInput }, ({ ctx, body }) => ok(ctx.control.accounts.create(body), 201)),
  controlRoute('PATCH', '/accounts/:id', { body: AccountPatch }, ({ ctx, body, params }) => ok(ctx.control.accounts.patch(pathId(params.id), body))),
  controlRoute('POST', '/phone-numbers', { body: InsertNumberBody }, ({ ctx, body }) => ok(ctx.control.phoneNumbers.add(body), 201)),
  controlRoute('POST', '/calls', { body: InsertCallBody }, ({ ctx, body }) => ok(ctx.control.calls.insert(body), 201)),
  controlRoute('POST', '/calls/inbound', { body: InboundCallBody }, ({ ctx, body }) => ok(ctx.control.calls.inbound(body), 201)),
  controlRoute('PUT', '/outcomes', { body: OutcomeRulesBody }, ({ ctx, body }) => ok(ctx.control.outcomes.set(body))),
  controlRoute('GET', '/outcomes', {}, ({ ctx }) => ok(ctx.control.outcomes.list())),
  controlRoute('GET', '/charges', { query: ChargesQuery }, ({ ctx, query }) => ok(ctx.control.charges.list(query))),
  controlRoute('GET', '/documents', { query: DocumentsQuery }, ({ ctx, query }) => ok(ctx.control.documents.list(query))),
  controlRoute('GET', '/sms', { query: ChargesQuery }, ({ ctx, query }) => ok(ctx.control.sms.list(query))),
  controlRoute('POST', '/webhooks/failures', { body: WebhookFailureBody }, ({ ctx, body }) => ok(ctx.control.webhooks.failNext(body), 201)),
  controlRoute('GET', '/webhooks/failures', {}, ({ ctx }) => ok(ctx.control.webhooks.failures())),
  controlRoute('DELETE', '/webhooks/failures', {}, ({ ctx }) => ok(ctx.control.webhooks.clearFailures())),
  controlRoute('GET', '/webhooks/deliveries', { query: DeliveriesQuery }, ({ ctx, query }) => ok(ctx.control.webhooks.deliveries(query))),
  controlRoute('PUT', '/replies', { body: ReplyRulesBody }, ({ ctx, body }) => ok(ctx.control.replies.set(body))),
  controlRoute('GET', '/replies', {}, ({ ctx }) => ok(ctx.control.replies.list())),
  controlRoute('POST', '/msgapp/inbound', { body: InboundBody }, ({ ctx, body }) => ok(ctx.control.msgapp.inbound(body), 201)),
  controlRoute('PATCH', '/msgapp/senders/:id', { body: SenderPatchBody }, ({ ctx, body, params }) => ok(ctx.control.msgapp.patchSender(pathId(params.id), body))),
  controlRoute('GET', '/faults', {}, ({ ctx }) => ok(ctx.control.faults.list())),
  controlRoute('POST', '/faults', { body: FaultBody }, ({ ctx, body }) => ok(ctx.control.faults.add(body), 201)),
  controlRoute('DELETE', '/faults', {}, ({ ctx }) => ok(ctx.control.faults.clear())),
];
