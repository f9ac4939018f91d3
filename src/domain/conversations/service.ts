/**
 * Chat conversations (spec: Conversations; Events: the conversation-ended webhook;
 * decisions: Create conversation, Get conversation, AI on / off, Conversations,
 * Chat message endpoint credentials; ARCHITECTURE §4 Chat conversations).
 */
import { shapeD, shapeE, shapeR, type SimError } from '../../core/errors.js';
import { cursorPaginate, paginate } from '../../core/pagination.js';
import { SeededRandom } from '../../core/random.js';
import { counted, retryAfter, type SlidingLimit } from '../../core/rate-limit.js';
import { formatIsoOffset } from '../../core/time.js';
import { ErrorBag } from '../../core/validation.js';
import { fillPromptVariables, hasPlaceholder, systemValues } from '../../core/prompt-variables.js';
import { texts } from '../../core/wire.js';
import { sampleValue, type Assistant, type PostCallSchemaItem } from '../assistants/schema.js';
import { BUILT_IN_EVALUATION, chatBuiltIns, withBuiltIns } from '../assistants/evaluation.js';
import { assistantByRef, findAssistantByRef } from '../assistants/service.js';
import { accountCtx, type AccountCtx } from '../context.js';
import type { SimState } from '../state.js';
import { dateWindow } from '../filters.js';
import type { InboundMedia } from '../msgapp/schema.js';
import { fileUrl } from '../files/service.js';
import type { ScriptedReply } from '../../engine/replies.js';
import type { ToolCall } from '../../engine/webhooks.js';
import { callToolByName, type ToolFacts } from '../tools/calls.js';
import {
  channelType,
  readConversationListQuery,
  serialiseConversation,
  serialiseConversationRead,
  serialiseMessage,
  type ChatMessage,
  type Conversation,
  type ConversationListQuery,
  type ConversationEndedWebhookBody,
  type ConversationType,
  type FunctionCall,
  type GenerateReplyBody,
  type ConversationStarted,
  type GeneratedReply,
  type MessageReply,
} from './schema.js';

export const CONVERSATION_MESSAGES = {
  // live-platform D.5: a pair is the specification's text and the live platform's.
  notFound: texts('Conversation not found.', 'Conversation not found'),
  assistantNotFound: texts('Assistant not found.', 'Assistant not found'),
  insufficientBalance: texts('Insufficient balance. Please top up your account to continue the conversation.', 'Insufficient balance. Please top up your account.'),
  // Both spellings of the switches (the spec's paths and live-platform A.1's).
  webhookEnabled: texts('Conversation ended webhook enabled.', 'Conversation ended webhook enabled successfully'),
  webhookDisabled: texts('Conversation ended webhook disabled.', 'Conversation ended webhook disabled successfully'),
  replyAssistantNotFound: 'Assistant not found or does not belong to you',
  replyInsufficientBalance: 'Insufficient balance. Please top up your account.',
  // live-platform H.10: the reference's answer when a mid-call tool's output cannot be used.
  invalidToolOutput: 'Failed to process message: invalid tool output',
} as const;

/** AI reply generation: 5 answered requests per 60 s of clock time per account, sliding (live-platform B.1). */
export const REPLY_RATE_LIMIT: SlidingLimit = { max: 5, windowMs: 60_000 };

export const conversationErrors = {
  notFound: () => shapeE(404, CONVERSATION_MESSAGES.notFound),
  // live-platform B.1: AI reply generation answers its refusals in shape D.
  replyAssistantNotFound: () => shapeD(404, CONVERSATION_MESSAGES.replyAssistantNotFound, 'ASSISTANT_NOT_FOUND'),
  replyInsufficientBalance: () => shapeD(402, CONVERSATION_MESSAGES.replyInsufficientBalance, 'INSUFFICIENT_BALANCE'),
  assistantNotFound: () => shapeE(404, CONVERSATION_MESSAGES.assistantNotFound),
  insufficientBalance: () => shapeE(400, CONVERSATION_MESSAGES.insufficientBalance),
  invalidToolOutput: () => shapeE(400, CONVERSATION_MESSAGES.invalidToolOutput),
  replyInvalidToolOutput: () => shapeD(400, CONVERSATION_MESSAGES.invalidToolOutput, 'INVALID_TOOL_OUTPUT'),
};

