/** Chat conversations (spec: Conversation; Conversations endpoints; decisions: Create/Get conversation, AI on / off). */
import * as z from 'zod';
import { integer, jsonObject, offsetTimestamp, sqlTimestamp } from '../../core/answers.js';
import type { FunctionCall } from '../../engine/replies.js';
import type { InboundMedia } from '../msgapp/schema.js';
import { documentedAs } from '../../core/documented.js';
import { AssistantRef } from '../assistants/schema.js';
import { cursorPageSchema, pageQuery, pageSchema } from '../../core/pagination.js';
import { fromMicros } from '../../core/money.js';
import { formatSqlUtc } from '../../core/time.js';
import { RULE_MESSAGES, freeObject, int, isPlainObject, oneOf, parseInput, queryInt, url } from '../../core/validation.js';
import type { Wire } from '../../core/wire.js';
import { DATES_ORDER_ERROR, dateFilters, datesInOrder } from '../leads/schema.js';
import { lazySchema, once } from '../../core/lazy-schema.js';

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
  /**
   * The platform's own notes (a human taking over, the AI resuming: live-platform H.3), each
   * after the message whose id is `after` (0: before any). Kept beside the messages, not among
   * them, so they take no message id and no history shows them; absent when none.
   */
  system_notes?: SystemNote[];
}

export interface SystemNote {
  content: string;
  at: number;
  after: number;
}

export interface ChatMessage {
  id: number;
  account_id: number;
  conversation_id: number;
  role: 'assistant' | 'user';
  content: string;
  function_calls: FunctionCall[] | null;
  created_at: number;
  /** A customer's media or voice note (live-platform H.6), absent when none. */
  media?: InboundMedia;
}

export const CreateConversationBody = lazySchema(() => z.object({
  assistant_id: z.string().min(1),
  type: oneOf(['widget', 'test', 'api']).default('widget'),
  variables: freeObject().optional(),
}));

export const SendMessageBody = lazySchema(() => z.object({
  message: z
    .string()
    .min(1)
    .max(CHAT_MESSAGE_MAX, { error: RULE_MESSAGES.maxString.replace(':max', String(CHAT_MESSAGE_MAX)) }),
}));

const exactText = () => z.string().max(255, { error: RULE_MESSAGES.maxString.replace(':max', '255') }).optional();

/** The list's filters after `type` (spec: List conversations; live-platform A.2). */
const listFilters = once(() => ({
  assistant_id: queryInt().pipe(int()).optional(),
  cursor: z.string().optional(),
  customer_phone: exactText(),
  external_identifier: exactText(),
  whatsapp_sender_phone: exactText(),
  msgapp_sender_phone: exactText(),
  ...dateFilters(),
}));

/**
 * The list's query (spec: List conversations; live-platform A.2): with a `cursor`
 * parameter, even an empty one, the cursor form answers and `page` is ignored.
 */
export const ConversationListQuery = lazySchema(() => z.preprocess(
  (q) => (isPlainObject(q) && q.cursor !== undefined ? { ...q, page: undefined } : q),
  pageQuery(15)
    .extend({ type: oneOf(CONVERSATION_TYPES).optional(), ...listFilters() })
    .refine(datesInOrder, DATES_ORDER_ERROR),
));
export type ConversationListQuery = z.infer<typeof ConversationListQuery>;

/**
 * live-platform A.2: the live wire always answers the cursor form, so `page` is always
 * ignored, and it takes its own channel word as a type (`whatsapp` for `msgapp`, Rule 4).
 */
const LiveConversationListQuery = lazySchema(() => z.preprocess(
  (q) => (isPlainObject(q) ? { ...q, page: undefined } : q),
  pageQuery(15)
    .extend({
      type: oneOf([...CONVERSATION_TYPES, 'whatsapp'])
        .optional()
        .transform((type): ConversationType | undefined => (type === 'whatsapp' ? 'msgapp' : type)),
      ...listFilters(),
    })
    .refine(datesInOrder, DATES_ORDER_ERROR),
));

