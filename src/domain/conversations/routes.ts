/**
 * Conversation operations (spec: Conversations; Conversation-ended webhook switches;
 * decisions: Create/Get conversation, AI on / off, Chat message endpoint credentials).
 */
import { defineRoute, ok } from '../../core/http.js';
import { paginate } from '../../core/pagination.js';
import { userRoute, type RouteCtx } from '../routing.js';
import {
  ConversationListQuery,
  CreateConversationBody,
  EnableEndedWebhookBody,
  SendMessageBody,
  serialiseConversation,
  type Conversation,
} from './schema.js';
import {
  CONVERSATION_MESSAGES,
  disableEndedWebhook,
  enableEndedWebhook,
  listConversations,
  postMessage,
  readConversation,
  setAi,
  startConversation,
} from './service.js';
import type { AccountCtx } from '../context.js';

function conversationView(ctx: AccountCtx) {
  return (c: Conversation) => serialiseConversation(c, c.assistant_id === null ? undefined : ctx.assistants.get(c.assistant_id));
}

export const conversationRoutes = [
  defineRoute<RouteCtx, { assistant_id: string; type: 'widget' | 'test' | 'api'; variables?: Record<string, unknown> }>({
    method: 'POST', path: '/conversations', family: 'chat', auth: 'none', body: CreateConversationBody,
    handle: ({ ctx, body }) => ok(startConversation(ctx.state, body)),
  }),
  defineRoute<RouteCtx>({
    method: 'GET', path: '/conversations/:uuid', family: 'chat', auth: 'none',
    handle: ({ ctx, params }) => ok(readConversation(ctx.state, params.uuid!)),
  }),
  defineRoute<RouteCtx, { message: string }>({
    method: 'POST', path: '/conversations/:uuid/messages', family: 'chat', auth: 'none', body: SendMessageBody,
    handle: ({ ctx, params, body }) => ok(postMessage(ctx.state, params.uuid!, body.message)),
  }),
  userRoute({
    method: 'GET', path: '/user/conversations', query: ConversationListQuery,
    handle: ({ ctx, query }) => ok(paginate(listConversations(ctx, query), query.page, query.per_page, conversationView(ctx))),
  }),
  userRoute({
    method: 'POST', path: '/automate/conversations/:uuid/enable-ai', family: 'chat',
    handle: ({ ctx, params }) => ok({ status: true, ai_enabled: setAi(ctx, params.uuid!, true).ai_enabled }),
  }),
  userRoute({
    method: 'POST', path: '/automate/conversations/:uuid/disable-ai', family: 'chat',
    handle: ({ ctx, params }) => ok({ status: true, ai_enabled: setAi(ctx, params.uuid!, false).ai_enabled }),
  }),
  userRoute({
    method: 'POST', path: '/assistants/:assistantId/enable-conversation-ended-webhook', body: EnableEndedWebhookBody,
    handle: ({ ctx, params, body }) => (enableEndedWebhook(ctx, params.assistantId!, body.webhook_url), ok({ message: CONVERSATION_MESSAGES.webhookEnabled, data: [] })),
  }),
  userRoute({
    method: 'POST', path: '/assistants/:assistantId/disable-conversation-ended-webhook',
    handle: ({ ctx, params }) => (disableEndedWebhook(ctx, params.assistantId!), ok({ message: CONVERSATION_MESSAGES.webhookDisabled, data: [] })),
  }),
];