/** Clock event of a conversation's inactivity timer. */
export const INACTIVITY_EVENT = 'conversation.inactive';
export interface InactivityPayload {
  account_id: number;
  conversation_id: number;
}

/** Types that end by inactivity and report it (spec: Events 1). */
const ENDING_TYPES: ReadonlySet<ConversationType> = new Set(['widget', 'msgapp']);

/** The customer's name from pre-chat form data. */
function customerName(variables: Record<string, unknown>): string | null {
  for (const key of ['customer_name', 'name']) {
    const value = variables[key];
    if (typeof value === 'string' && value.length > 0) return value;
  }
  return null;
}

/** Variables a reply or greeting may use: the assistant's, then the conversation's (later wins). */
function templateVariables(assistant: Assistant, conversation: Pick<Conversation, 'input_variables' | 'variables'>): Record<string, unknown> {
  return { ...assistant.variables, ...conversation.input_variables, ...conversation.variables };
}

function addMessage(ctx: AccountCtx, conversation: Conversation, role: ChatMessage['role'], content: string, functionCalls: FunctionCall[] | null = null, media?: InboundMedia): ChatMessage {
  return ctx.messages.insert({ conversation_id: conversation.id, role, content, function_calls: functionCalls, created_at: ctx.now(), ...(media && { media }) });
}

/** The conversation's messages in order. */
export function historyOf(ctx: AccountCtx, conversation: Conversation): ChatMessage[] {
  return ctx.messages.where('conversation', conversation.id);
}

/** (Re)arms the one inactivity event of a conversation (decisions: the timer is armed at creation and re-armed by every message). */
export function armInactivity(ctx: AccountCtx, conversation: Conversation, assistant: Assistant | undefined): void {
  if (conversation.inactivity_event_id !== null) ctx.cancel(conversation.inactivity_event_id);
  const minutes = assistant?.conversation_inactivity_timeout ?? null;
  const eventId =
    minutes === null || !ENDING_TYPES.has(conversation.type)
      ? null
      : ctx.schedule<InactivityPayload>(ctx.now() + minutes * 60_000, INACTIVITY_EVENT, { account_id: ctx.account.id, conversation_id: conversation.id });
  ctx.conversations.update(conversation.id, { inactivity_event_id: eventId });
}

/** A new active conversation with AI on; the fields not given start empty. */
export function insertConversation(
  ctx: AccountCtx,
  fields: Pick<Conversation, 'assistant_id' | 'type'> & Partial<Pick<Conversation, 'message_count' | 'input_variables' | 'customer_phone' | 'customer_name' | 'sender_id' | 'external_identifier'>>,
): Conversation {
  const now = ctx.now();
  const conversation = ctx.conversations.insert({
    uuid: ctx.random.uuid(),
    status: 'active',
    ai_enabled: true,
    message_count: 0,
    total_cost_micros: 0,
    input_variables: {},
    variables: {},
    customer_phone: null,
    customer_name: null,
    sender_id: null,
    external_identifier: null,
    ended_count: 0,
    ended_at: null,
    inactivity_event_id: null,
    created_at: now,
    updated_at: now,
    ...fields,
  });
  ctx.emit('conversation.started', { conversation_id: conversation.uuid, assistant_id: conversation.assistant_id, type: conversation.type });
  return conversation;
}

/**
 * A conversation's system variables (live-platform H.8), worked out when first read: a
 * messaging conversation's phones (the customer's, the sender's), none for a web chat.
 */
function conversationSystemValues(ctx: AccountCtx, assistant: Assistant, conversation: Conversation) {
  return () =>
    systemValues({
      customer_phone: conversation.customer_phone,
      assistant_phone: senderOf(ctx, conversation)?.phone_number ?? null,
      assistant_uuid: assistant.uuid,
      assistant_name: assistant.name,
      at: conversation.created_at,
      timezone: assistant.timezone,
    });
}