/**
 * The list's query as the OpenAPI document shows it: what either wire takes, as one
 * document serves both (issue 34): `whatsapp` as a type (live), and `page` as any text,
 * since the cursor form (always on the live wire) ignores it.
 */
export const ConversationListQueryDoc = lazySchema(() => pageQuery(15).extend({
  page: documentedAs(queryInt().pipe(int(1)), {
    json: {
      description: 'The page of the page form (spec wire without `cursor`), from 1; ignored, whatever it holds, in the cursor form (live-platform A.2).',
      anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string' }],
    },
  }).optional(),
  type: oneOf([...CONVERSATION_TYPES, 'whatsapp']).optional().meta({ description: '`whatsapp` is the live wire’s word for `msgapp` (live-platform Rule 4).' }),
  ...listFilters(),
}));

/**
 * The list's query read with the wire's rules (live-platform A.2). The route reads it per
 * request because a route's own query schema cannot see the wire, and one schema for both
 * would change the spec wire's 422 when `type=whatsapp` comes with another error.
 * @example readConversationListQuery('live', { type: 'whatsapp' }).type // 'msgapp'
 */
export function readConversationListQuery(wire: Wire, query: unknown): ConversationListQuery {
  return parseInput<ConversationListQuery>(wire === 'live' ? LiveConversationListQuery : ConversationListQuery, query ?? {}, 'management');
}

/** `POST /user/ai/generate-reply` and `POST /ai/generate-reply` (live-platform B.1). */
export const GenerateReplyBody = lazySchema(() => z.object({
  assistant_id: AssistantRef,
  customer_identifier: z.string().min(1).max(255, { error: RULE_MESSAGES.maxString.replace(':max', '255') }),
  message: SendMessageBody.unwrap().shape.message,
  variables: freeObject().optional(),
}));
export type GenerateReplyBody = z.infer<typeof GenerateReplyBody>;

/** The enable switch's body (decisions: Conversation-ended switches: 422 when missing or not a URL). */
export const EnableEndedWebhookBody = lazySchema(() => z.object({ webhook_url: url() }));

/** A function call of an assistant reply (spec: Other shapes: function call record). */
export const FunctionCallRecord = lazySchema(() => z.object({ name: z.string(), arguments: jsonObject(), result: jsonObject() }).meta({ id: 'FunctionCall' }));

/** A message as `history` shows it; `function_calls` only on replies that made some. */
export const ChatMessageRecord = lazySchema(() => z
  .object({ role: z.enum(['assistant', 'user']), content: z.string(), function_calls: z.array(FunctionCallRecord).optional() })
  .meta({ id: 'ChatMessage' }));
export type ChatMessageRecord = z.output<typeof ChatMessageRecord>;

/** A conversation in the list on the spec wire (spec: Conversation table; `serialiseConversation`). */
export const ConversationRecord = lazySchema(() => z
  .object({
    id: z.string(),
    assistant_id: z.string().nullable(),
    assistant_name: z.string().nullable(),
    type: z.enum(CONVERSATION_TYPES),
    message_count: integer(),
    total_cost: z.number(),
    ai_enabled: z.boolean(),
    created_at: sqlTimestamp(),
    updated_at: sqlTimestamp(),
  })
  .meta({ id: 'Conversation' }));
export type ConversationRecord = z.output<typeof ConversationRecord>;

/** live-platform D.4: the keys only the live wire shows, each only where it applies. */
const liveConversationKeys = once(() => ({
  variables: jsonObject().nullable(),
  external_identifier: z.string().optional(),
  whatsapp_sender: z.object({ name: z.string(), phone: z.string() }).nullable().optional(),
  customer: z.object({ name: z.string().nullable(), phone: z.string().nullable() }).optional(),
}));

/** A conversation in the list on the live wire (live-platform D.4: `whatsapp` for `msgapp`). */
export const LiveConversationRecord = lazySchema(() => ConversationRecord.unwrap().extend({ type: z.enum([...CONVERSATION_TYPES, 'whatsapp']), ...liveConversationKeys() }).meta({ id: 'LiveConversation' }));
export type LiveConversationRecord = z.output<typeof LiveConversationRecord>;

