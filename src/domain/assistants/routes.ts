/** Assistant operations (spec: Endpoints > Assistants; decisions: routes without a path). */
import * as z from 'zod';
import { MessageAnswer, MessageEmptyData, perWire, withMessage } from '../../core/answers.js';
import { ok, selfPath } from '../../core/http.js';
import { laravelPageSchema, pageSchema, paginate } from '../../core/pagination.js';
import { say } from '../../core/wire.js';
import type { AccountCtx } from '../context.js';
import { pathId } from '../ids.js';
import { userRoute } from '../routing.js';
import { ASSISTANT_MESSAGES, assistantErrors, liveInvalid } from './errors.js';
import {
  BareListQueryDoc,
  AssistantListQuery,
  AssistantRecord,
  AssistantSummaryRecord,
  LiveAssistantRecord,
  AssistantSwitchBody,
  AssistantWebhookBody,
  CreateAssistantBody,
  UpdateAssistantBody,
  serialiseAssistant,
  serialiseAssistantSummary,
  type Assistant,
} from './schema.js';
import { createAssistant, deleteAssistant, findAssistant, listAssistants, listOutboundAssistants, setInboundWebhook, setPostCallWebhook, updateAssistant } from './service.js';
import { lazySchema } from '../../core/lazy-schema.js';

/** The read record in the request's wire (live-platform D.3). */
function readRecord(ctx: AccountCtx) {
  return (assistant: Assistant) => serialiseAssistant(assistant, ctx.wire, ctx.catalog);
}

/** The read record on either wire. */
const ReadRecord = lazySchema(() => perWire(AssistantRecord, LiveAssistantRecord));

export const assistantRoutes = [
  // live-platform D.5, G.3: a failed create or update says "Validation failed" on the live wire, with the reference's texts.
  userRoute({
    method: 'POST', path: '/user/assistant', body: CreateAssistantBody, liveInvalid: liveInvalid('create'), responses: () => ({ 201: withMessage(AssistantSummaryRecord) }),
    handle: ({ ctx, body }) => ok({ message: say(ctx.wire, ASSISTANT_MESSAGES.created), data: serialiseAssistantSummary(createAssistant(ctx, body)) }, 201),
  }),
  userRoute({
    method: 'PUT', path: '/user/assistant/:id', body: UpdateAssistantBody, liveInvalid: liveInvalid('update'), responses: () => ({ 200: withMessage(AssistantSummaryRecord) }),
    handle: ({ ctx, body, params }) => ok({ message: say(ctx.wire, ASSISTANT_MESSAGES.updated), data: serialiseAssistantSummary(updateAssistant(ctx, pathId(params.id), body)) }),
  }),
  userRoute({
    method: 'DELETE', path: '/user/assistant/:id', failure: assistantErrors.deleteFailed, responses: () => ({ 200: MessageAnswer }),
    handle: ({ ctx, params }) => (deleteAssistant(ctx, pathId(params.id)), ok({ message: say(ctx.wire, ASSISTANT_MESSAGES.deleted) })),
  }),
  userRoute({
    method: 'GET', path: '/user/assistant/:id', responses: () => ({ 200: z.object({ data: ReadRecord }) }),
    handle: ({ ctx, params }) => ok({ data: readRecord(ctx)(findAssistant(ctx, pathId(params.id))) }),
  }),
  userRoute({
    method: 'GET', path: '/user/assistants/get', query: AssistantListQuery,
    responses: () => ({ 200: perWire(pageSchema(AssistantRecord), laravelPageSchema(LiveAssistantRecord)) }),
    handle: ({ ctx, query, request }) => ok(paginate(listAssistants(ctx), query.page, query.per_page, readRecord(ctx), { wire: ctx.wire, path: selfPath(request) })),
  }),
  userRoute({
    method: 'GET', path: '/user/assistants/outbound', responses: () => ({ 200: z.array(ReadRecord) }),
    handle: ({ ctx }) => ok(listOutboundAssistants(ctx).map(readRecord(ctx))),
  }),
  // live-platform B: the bare list of read records, and the webhook switches that name their assistant in the body.
  userRoute({
    method: 'GET', path: '/user/assistants', doc: { query: BareListQueryDoc }, responses: () => ({ 200: z.array(ReadRecord) }),
    handle: ({ ctx }) => ok(listAssistants(ctx).map(readRecord(ctx))),
  }),
  userRoute({
    method: 'POST', path: '/user/assistants/enable-inbound-webhook', body: AssistantWebhookBody, responses: () => ({ 200: MessageEmptyData }),
    handle: ({ ctx, body }) => (setInboundWebhook(ctx, body.assistant_id, body.webhook_url), ok({ message: ASSISTANT_MESSAGES.webhookEnabled, data: [] })),
  }),
  userRoute({
    method: 'POST', path: '/user/assistants/disable-inbound-webhook', body: AssistantSwitchBody, responses: () => ({ 200: MessageEmptyData }),
    handle: ({ ctx, body }) => (setInboundWebhook(ctx, body.assistant_id, null), ok({ message: ASSISTANT_MESSAGES.inboundWebhookDisabled, data: [] })),
  }),
  userRoute({
    method: 'POST', path: '/user/assistants/enable-webhook', body: AssistantWebhookBody, responses: () => ({ 200: MessageEmptyData }),
    handle: ({ ctx, body }) => (setPostCallWebhook(ctx, body.assistant_id, body.webhook_url), ok({ message: ASSISTANT_MESSAGES.webhookEnabled, data: [] })),
  }),
  userRoute({
    method: 'POST', path: '/user/assistants/disable-webhook', body: AssistantSwitchBody, responses: () => ({ 200: MessageEmptyData }),
    handle: ({ ctx, body }) => (setPostCallWebhook(ctx, body.assistant_id, null), ok({ message: ASSISTANT_MESSAGES.webhookDisabled, data: [] })),
  }),
];