/**
 * A chat's greeting (live-platform H.8): the assistant's `initial_message` with the prompt
 * variables filled, the conversation's variables over the assistant's, and the system
 * variables at the conversation's start. The phones are a messaging conversation's own
 * (the customer's, and its sender's number as the assistant's); a web chat has none, so
 * they fill as ''.
 */
function greeting(ctx: AccountCtx, assistant: Assistant, conversation: Conversation): string {
  const text = assistant.initial_message;
  if (!hasPlaceholder(text)) return text;
  return fillPromptVariables(text, conversationSystemValues(ctx, assistant, conversation), templateVariables(assistant, conversation));
}

/** Opens a conversation with an assistant: its greeting is the first message (decisions: Create conversation). */
export function openConversation(
  ctx: AccountCtx,
  assistant: Assistant,
  input: {
    type: ConversationType;
    variables?: Record<string, unknown> | undefined;
    customer_phone?: string | null;
    customer_name?: string | null;
    sender_id?: number | null;
    external_identifier?: string | null;
  },
): Conversation {
  const variables = input.variables ?? {};
  const conversation = insertConversation(ctx, {
    assistant_id: assistant.id,
    type: input.type,
    message_count: 1,
    input_variables: variables,
    customer_phone: input.customer_phone ?? null,
    customer_name: input.customer_name ?? customerName(variables),
    sender_id: input.sender_id ?? null,
    external_identifier: input.external_identifier ?? null,
  });
  addMessage(ctx, conversation, 'assistant', greeting(ctx, assistant, conversation));
  armInactivity(ctx, conversation, assistant);
  return ctx.conversations.get(conversation.id)!;
}

/**
 * `POST /conversations`: a widget conversation needs a balance above zero (decisions:
 * Conversations).
 */
export function createConversation(ctx: AccountCtx, assistant: Assistant, input: { type: 'widget' | 'test' | 'api'; variables?: Record<string, unknown> | undefined }): Conversation {
  if (input.type === 'widget' && ctx.account.balance_micros <= 0) throw conversationErrors.insufficientBalance();
  return openConversation(ctx, assistant, input);
}

export interface MessageOutcome {
  reply: string;
  function_calls: FunctionCall[];
}

/**
 * A customer message: a widget message costs the account's widget price (400 shape E
 * when the balance cannot pay, nothing stored); an ended conversation re-opens; with AI
 * on, the scripted reply answers (spec: Send message; ARCHITECTURE §4).
 */
export function receiveMessage(ctx: AccountCtx, conversation: Conversation, text: string, media?: InboundMedia, answered?: ScriptedReply): MessageOutcome {
  const price = messagePrice(ctx, conversation);
  if (price > 0) ctx.chargeAccount(price);
  addMessage(ctx, conversation, 'user', text, null, media);
  let count = conversation.message_count + 1;
  let outcome: MessageOutcome = { reply: '', function_calls: [] };
  let variables = conversation.variables;
  const assistant = conversation.assistant_id === null ? undefined : ctx.assistants.get(conversation.assistant_id);
  if (conversation.ai_enabled && assistant) {
    const scripted = answered ?? ctx.replyTo(assistant, text, templateVariables(assistant, conversation));
    // A function call whose tool was not called here (an inbound channel message) keeps an empty result, as scripted.
    const functionCalls = scripted.function_calls.map((c) => ({ name: c.name, arguments: c.arguments, result: c.result ?? {} }));
    variables = { ...variables, ...scripted.set_variables };
    addMessage(ctx, conversation, 'assistant', scripted.reply, functionCalls);
    count += 1;
    outcome = { reply: scripted.reply, function_calls: functionCalls };
  }
  const reopened = conversation.status === 'ended';
  const updated = ctx.conversations.update(conversation.id, {
    status: 'active',
    message_count: count,
    total_cost_micros: conversation.total_cost_micros + price,
    variables,
    updated_at: ctx.now(),
  });
  armInactivity(ctx, updated, assistant);
  if (reopened) ctx.emit('conversation.reopened', { conversation_id: updated.uuid, assistant_id: updated.assistant_id, type: updated.type });
  return outcome;
}

