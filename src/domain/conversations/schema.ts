/** Chat conversations (spec: Conversation; Conversations endpoints; decisions: Create/Get conversation, AI on / off). */
import { z } from 'zod';
import type { FunctionCall } from '../../engine/replies.js';
import { AssistantRef } from '../assistants/schema.js';
import { pageQuery } from '../../core/pagination.js';
import { fromMicros } from '../../core/money.js';
import { formatSqlUtc } from '../../core/time.js';
import { RULE_MESSAGES, freeObject, int, isPlainObject, oneOf, queryInt, url } from '../../core/validation.js';
import { DATES_ORDER_ERROR, dateFilters, datesInOrder } from '../leads/schema.js';

export const CONVERSATION_TYPES = ['test', 'widget', 'msgapp', 'api'] as const;
export type ConversationType = (typeof CONVERSATION_TYPES)[number];
/** The chat message limit (spec: Limits: chat message). */
export const CHAT_MESSAGE_MAX = 2000;

export type { FunctionCall };

export interface Conversation {
  id: number;
  account_id: number;
  uuid: string;
  assistant_id: number | null;
  type: ConversationType;
  status: 'active' | 'ended';
  ai_enabled: boolean;
  message_count: number;
  total_cost_micros: number;
  /** Variables given at the start (pre-chat form data). */
  input_variables: Record<string, unknown>;
  /** Variables set by the assistant's replies, extracted at the end. */
  variables: Record<string, unknown>;
  customer_phone: string | null;
  customer_name: string | null;
  sender_id: number | null;
  /** The customer identifier of an AI reply generation conversation (live-platform B.1); absent in older snapshots. */
  external_identifier?: string | null;
  /** How many times inactivity ended it. */
  ended_count: number;
  ended_at: number | null;
  inactivity_event_id: number | null;
  created_at: number;
  updated_at: number;
}

export interface ChatMessage {
  id: number;
  account_id: number;
  conversation_id: number;
  role: 'assistant' | 'user';
  content: string;
  function_calls: FunctionCall[] | null;
  created_at: number;
}

export const CreateConversationBody = z.object({
  assistant_id: z.string().min(1),
  type: oneOf(['widget', 'test', 'api']).default('widget'),
  variables: freeObject().optional(),
});

export const SendMessageBody = z.object({
  message: z
    .string()
    .min(1)
    .max(CHAT_MESSAGE_MAX, { error: RULE_MESSAGES.maxString.replace(':max', String(CHAT_MESSAGE_MAX)) }),
});

const exactText = () => z.string().max(255, { error: RULE_MESSAGES.maxString.replace(':max', '255') }).optional();

/**
 * The list's query (spec: List conversations; live-platform A.2): with a `cursor`
 * parameter, even an empty one, the cursor form answers and `page` is ignored.
 */
export const ConversationListQuery = z.preprocess(
  (q) => (isPlainObject(q) && q.cursor !== undefined ? { ...q, page: undefined } : q),
  pageQuery(15)
    .extend({
      type: oneOf(CONVERSATION_TYPES).optional(),
      assistant_id: queryInt().pipe(int()).optional(),
      cursor: z.string().optional(),
      customer_phone: exactText(),
      external_identifier: exactText(),
      whatsapp_sender_phone: exactText(),
      msgapp_sender_phone: exactText(),
      ...dateFilters,
    })
    .refine(datesInOrder, DATES_ORDER_ERROR),
);
export type ConversationListQuery = z.infer<typeof ConversationListQuery>;

/** `POST /user/ai/generate-reply` and `POST /ai/generate-reply` (live-platform B.1). */
export const GenerateReplyBody = z.object({
  assistant_id: AssistantRef,
  customer_identifier: z.string().min(1).max(255, { error: RULE_MESSAGES.maxString.replace(':max', '255') }),
  message: SendMessageBody.shape.message,
  variables: freeObject().optional(),
});
export type GenerateReplyBody = z.infer<typeof GenerateReplyBody>;

/** The enable switch's body (decisions: Conversation-ended switches: 422 when missing or not a URL). */
export const EnableEndedWebhookBody = z.object({ webhook_url: url() });

/** A message as `history` shows it; `function_calls` only on replies that made some. */
export function serialiseMessage(m: ChatMessage) {
  return m.function_calls && m.function_calls.length > 0
    ? { role: m.role, content: m.content, function_calls: structuredClone(m.function_calls) }
    : { role: m.role, content: m.content };
}

/** A conversation in the list (spec: Conversation table). */
export function serialiseConversation(c: Conversation, assistant: { uuid: string; name: string } | undefined) {
  return {
    id: c.uuid,
    assistant_id: assistant?.uuid ?? null,
    assistant_name: assistant?.name ?? null,
    type: c.type,
    message_count: c.message_count,
    total_cost: fromMicros(c.total_cost_micros),
    ai_enabled: c.ai_enabled,
    created_at: formatSqlUtc(c.created_at),
    updated_at: formatSqlUtc(c.updated_at),
  };
}

