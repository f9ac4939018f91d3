/** Assistant operations (spec: Endpoints > Assistants; decisions: routes without a path). */
import { ok, selfPath } from '../../core/http.js';
import { paginate } from '../../core/pagination.js';
import { say } from '../../core/wire.js';
import type { AccountCtx } from '../context.js';
import { pathId } from '../ids.js';
import { userRoute } from '../routing.js';
import { ASSISTANT_MESSAGES, assistantErrors } from './errors.js';
import {
  AssistantListQuery,
  AssistantSwitchBody,
  AssistantWebhookBody,
  CreateAssistantBody,
  UpdateAssistantBody,
  serialiseAssistant,
  serialiseAssistantSummary,
  type Assistant,
} from './schema.js';
import { createAssistant, deleteAssistant, findAssistant, listAssistants, listOutboundAssistants, setInboundWebhook, setPostCallWebhook, updateAssistant } from './service.js';

/** The read record in the request's wire (live-platform D.3). */
function readRecord(ctx: AccountCtx) {
  return (assistant: Assistant) => serialiseAssistant(assistant, ctx.wire);
}

export const assistantRoutes = [
  // live-platform D.5: a failed create or update says "Validation failed" on the live wire.
  userRoute({
    method: 'POST', path: '/user/assistant', body: CreateAssistantBody, liveInvalid: ASSISTANT_MESSAGES.invalid,
    handle: ({ ctx, body }) => ok({ message: say(ctx.wire, ASSISTANT_MESSAGES.created), data: serialiseAssistantSummary(createAssistant(ctx, body)) }, 201),
  }),
  userRoute({
    method: 'PUT', path: '/user/assistant/:id', body: UpdateAssistantBody, liveInvalid: ASSISTANT_MESSAGES.invalid,
    handle: ({ ctx, body, params }) => ok({ message: say(ctx.wire, ASSISTANT_MESSAGES.updated), data: serialiseAssistantSummary(updateAssistant(ctx, pathId(params.id), body)) }),
  }),
  userRoute({
    method: 'DELETE', path: '/user/assistant/:id', failure: assistantErrors.deleteFailed,
    handle: ({ ctx, params }) => (deleteAssistant(ctx, pathId(params.id)), ok({ message: say(ctx.wire, ASSISTANT_MESSAGES.deleted) })),
  }),
  userRoute({
    method: 'GET', path: '/user/assistant/:id',
    handle: ({ ctx, params }) => ok({ data: readRecord(ctx)(findAssistant(ctx, pathId(params.id))) }),
  }),
  userRoute({
    method: 'GET', path: '/user/assistants/get', query: AssistantListQuery,
    handle: ({ ctx, query, request }) => ok(paginate(listAssistants(ctx), query.page, query.per_page, readRecord(ctx), { wire: ctx.wire, path: selfPath(request) })),
  }),
  userRoute({
    method: 'GET', path: '/user/assistants/outbound',
    handle: ({ ctx }) => ok(listOutboundAssistants(ctx).map(readRecord(ctx))),
  }),
  // live-platform B: the bare list of read records, and the webhook switches that name their assistant in the body.
  userRoute({
    method: 'GET', path: '/user/assistants',
    handle: ({ ctx }) => ok(listAssistants(ctx).map(readRecord(ctx))),
  }),
  userRoute({
    method: 'POST', path: '/user/assistants/enable-inbound-webhook', body: AssistantWebhookBody,
    handle: ({ ctx, body }) => (setInboundWebhook(ctx, body.assistant_id, body.webhook_url), ok({ message: ASSISTANT_MESSAGES.webhookEnabled, data: [] })),
  }),
  userRoute({
    method: 'POST', path: '/user/assistants/disable-inbound-webhook', body: AssistantSwitchBody,
    handle: ({ ctx, body }) => (setInboundWebhook(ctx, body.assistant_id, null), ok({ message: ASSISTANT_MESSAGES.inboundWebhookDisabled, data: [] })),
  }),
  userRoute({
    method: 'POST', path: '/user/assistants/enable-webhook', body: AssistantWebhookBody,
    handle: ({ ctx, body }) => (setPostCallWebhook(ctx, body.assistant_id, body.webhook_url), ok({ message: ASSISTANT_MESSAGES.webhookEnabled, data: [] })),
  }),
  userRoute({
    method: 'POST', path: '/user/assistants/disable-webhook', body: AssistantSwitchBody,
    handle: ({ ctx, body }) => (setPostCallWebhook(ctx, body.assistant_id, null), ok({ message: ASSISTANT_MESSAGES.webhookDisabled, data: [] })),
  }),
];
