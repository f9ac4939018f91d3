/** The `/__sim` control API: one route per `sim.control` operation (STYLE 8). */
import * as z from 'zod';
import { dataList, integer } from '../core/answers.js';
import { documentedAs } from '../core/documented.js';
import { defineRoute, ok, type HttpMethod, type Responses, type RouteArgs, type SimResponse } from '../core/http.js';
import { MAX_SNAPSHOT_DEPTH } from '../core/validation.js';
import type { RouteCtx } from '../domain/routing.js';
import { pathId } from '../domain/ids.js';
import type { Control } from './control.js';
import { AccountInput, AccountPatch, AccountRecord } from '../domain/accounts/schema.js';
import { CallRecord, InsertCallBody } from '../domain/calls/schema.js';
import { StoredDocumentRecord } from '../domain/knowledgebases/schema.js';
import {
  ChannelMessageRecord,
  ChannelMessagesQuery,
  ControlSenderRecord,
  ControlTemplateRecord,
  CreateSenderBody,
  CreateTemplateBody,
  InboundAnswer,
  InboundBody,
  SenderPatchBody,
  TemplatePatchBody,
} from '../domain/msgapp/schema.js';
import { MessageOutcomeRulesBody } from '../engine/message-outcomes.js';
import { ChargeRecord, InsertNumberBody, PhoneNumberRecord } from '../domain/phone-numbers/schema.js';
import { SmsRecord } from '../domain/sms/schema.js';
import { OutcomeRulesBody } from '../engine/outcomes.js';
import { ReplyRulesBody } from '../engine/replies.js';
import { OverviewRecord } from './overview.js';
import { CatalogDocument } from '../domain/catalog/document.js';
import { Scenario } from '../scenario/schema.js';
import {
  AdvanceBody,
  AnyObject,
  ClockMoveRecord,
  ClockRecord,
  DeliveryRecord,
  FailureRuleRecord,
  FaultRuleRecord,
  ToolCallRecord,
  ToolCallsAnswer,
  ToolCallsQuery,
  HealthAnswer,
  OkAnswer,
  RequestsAnswer,
  ResetAnswer,
  RunUntilIdleAnswer,
  ScenarioLoaded,
  SnapshotAnswer,
  StateRestored,
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

/** The schemas a control operation validates its input with (shown by the OpenAPI document, and typing the route's input) and those of its answers. */
interface ControlSchemas<B extends z.ZodType, Q extends z.ZodType> {
  body?: B;
  query?: Q;
  responses: () => Responses;
  /** How deep the body may nest, when not MAX_JSON_DEPTH (`RouteDef.maxDepth`). */
  maxDepth?: number;
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
    ...(schemas.maxDepth !== undefined && { maxDepth: schemas.maxDepth }),
    doc: { ...(schemas.body && { body: schemas.body }), ...(schemas.query && { query: schemas.query }) },
    responses: schemas.responses,
    // The loose input is typed as the operation's input: the operation validates it with these same schemas.
    handle: (args) => handle({ ...args, body: (args.body ?? {}) as z.input<B>, query: (args.request.query ?? {}) as z.input<Q> }),
  });
}

/** The scenario body: read as text, YAML or JSON whatever its Content-Type says (docs/scenarios.md). */
const SCENARIO_BODY = documentedAs(Scenario, {
  media: ['application/yaml'],
  description: 'The scenario as YAML or JSON text (scenario.schema.json), read as such whatever the Content-Type says.',
});

