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
  serialiseMessage,
  type Conversation,
} from './schema.js';
import {
  CONVERSATION_MESSAGES,
  createConversation,
  disableEndedWebhook,
  enableEndedWebhook,
  historyOf,
  listConversations,
  locateAssistant,
  locateConversation,
  receiveMessage,
  setAi,
} from './service.js';
import type { AccountCtx } from '../context.js';

function conversationView(ctx: AccountCtx) {
  return (c: Conversation) => serialiseConversation(c, c.assistant_id === null ? undefined : ctx.assistants.get(c.assistant_id));
}

export const conversationRoutes = [
  defineRoute<RouteCtx, { assistant_id: string; type: 'widget' | 'test' | 'api'; variables?: Record<string, unknown> }>({
    method: 'POST', path: '/conversations', family: 'chat', auth: 'none', body: CreateConversationBody,
    handle: ({ ctx, body }) => {
      const { ctx: scope, assistant } = locateAssistant(ctx.sim, body.assistant_id);
      const conversation = createConversation(scope, assistant, body);
      return ok({ status: true, conversation_id: conversation.uuid, history: historyOf(scope, conversation).map(serialiseMessage) });
    },
  }),
  defineRoute<RouteCtx>({
    method: 'GET', path: '/conversations/:uuid', family: 'chat', auth: 'none',
    handle: ({ ctx, params }) => {
      const { ctx: scope, conversation } = locateConversation(ctx.sim, params.uuid!);
      return ok({ status: true, history: historyOf(scope, conversation).map(serialiseMessage), variables: { ...conversation.input_variables, ...conversation.variables } });
    },
  }),
  defineRoute<RouteCtx, { message: string }>({
    method: 'POST', path: '/conversations/:uuid/messages', family: 'chat', auth: 'none', body: SendMessageBody,
    handle: ({ ctx, params, body }) => {
      const { ctx: scope, conversation } = locateConversation(ctx.sim, params.uuid!);
      const outcome = receiveMessage(scope, conversation, body.message);
      return ok({ status: true, message: outcome.reply, function_calls: outcome.function_calls });
    },
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