/** What a customer message costs: a widget message the account's widget price; 400 shape E when the balance cannot pay. */
function messagePrice(ctx: AccountCtx, conversation: Conversation): number {
  const price = conversation.type === 'widget' ? ctx.account.rates.widget_message_micros : 0;
  if (price > 0 && ctx.account.balance_micros < price) throw conversationErrors.insufficientBalance();
  return price;
}

/**
 * The scripted reply to a customer message with its tools called (live-platform H.10): a
 * rule's function call without `result` calls the tool of that name attached to the
 * assistant, and the endpoint's JSON object is the result. An answer that is not a JSON
 * object, an error status, a timeout or a refusal is the reference's 400 shape E
 * `invalid tool output`, before anything is stored (decision: nothing changes; the
 * tool-call journal keeps the request). A name no attached tool has makes no request
 * and keeps the empty result a scripted call has. Undefined when the AI does not answer.
 * `invalid` is the route's refusal (AI reply generation answers in shape D).
 */
export async function replyWithTools(
  ctx: AccountCtx,
  conversation: Conversation,
  text: string,
  invalid: () => SimError = conversationErrors.invalidToolOutput,
): Promise<ScriptedReply | undefined> {
  const assistant = conversation.assistant_id === null ? undefined : ctx.assistants.get(conversation.assistant_id);
  if (!conversation.ai_enabled || !assistant) return undefined;
  messagePrice(ctx, conversation);
  const variables = templateVariables(assistant, conversation);
  const scripted = ctx.replyTo(assistant, text, variables);
  if (scripted.function_calls.every((c) => c.result !== undefined)) return scripted;
  const facts: ToolFacts = {
    // live-platform H.8: the system variables as the greeting has them (a messaging conversation's phones; a web chat has none).
    system: conversationSystemValues(ctx, assistant, conversation),
    variables,
  };
  const functionCalls: FunctionCall[] = [];
  for (const c of scripted.function_calls) {
    if (c.result !== undefined) {
      functionCalls.push({ name: c.name, arguments: c.arguments, result: c.result });
      continue;
    }
    const done = await callToolByName(ctx, assistant, c.name, c.arguments, facts, { conversation_id: conversation.uuid });
    const result = done.request === null ? {} : toolResult(done);
    if (result === undefined) throw invalid();
    functionCalls.push({ name: c.name, arguments: c.arguments, result });
  }
  return { ...scripted, function_calls: functionCalls };
}