export const controlRoutes = [
  // The scenario arrives as YAML or JSON text, so the route reads the raw body; the document shows its JSON form, as JSON or YAML.
  defineRoute<ControlRouteCtx>({
    method: 'POST', path: '/__sim/scenario', family: 'control', auth: 'control', responses: () => ({ 200: ScenarioLoaded }), doc: { body: SCENARIO_BODY },
    handle: async ({ ctx, request }) => ok(await ctx.control.scenario.load(request.body ?? '')),
  }),
  controlRoute('GET', '/health', { responses: () => ({ 200: HealthAnswer }) }, ({ ctx }) => ok(ctx.control.health())),
  controlRoute('POST', '/reset', { body: ResetBody, responses: () => ({ 200: ResetAnswer }) }, ({ ctx, body }) => ok(ctx.control.reset(body))),
  controlRoute('GET', '/requests', { query: RequestsQuery, responses: () => ({ 200: RequestsAnswer }) }, ({ ctx, query }) => ok(ctx.control.requests.list(query))),
  controlRoute('GET', '/overview', { query: OverviewQuery, responses: () => ({ 200: OverviewRecord }) }, ({ ctx, query }) => ok(ctx.control.overview(query))),
  controlRoute('GET', '/state', { responses: () => ({ 200: SnapshotAnswer }) }, ({ ctx }) => ok(ctx.control.state.get())),
  controlRoute('PUT', '/state', { body: AnyObject, responses: () => ({ 200: StateRestored }), maxDepth: MAX_SNAPSHOT_DEPTH }, ({ ctx, body }) => ok(ctx.control.state.put(body))),
  controlRoute('GET', '/clock', { responses: () => ({ 200: ClockRecord }) }, ({ ctx }) => ok(ctx.control.clock.get())),
  controlRoute('PUT', '/clock', { body: ClockModeBody, responses: () => ({ 200: ClockRecord }) }, ({ ctx, body }) => ok(ctx.control.clock.setMode(body))),
  controlRoute('POST', '/clock/advance', { body: AdvanceBody, responses: () => ({ 200: ClockMoveRecord }) }, async ({ ctx, body }) => ok(await ctx.control.clock.advance(body))),
  controlRoute('POST', '/clock/run-until-idle', { body: RunUntilIdleBody, responses: () => ({ 200: RunUntilIdleAnswer }) }, async ({ ctx, body }) => ok(await ctx.control.clock.runUntilIdle(body))),
  controlRoute('GET', '/accounts', { responses: () => ({ 200: dataList(AccountRecord) }) }, ({ ctx }) => ok(ctx.control.accounts.list())),
  controlRoute('POST', '/accounts', { body: AccountInput, responses: () => ({ 201: AccountRecord }) }, ({ ctx, body }) => ok(ctx.control.accounts.create(body), 201)),
  controlRoute('PATCH', '/accounts/:id', { body: AccountPatch, responses: () => ({ 200: AccountRecord }) }, ({ ctx, body, params }) => ok(ctx.control.accounts.patch(pathId(params.id), body))),
  controlRoute('POST', '/phone-numbers', { body: InsertNumberBody, responses: () => ({ 201: PhoneNumberRecord }) }, ({ ctx, body }) => ok(ctx.control.phoneNumbers.add(body), 201)),
  controlRoute('POST', '/calls', { body: InsertCallBody, responses: () => ({ 201: CallRecord }) }, ({ ctx, body }) => ok(ctx.control.calls.insert(body), 201)),
  controlRoute('POST', '/calls/inbound', { body: InboundCallBody, responses: () => ({ 201: z.object({ call_id: integer() }) }) }, ({ ctx, body }) => ok(ctx.control.calls.inbound(body), 201)),
  controlRoute('PUT', '/outcomes', { body: OutcomeRulesBody, responses: () => ({ 200: OutcomeRulesBody }) }, ({ ctx, body }) => ok(ctx.control.outcomes.set(body))),
  controlRoute('GET', '/outcomes', { responses: () => ({ 200: OutcomeRulesBody }) }, ({ ctx }) => ok(ctx.control.outcomes.list())),
  controlRoute('GET', '/charges', { query: ChargesQuery, responses: () => ({ 200: dataList(ChargeRecord) }) }, ({ ctx, query }) => ok(ctx.control.charges.list(query))),
  controlRoute('GET', '/documents', { query: DocumentsQuery, responses: () => ({ 200: dataList(StoredDocumentRecord) }) }, ({ ctx, query }) => ok(ctx.control.documents.list(query))),
  controlRoute('GET', '/sms', { query: ChargesQuery, responses: () => ({ 200: dataList(SmsRecord) }) }, ({ ctx, query }) => ok(ctx.control.sms.list(query))),
  controlRoute('POST', '/webhooks/failures', { body: WebhookFailureBody, responses: () => ({ 201: FailureRuleRecord }) }, ({ ctx, body }) => ok(ctx.control.webhooks.failNext(body), 201)),
  controlRoute('GET', '/webhooks/failures', { responses: () => ({ 200: dataList(FailureRuleRecord) }) }, ({ ctx }) => ok(ctx.control.webhooks.failures())),
  controlRoute('DELETE', '/webhooks/failures', { responses: () => ({ 200: OkAnswer }) }, ({ ctx }) => ok(ctx.control.webhooks.clearFailures())),
  controlRoute('POST', '/webhooks/deliveries/:id/resend', { responses: () => ({ 201: DeliveryRecord }) }, ({ ctx, params }) => ok(ctx.control.webhooks.resend(pathId(params.id)), 201)),
  controlRoute('GET', '/webhooks/deliveries', { query: DeliveriesQuery, responses: () => ({ 200: z.object({ data: z.array(DeliveryRecord), evicted: integer() }) }) }, ({ ctx, query }) => ok(ctx.control.webhooks.deliveries(query))),
  controlRoute('GET', '/tool-calls', { query: ToolCallsQuery, responses: () => ({ 200: ToolCallsAnswer }) }, ({ ctx, query }) => ok(ctx.control.toolCalls.list(query))),
  controlRoute('POST', '/tools/:id/test', { responses: () => ({ 200: ToolCallRecord }) }, async ({ ctx, params }) => ok(await ctx.control.tools.test(pathId(params.id)))),
  controlRoute('PUT', '/replies', { body: ReplyRulesBody, responses: () => ({ 200: ReplyRulesBody }) }, ({ ctx, body }) => ok(ctx.control.replies.set(body))),
  controlRoute('GET', '/replies', { responses: () => ({ 200: ReplyRulesBody }) }, ({ ctx }) => ok(ctx.control.replies.list())),
  controlRoute('POST', '/msgapp/inbound', { body: InboundBody, responses: () => ({ 201: InboundAnswer }) }, ({ ctx, body }) => ok(ctx.control.msgapp.inbound(body), 201)),
  controlRoute('PATCH', '/msgapp/senders/:id', { body: SenderPatchBody, responses: () => ({ 200: ControlSenderRecord }) }, ({ ctx, body, params }) => ok(ctx.control.msgapp.patchSender(pathId(params.id), body))),
  controlRoute('GET', '/msgapp/senders', { query: ChargesQuery, responses: () => ({ 200: dataList(ControlSenderRecord) }) }, ({ ctx, query }) => ok(ctx.control.msgapp.senders(query))),
  controlRoute('POST', '/msgapp/senders', { body: CreateSenderBody, responses: () => ({ 201: ControlSenderRecord }) }, ({ ctx, body }) => ok(ctx.control.msgapp.createSender(body), 201)),
  controlRoute('POST', '/msgapp/senders/:id/test-receipt', { responses: () => ({ 201: z.object({ delivery_id: integer() }) }) }, ({ ctx, params }) => ok(ctx.control.msgapp.testReceipt(pathId(params.id)), 201)),
  controlRoute('POST', '/msgapp/templates', { body: CreateTemplateBody, responses: () => ({ 201: ControlTemplateRecord }) }, ({ ctx, body }) => ok(ctx.control.msgapp.createTemplate(body), 201)),
  controlRoute('PATCH', '/msgapp/templates/:id', { body: TemplatePatchBody, responses: () => ({ 200: ControlTemplateRecord }) }, ({ ctx, body, params }) => ok(ctx.control.msgapp.patchTemplate(pathId(params.id), body))),
  controlRoute('GET', '/msgapp/messages', { query: ChannelMessagesQuery, responses: () => ({ 200: dataList(ChannelMessageRecord) }) }, ({ ctx, query }) => ok(ctx.control.msgapp.messages(query))),
  controlRoute('PUT', '/msgapp/outcomes', { body: MessageOutcomeRulesBody, responses: () => ({ 200: MessageOutcomeRulesBody }) }, ({ ctx, body }) => ok(ctx.control.msgapp.outcomes.set(body))),
  controlRoute('GET', '/msgapp/outcomes', { responses: () => ({ 200: MessageOutcomeRulesBody }) }, ({ ctx }) => ok(ctx.control.msgapp.outcomes.list())),
  controlRoute('GET', '/catalog', { responses: () => ({ 200: CatalogDocument }) }, ({ ctx }) => ok(ctx.control.catalog.get())),
  controlRoute('PUT', '/catalog', { body: CatalogDocument, responses: () => ({ 200: CatalogDocument }) }, ({ ctx, body }) => ok(ctx.control.catalog.set(body))),
  controlRoute('GET', '/faults', { responses: () => ({ 200: dataList(FaultRuleRecord) }) }, ({ ctx }) => ok(ctx.control.faults.list())),
  controlRoute('POST', '/faults', { body: FaultBody, responses: () => ({ 201: FaultRuleRecord }) }, ({ ctx, body }) => ok(ctx.control.faults.add(body), 201)),
  controlRoute('DELETE', '/faults', { responses: () => ({ 200: OkAnswer }) }, ({ ctx }) => ok(ctx.control.faults.clear())),
];