/** `GET /user/conversations`: the spec's page, or the cursor paginator (a `cursor` given, or the live wire: live-platform A.2). */
export const ConversationPage = lazySchema(() => z.union([pageSchema(ConversationRecord), cursorPageSchema(ConversationRecord), cursorPageSchema(LiveConversationRecord)]));

/** `GET /conversations/{uuid}` on the spec wire (decisions: Get conversation). */
export const ConversationReadRecord = lazySchema(() => z
  .object({ status: z.literal(true), history: z.array(ChatMessageRecord), variables: jsonObject() })
  .meta({ id: 'ConversationWithMessages' }));
export type ConversationReadRecord = z.output<typeof ConversationReadRecord>;

/** `GET /conversations/{uuid}` on the live wire (live-platform D.4). */
export const LiveConversationReadRecord = lazySchema(() => ConversationReadRecord.unwrap().extend(liveConversationKeys()).meta({ id: 'LiveConversationWithMessages' }));
export type LiveConversationReadRecord = z.output<typeof LiveConversationReadRecord>;

/** `POST /conversations` (decisions: Create conversation). */
export const ConversationStarted = lazySchema(() => z.object({ status: z.literal(true), conversation_id: z.string(), history: z.array(ChatMessageRecord) }));
export type ConversationStarted = z.output<typeof ConversationStarted>;

/** `POST /conversations/{uuid}/messages` (spec: Send message). */
export const MessageReply = lazySchema(() => z.object({ status: z.literal(true), message: z.string(), function_calls: z.array(FunctionCallRecord) }));
export type MessageReply = z.output<typeof MessageReply>;

/** AI reply generation (live-platform B.1). */
export const GeneratedReply = lazySchema(() => z.object({
  success: z.literal(true),
  conversation_id: z.string(),
  customer_identifier: z.string(),
  reply: z.string(),
  function_calls: z.array(FunctionCallRecord),
  ai_disabled: z.boolean(),
}));
export type GeneratedReply = z.output<typeof GeneratedReply>;

/** AI on / off (decisions: AI on / off). */
export const AiSwitched = lazySchema(() => z.object({ status: z.literal(true), ai_enabled: z.boolean() }));

/** A message as `history` shows it; `function_calls` only on replies that made some. */
export function serialiseMessage(m: ChatMessage): ChatMessageRecord {
  return m.function_calls && m.function_calls.length > 0
    ? { role: m.role, content: m.content, function_calls: structuredClone(m.function_calls) }
    : { role: m.role, content: m.content };
}

/**
 * A conversation type in the wire's words: the live platform writes `whatsapp` for
 * `msgapp` (live-platform Rule 4, D.4), in lists and in the conversation-ended payload.
 * @example channelType('msgapp', 'live') // 'whatsapp'
 */
export function channelType(type: ConversationType, wire: Wire): ConversationType | 'whatsapp' {
  return wire === 'live' && type === 'msgapp' ? 'whatsapp' : type;
}

/**
 * The conversation-ended webhook's body (spec: Events; service.ts endedPayload is typed by
 * it): on the live wire a messaging conversation's `type` is `whatsapp` (live-platform
 * D.4). Times are in the assistant's timezone.
 */
export const ConversationEndedWebhookBody = lazySchema(() => z
  .object({
    conversation_id: z.string(),
    assistant_id: z.string(),
    type: z.enum([...CONVERSATION_TYPES, 'whatsapp']),
    message_count: integer(),
    status: z.literal('ended'),
    extracted_variables: jsonObject(),
    input_variables: jsonObject(),
    transcript: z.array(z.object({ role: z.enum(['user', 'assistant']), content: z.string() })),
    formatted_transcript: z.string(),
    customer_phone: z.string().nullable(),
    customer_name: z.string().nullable(),
    sender: z.object({ phone_number: z.string(), display_name: z.string() }).nullable(),
    created_at: offsetTimestamp(),
    ended_at: offsetTimestamp(),
  })
  .meta({ id: 'ConversationEndedWebhook' }));