/** A tool's answer as a function call's result: a 2xx whose body is a JSON object, else undefined (live-platform H.10). */
function toolResult(done: ToolCall): Record<string, unknown> | undefined {
  const response = done.response;
  if (!response || response.status < 200 || response.status > 299 || response.truncated) return undefined;
  try {
    const value: unknown = JSON.parse(response.body);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The platform's notes when a human takes over and when the AI resumes (live-platform H.3, decision texts). */
export const SYSTEM_NOTES = { disabled: 'A human agent took over the conversation.', enabled: 'The AI assistant resumed the conversation.' } as const;

/**
 * AI on / off (decisions: AI on / off): while off, messages are stored and get no reply.
 * A change leaves a `system` note in the conversation (live-platform H.3); setting the
 * state it already has leaves none.
 */
export function setAi(ctx: AccountCtx, uuid: string, enabled: boolean): Conversation {
  const conversation = ctx.conversations.where('uuid', uuid)[0];
  if (!conversation) throw conversationErrors.notFound();
  if (conversation.ai_enabled === enabled) return ctx.conversations.update(conversation.id, { updated_at: ctx.now() });
  const note = { content: enabled ? SYSTEM_NOTES.enabled : SYSTEM_NOTES.disabled, at: ctx.now(), after: historyOf(ctx, conversation).at(-1)?.id ?? 0 };
  return ctx.conversations.update(conversation.id, { ai_enabled: enabled, updated_at: ctx.now(), system_notes: [...(conversation.system_notes ?? []), note] });
}

/** The account's conversations matching every filter, id order (spec: List conversations). */
export function listConversations(ctx: AccountCtx, q: ConversationListQuery): Conversation[] {
  if (q.assistant_id !== undefined && !ctx.assistants.get(q.assistant_id)) new ErrorBag().rule('assistant_id', 'exists').throwIfAny();
  const [from, to] = dateWindow(q, ctx.account.timezone);
  // live-platform A.2: exact-match filters; the sender filter matches the sender's number under either channel word.
  // G.3 item 3: the live wire matches customer_phone by substring, so `+49…` sent unencoded (read `49…`) still finds it.
  const customer = q.customer_phone;
  const customerMatches =
    customer === undefined ? () => true : ctx.wire === 'live' ? (phone: string | null) => phone?.includes(customer) === true : (phone: string | null) => phone === customer;
  const senderPhone = q.whatsapp_sender_phone ?? q.msgapp_sender_phone;
  const senders = senderPhone === undefined ? undefined : new Set(ctx.senders.list((s) => s.phone_number === senderPhone).map((s) => s.id));
  const keep = (c: Conversation) =>
    (q.type === undefined || c.type === q.type) &&
    (q.assistant_id === undefined || c.assistant_id === q.assistant_id) &&
    customerMatches(c.customer_phone) &&
    (q.external_identifier === undefined || c.external_identifier === q.external_identifier) &&
    (senders === undefined || (c.sender_id !== null && senders.has(c.sender_id))) &&
    c.created_at >= from &&
    c.created_at < to;
  return q.assistant_id !== undefined ? ctx.conversations.where('assistant', q.assistant_id, keep) : ctx.conversations.list(keep);
}

/**
 * `GET /user/conversations` (spec: List conversations; live-platform A.2): the page form,
 * or the cursor form when a `cursor` is sent, and always on the live wire, which has no
 * page form. The query is read with the wire's rules.
 * @example pageConversations(ctx, { per_page: '2' }, 'http://127.0.0.1:4010/api/user/conversations')
 */
export function pageConversations(ctx: AccountCtx, query: unknown, path: string) {
  const q = readConversationListQuery(ctx.wire, query);
  const rows = listConversations(ctx, q);
  const view = (c: Conversation) => serialiseConversation(c, assistantOf(ctx, c), ctx.wire, senderOf(ctx, c));
  return ctx.wire === 'live' || q.cursor !== undefined ? cursorPaginate(rows, q.cursor, q.per_page, path, view) : paginate(rows, q.page, q.per_page, view);
}

function assistantOf(ctx: AccountCtx, c: Conversation): Assistant | undefined {
  return c.assistant_id === null ? undefined : ctx.assistants.get(c.assistant_id);
}

function senderOf(ctx: AccountCtx, c: Conversation) {
  return c.sender_id === null ? undefined : ctx.senders.get(c.sender_id);
}

/** A value of the conversation typed per a post-call schema item; null when it was set to null or cannot be read as a number. */
function typed(value: unknown, type: PostCallSchemaItem['type']): unknown {
  if (value === null) return null;
  if (type === 'bool') {
    if (typeof value === 'boolean') return value;
    if (typeof value === 'number') return value !== 0;
    return ['true', 'yes', '1'].includes(String(value).trim().toLowerCase());
  }
  if (type === 'number') {
    const n = typeof value === 'number' ? value : Number(String(value).trim());
    return Number.isFinite(n) ? n : null;
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * A value of a post-call schema item that no reply set, generated with the item's type
 * as a call's collected variables are (decision). Its generator is derived from the seed,
 * the conversation and the item, so the same conversation always reports the same value
 * and no other draw of the simulator moves.
 */
function generatedValue(ctx: AccountCtx, conversation: Conversation, item: PostCallSchemaItem): unknown {
  return sampleValue(SeededRandom.derive(ctx.seed, 'extracted-variable', conversation.uuid, item.name), item.type);
}

/** The conversation's values of the assistant's post_call_schema, each typed per its item. */
function extractedVariables(ctx: AccountCtx, conversation: Conversation, assistant: Assistant): Record<string, unknown> {
  return Object.fromEntries(
    assistant.post_call_schema.map((item) => {
      const value = conversation.variables[item.name];
      return [item.name, value === undefined ? generatedValue(ctx, conversation, item) : typed(value, item.type)];
    }),
  );
}

const SPEAKERS: Readonly<Record<ChatMessage['role'] | 'system', string>> = { assistant: 'AI', user: 'Customer', system: 'System' };

/** The messages and the system notes in order, each note after the message it followed (live-platform H.3). */
function timeline(ctx: AccountCtx, conversation: Conversation): { role: ChatMessage['role'] | 'system'; content: string; at: number; media?: ChatMessage['media']; id: number }[] {
  const notes = conversation.system_notes ?? [];
  const out: ReturnType<typeof timeline> = [];
  let next = 0;
  const notesUpTo = (id: number) => {
    while (next < notes.length && notes[next]!.after <= id) {
      const note = notes[next++]!;
      out.push({ role: 'system', content: note.content, at: note.at, id: 0 });
    }
  };
  notesUpTo(0);
  for (const m of historyOf(ctx, conversation)) {
    out.push({ role: m.role, content: m.content, at: m.created_at, id: m.id, ...(m.media && { media: m.media }) });
    notesUpTo(m.id);
  }
  notesUpTo(Number.MAX_SAFE_INTEGER);
  return out;
}

/**
 * The conversation-ended payload, field by field as the spec's Events table lists it; on
 * the live wire as the reference's example does (live-platform H.3): the integer `id`
 * first, timed transcript items with the `system` notes, the customer's attachments, and
 * times in the account's timezone.
 */
export function endedPayload(ctx: AccountCtx, conversation: Conversation, assistant: Assistant, endedAt: number): ConversationEndedWebhookBody {
  if (ctx.wire === 'live') return liveEndedPayload(ctx, conversation, assistant, endedAt);
  const messages = historyOf(ctx, conversation);
  return {
    ...sharedEndedFields(ctx, conversation, assistant),
    extracted_variables: extractedVariables(ctx, conversation, assistant),
    input_variables: structuredClone(conversation.input_variables),
    transcript: messages.map((m) => ({ role: m.role, content: m.content })),
    formatted_transcript: messages.map((m) => `${m.role === 'assistant' ? 'AI' : 'Customer'}: ${m.content}`).join('\n'),
    ...partyFields(ctx, conversation),
    created_at: formatIsoOffset(conversation.created_at, assistant.timezone),
    ended_at: formatIsoOffset(endedAt, assistant.timezone),
  };
}

/** The payload's first fields, alike on both wires but for the channel word (live-platform D.4). */
function sharedEndedFields(ctx: AccountCtx, conversation: Conversation, assistant: Assistant) {
  return { conversation_id: conversation.uuid, assistant_id: assistant.uuid, type: channelType(conversation.type, ctx.wire), message_count: conversation.message_count, status: 'ended' as const };
}

/** The customer and the sender: a messaging conversation's only. */
function partyFields(ctx: AccountCtx, conversation: Conversation) {
  const msgapp = conversation.type === 'msgapp';
  const sender = senderOf(ctx, conversation);
  return {
    customer_phone: msgapp ? conversation.customer_phone : null,
    customer_name: conversation.customer_name,
    sender: msgapp && sender ? { phone_number: sender.phone_number, display_name: sender.display_name } : null,
  };
}

/**
 * The live wire's extracted variables (live-platform H.1): the built-in status and summary
 * first, as a call's (`chatBuiltIns`), then the schema's values; a value a reply rule set
 * for either (or a schema item of that name) wins.
 */
function liveExtractedVariables(ctx: AccountCtx, conversation: Conversation, assistant: Assistant, messages: readonly { role: string }[]): Record<string, unknown> {
  const own = Object.fromEntries(BUILT_IN_EVALUATION.filter((b) => Object.hasOwn(conversation.variables, b.name)).map((b) => [b.name, conversation.variables[b.name]]));
  return withBuiltIns({ ...own, ...extractedVariables(ctx, conversation, assistant) }, chatBuiltIns(messages));
}

function liveEndedPayload(ctx: AccountCtx, conversation: Conversation, assistant: Assistant, endedAt: number): ConversationEndedWebhookBody {
  const messages = timeline(ctx, conversation);
  const zone = ctx.account.timezone;
  return {
    id: conversation.id,
    ...sharedEndedFields(ctx, conversation, assistant),
    extracted_variables: liveExtractedVariables(ctx, conversation, assistant, messages),
    input_variables: structuredClone(conversation.input_variables),
    transcript: messages.map((m) => ({ role: m.role, content: m.content, timestamp: formatIsoOffset(m.at, zone), timestamp_unix: Math.floor(m.at / 1000) })),
    formatted_transcript: messages.map((m) => `${SPEAKERS[m.role]}: ${m.content}`).join('\n'),
    ...partyFields(ctx, conversation),
    created_at: formatIsoOffset(conversation.created_at, zone),
    ended_at: formatIsoOffset(endedAt, zone),
    attachments: messages.flatMap((m) => (m.media ? [{ type: m.media.type, url: fileUrl(ctx.files, 'att', m.id, m.media.filename), filename: m.media.filename }] : [])),
  };
}

/**
 * The inactivity timer fired: a widget or msgapp conversation ends, and the
 * conversation-ended webhook goes to the assistant's URL, the first time, and again
 * only with `conversation_ended_retrigger` (spec: Events; ARCHITECTURE §4).
 */
export function endByInactivity(ctx: AccountCtx, payload: InactivityPayload): void {
  const conversation = ctx.conversations.get(payload.conversation_id);
  if (!conversation || conversation.status !== 'active' || !ENDING_TYPES.has(conversation.type)) return;
  const now = ctx.now();
  const ended = ctx.conversations.update(conversation.id, {
    status: 'ended',
    ended_at: now,
    ended_count: conversation.ended_count + 1,
    inactivity_event_id: null,
    updated_at: now,
  });
  const assistant = conversation.assistant_id === null ? undefined : ctx.assistants.get(conversation.assistant_id);
  const url = assistant?.conversation_ended_webhook_url ?? null;
  const webhook = assistant !== undefined && url !== null && (ended.ended_count === 1 || assistant.conversation_ended_retrigger);
  ctx.emit('conversation.ended', {
    conversation_id: ended.uuid,
    assistant_id: ended.assistant_id,
    type: ended.type,
    message_count: ended.message_count,
    reason: 'inactivity',
    webhook,
  });
  if (webhook) ctx.sendWebhook('conversation_ended', url!, endedPayload(ctx, ended, assistant!, now));
}

/** Enables the conversation-ended webhook to `url` (spec: Conversation-ended webhook switches). */
export function enableEndedWebhook(ctx: AccountCtx, idOrUuid: string, url: string): Assistant {
  const assistant = findAssistantByRef(ctx, idOrUuid);
  return ctx.assistants.update(assistant.id, { conversation_ended_webhook_url: url, updated_at: ctx.now() });
}

/** Disables it: no further conversation-ended deliveries. */
export function disableEndedWebhook(ctx: AccountCtx, idOrUuid: string): Assistant {
  const assistant = findAssistantByRef(ctx, idOrUuid);
  return ctx.assistants.update(assistant.id, { conversation_ended_webhook_url: null, updated_at: ctx.now() });
}

/**
 * The conversation of a UUID and its account's scope: chat routes carry no credential,
 * the UUID is the capability (decisions: Chat message endpoint credentials).
 */
export function locateConversation(state: SimState, uuid: string): { ctx: AccountCtx; conversation: Conversation } {
  const conversation = state.db.conversations.first('uuid', uuid);
  const account = conversation && state.db.accounts.get(conversation.account_id);
  if (!conversation || !account) throw conversationErrors.notFound();
  return { ctx: accountCtx(account, state), conversation };
}

/** The assistant of a UUID and its account's scope (`POST /conversations`). */
export function locateAssistant(state: SimState, uuid: string): { ctx: AccountCtx; assistant: Assistant } {
  const assistant = state.db.assistants.first('uuid', uuid);
  const account = assistant && state.db.accounts.get(assistant.account_id);
  if (!assistant || !account) throw conversationErrors.assistantNotFound();
  return { ctx: accountCtx(account, state), assistant };
}

/** `POST /conversations`: opens a conversation with the assistant of a UUID (decisions: Create conversation). */
export function startConversation(state: SimState, input: { assistant_id: string; type: 'widget' | 'test' | 'api'; variables?: Record<string, unknown> | undefined }): ConversationStarted {
  const { ctx, assistant } = locateAssistant(state, input.assistant_id);
  const conversation = createConversation(ctx, assistant, input);
  return { status: true, conversation_id: conversation.uuid, history: historyOf(ctx, conversation).map(serialiseMessage) };
}

/** `GET /conversations/{uuid}`: history and variables (start variables and those replies set), in the wire's form. */
export function readConversation(state: SimState, uuid: string) {
  const { ctx, conversation } = locateConversation(state, uuid);
  return serialiseConversationRead(conversation, historyOf(ctx, conversation), ctx.wire, senderOf(ctx, conversation));
}

/** `POST /conversations/{uuid}/messages` (spec: Send message). */
export async function postMessage(state: SimState, uuid: string, text: string): Promise<MessageReply> {
  const { ctx, conversation } = locateConversation(state, uuid);
  const answered = await replyWithTools(ctx, conversation, text);
  // Read again: the conversation may have moved on while a tool answered.
  const outcome = receiveMessage(ctx, ctx.conversations.get(conversation.id) ?? conversation, text, undefined, answered);
  return { status: true, message: outcome.reply, function_calls: outcome.function_calls };
}

/** Refuses an AI reply generation past its rate limit: 429 shape R (live-platform B.1, checked before validation). */
export function checkReplyRate(ctx: AccountCtx): void {
  const wait = retryAfter(ctx.account.recent_replies ?? [], ctx.now(), REPLY_RATE_LIMIT);
  if (wait !== undefined) throw shapeR(wait);
}

/**
 * AI reply generation (live-platform B.1): the `api` conversation of the assistant and
 * the customer identifier, opened on first contact like `POST /conversations`, takes the
 * message and answers the scripted reply. Messages are free, as `api` messages are.
 */
export async function generateReply(ctx: AccountCtx, input: GenerateReplyBody): Promise<GeneratedReply> {
  const assistant = assistantByRef(ctx, input.assistant_id);
  if (!assistant) throw conversationErrors.replyAssistantNotFound();
  if (ctx.account.balance_micros <= 0) throw conversationErrors.replyInsufficientBalance();
  let conversation = ctx.conversations.first('external', `${assistant.id}:${input.customer_identifier}`);
  if (!conversation) {
    conversation = openConversation(ctx, assistant, { type: 'api', variables: input.variables, external_identifier: input.customer_identifier });
  } else if (input.variables !== undefined) {
    // Spread copies keys as own data properties, so a "__proto__" key stays plain data.
    conversation = ctx.conversations.update(conversation.id, { input_variables: { ...conversation.input_variables, ...input.variables } });
  }
  // live-platform H.10: the rule's tools are called first; a bad answer refuses in this route's shape D (decision), the message unstored.
  const answered = await replyWithTools(ctx, conversation, input.message, conversationErrors.replyInvalidToolOutput);
  const outcome = receiveMessage(ctx, ctx.conversations.get(conversation.id) ?? conversation, input.message, undefined, answered);
  ctx.setRecent('recent_replies', counted(ctx.account.recent_replies ?? [], ctx.now(), REPLY_RATE_LIMIT));
  const aiDisabled = !ctx.conversations.get(conversation.id)!.ai_enabled;
  return { success: true, conversation_id: conversation.uuid, customer_identifier: input.customer_identifier, reply: outcome.reply, function_calls: outcome.function_calls, ai_disabled: aiDisabled };
}
