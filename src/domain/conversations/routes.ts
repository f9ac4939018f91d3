/**
 * Conversation operations (spec: Conversations; Conversation-ended webhook switches;
 * decisions: Create/Get conversation, AI on / off, Chat message endpoint credentials).
 */
import { MessageEmptyData, perWire } from '../../core/answers.js';
import { alias, defineRoute, ok, selfPath } from '../../core/http.js';
import { say } from '../../core/wire.js';
import { userRoute, type RouteCtx } from '../routing.js';
import {
  AiSwitched,
  ConversationListQueryDoc,
  ConversationPage,
  ConversationReadRecord,
  ConversationStarted,
  CreateConversationBody,
  EnableEndedWebhookBody,
  GenerateReplyBody,
  GeneratedReply,
  LiveConversationReadRecord,
  MessageReply,
  SendMessageBody,
} from './schema.js';
import {
  CONVERSATION_MESSAGES,
  checkReplyRate,
  disableEndedWebhook,
  generateReply,
  enableEndedWebhook,
  pageConversations,
  postMessage,
  readConversation,
  setAi,
  startConversation,
} from './service.js';
import { AssistantSwitchBody, AssistantWebhookBody } from '../assistants/schema.js';

const generateReplyRoute = userRoute({
  method: 'POST', path: '/user/ai/generate-reply', body: GenerateReplyBody, guard: checkReplyRate, responses: () => ({ 200: GeneratedReply }),
  handle: async ({ ctx, body }) => ok(await generateReply(ctx, body)),
});

export const conversationRoutes = [
  // live-platform B.1: both spellings share one operation and one rate-limit bucket.
  generateReplyRoute,
  alias(generateReplyRoute, 'POST', '/ai/generate-reply'),
  defineRoute<RouteCtx, { assistant_id: string; type: 'widget' | 'test' | 'api'; variables?: Record<string, unknown> }>({
    method: 'POST', path: '/conversations', family: 'chat', auth: 'none', body: CreateConversationBody, responses: () => ({ 200: ConversationStarted }),
    handle: ({ ctx, body }) => ok(startConversation(ctx.state, body)),
  }),
  defineRoute<RouteCtx>({
    method: 'GET', path: '/conversations/:uuid', family: 'chat', auth: 'none', responses: () => ({ 200: perWire(ConversationReadRecord, LiveConversationReadRecord) }),
    handle: ({ ctx, params }) => ok(readConversation(ctx.state, params.uuid!)),
  }),
  defineRoute<RouteCtx, { message: string }>({
    method: 'POST', path: '/conversations/:uuid/messages', family: 'chat', auth: 'none', body: SendMessageBody, responses: () => ({ 200: MessageReply }),
    handle: async ({ ctx, params, body }) => ok(await postMessage(ctx.state, params.uuid!, body.message)),
  }),
  userRoute({
    // live-platform A.2: the query's rules and the list's form depend on the wire, so the query is read per request.
    method: 'GET', path: '/user/conversations', doc: { query: ConversationListQueryDoc }, responses: () => ({ 200: ConversationPage }),
    handle: ({ ctx, request }) => ok(pageConversations(ctx, request.query, selfPath(request))),
  }),
  userRoute({
    method: 'POST', path: '/automate/conversations/:uuid/enable-ai', family: 'chat', responses: () => ({ 200: AiSwitched }),
    handle: ({ ctx, params }) => ok({ status: true, ai_enabled: setAi(ctx, params.uuid!, true).ai_enabled }),
  }),
  userRoute({
    method: 'POST', path: '/automate/conversations/:uuid/disable-ai', family: 'chat', responses: () => ({ 200: AiSwitched }),
    handle: ({ ctx, params }) => ok({ status: true, ai_enabled: setAi(ctx, params.uuid!, false).ai_enabled }),
  }),
  userRoute({
    method: 'POST', path: '/assistants/:assistantId/enable-conversation-ended-webhook', body: EnableEndedWebhookBody, responses: () => ({ 200: MessageEmptyData }),
    handle: ({ ctx, params, body }) => (enableEndedWebhook(ctx, params.assistantId!, body.webhook_url), ok({ message: say(ctx.wire, CONVERSATION_MESSAGES.webhookEnabled), data: [] })),
  }),
  userRoute({
    method: 'POST', path: '/assistants/:assistantId/disable-conversation-ended-webhook', responses: () => ({ 200: MessageEmptyData }),
    handle: ({ ctx, params }) => (disableEndedWebhook(ctx, params.assistantId!), ok({ message: say(ctx.wire, CONVERSATION_MESSAGES.webhookDisabled), data: [] })),
  }),
  // live-platform A.1: the same switches with the assistant id in the body.
  userRoute({
    method: 'POST', path: '/user/assistants/enable-conversation-ended-webhook', body: AssistantWebhookBody, responses: () => ({ 200: MessageEmptyData }),
    handle: ({ ctx, body }) => (enableEndedWebhook(ctx, body.assistant_id, body.webhook_url), ok({ message: say(ctx.wire, CONVERSATION_MESSAGES.webhookEnabled), data: [] })),
  }),
  userRoute({
    method: 'POST', path: '/user/assistants/disable-conversation-ended-webhook', body: AssistantSwitchBody, responses: () => ({ 200: MessageEmptyData }),
    handle: ({ ctx, body }) => (disableEndedWebhook(ctx, body.assistant_id), ok({ message: say(ctx.wire, CONVERSATION_MESSAGES.webhookDisabled), data: [] })),
  }),
];
