/** Assistant operations (spec: Endpoints > Assistants; decisions: routes without a path). */
import { ok } from '../../core/http.js';
import { paginate } from '../../core/pagination.js';
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
} from './schema.js';
import { createAssistant, deleteAssistant, findAssistant, listAssistants, listOutboundAssistants, setInboundWebhook, setPostCallWebhook, updateAssistant } from './service.js';

export const assistantRoutes = [
  userRoute({
    method: 'POST', path: '/user/assistant', body: CreateAssistantBody,
    handle: ({ ctx, body }) => ok({ message: ASSISTANT_MESSAGES.created, data: serialiseAssistantSummary(createAssistant(ctx, body)) }, 201),
  }),
  userRoute({
    method: 'PUT', path: '/user/assistant/:id', body: UpdateAssistantBody,
    handle: ({ ctx, body, params }) => ok({ message: ASSISTANT_MESSAGES.updated, data: serialiseAssistantSummary(updateAssistant(ctx, pathId(params.id), body)) }),
  }),
  userRoute({
    method: 'DELETE', path: '/user/assistant/:id', failure: assistantErrors.deleteFailed,
    handle: ({ ctx, params }) => (deleteAssistant(ctx, pathId(params.id)), ok({ message: ASSISTANT_MESSAGES.deleted })),
  }),
  userRoute({
    method: 'GET', path: '/user/assistant/:id',
    handle: ({ ctx, params }) => ok({ data: serialiseAssistant(findAssistant(ctx, pathId(params.id))) }),
  }),
  userRoute({
    method: 'GET', path: '/user/assistants/get', query: AssistantListQuery,
    handle: ({ ctx, query }) => ok(paginate(listAssistants(ctx), query.page, query.per_page, serialiseAssistant)),
  }),
  userRoute({
    method: 'GET', path: '/user/assistants/outbound',
    handle: ({ ctx }) => ok(listOutboundAssistants(ctx).map(serialiseAssistant)),
  }),
  // live-platform B: the bare list of read records, and the webhook switches that name their assistant in the body.
  userRoute({
    method: 'GET', path: '/user/assistants',
    handle: ({ ctx }) => ok(listAssistants(ctx).map(serialiseAssistant)),
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