/**
 * The live wire's conversation-ended payload (live-platform H.3): the conversation's integer
 * `id` first, timed transcript items with `system` notes, and the customer's attachments.
 */
export const LiveConversationEndedWebhookBody = lazySchema(() => z
  .object({
    id: integer(),
    ...ConversationEndedWebhookBody.unwrap().shape,
    transcript: z.array(z.object({ role: z.enum(['user', 'assistant', 'system']), content: z.string(), timestamp: offsetTimestamp(), timestamp_unix: integer() })),
    attachments: z.array(z.object({ type: z.enum(['image', 'video', 'audio', 'document']), url: z.string(), filename: z.string() })),
  })
  .meta({ id: 'LiveConversationEndedWebhook' }));
export type ConversationEndedWebhookBody = z.output<typeof ConversationEndedWebhookBody> | z.output<typeof LiveConversationEndedWebhookBody>;

/** The messaging sender of a conversation, as far as the live wire shows it. */
export interface SenderParty {
  display_name: string;
  phone_number: string;
}

/** live-platform D.4: start and reply variables together, null when there are none. */
function liveVariables(c: Conversation): Record<string, unknown> | null {
  const all = { ...c.input_variables, ...c.variables };
  return Object.keys(all).length > 0 ? all : null;
}

/** live-platform D.4: the customer identifier, only on the (`api`) conversations that have one (decision: absent otherwise). */
function identifierKey(c: Conversation): { external_identifier?: string } {
  return c.external_identifier ? { external_identifier: c.external_identifier } : {};
}

/** live-platform D.4: the sender and the customer, only on messaging-channel conversations. */
function partyKeys(c: Conversation, sender: SenderParty | undefined) {
  if (c.type !== 'msgapp') return {};
  return {
    whatsapp_sender: sender ? { name: sender.display_name, phone: sender.phone_number } : null,
    customer: { name: c.customer_name, phone: c.customer_phone },
  };
}

/** A conversation in the list (spec: Conversation table), with the live wire's keys of D.4 in their places. */
export function serialiseConversation(c: Conversation, assistant: { uuid: string; name: string } | undefined, wire: Wire, sender: SenderParty | undefined): ConversationRecord | LiveConversationRecord {
  const id = c.uuid;
  const assistant_id = assistant?.uuid ?? null;
  const assistant_name = assistant?.name ?? null;
  const created_at = formatSqlUtc(c.created_at);
  const updated_at = formatSqlUtc(c.updated_at);
  const { message_count, ai_enabled } = c;
  const total_cost = fromMicros(c.total_cost_micros);
  // Two literals, one per wire, so each is checked against its record's schema.
  if (wire !== 'live') return { id, assistant_id, assistant_name, type: c.type, message_count, total_cost, ai_enabled, created_at, updated_at };
  return {
    id,
    assistant_id,
    assistant_name,
    type: channelType(c.type, wire),
    variables: liveVariables(c),
    ...identifierKey(c),
    message_count,
    total_cost,
    ai_enabled,
    created_at,
    updated_at,
    ...partyKeys(c, sender),
  };
}

/**
 * `GET /conversations/{uuid}` (decisions: Get conversation): history and variables (start
 * variables and those replies set). The live wire writes empty variables as null and
 * adds the list's extra keys after them (live-platform D.4).
 * @example serialiseConversationRead(conversation, messages, 'live', sender) // { status: true, history, variables: null, whatsapp_sender, customer }
 */
export function serialiseConversationRead(c: Conversation, history: readonly ChatMessage[], wire: Wire, sender: SenderParty | undefined): ConversationReadRecord | LiveConversationReadRecord {
  const messages = history.map(serialiseMessage);
  if (wire !== 'live') return { status: true, history: messages, variables: { ...c.input_variables, ...c.variables } };
  return { status: true, history: messages, variables: liveVariables(c), ...identifierKey(c), ...partyKeys(c, sender) };
}

