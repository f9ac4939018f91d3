/**
 * The messaging-application channel (spec: Messaging-application channel; States >
 * Messaging session; decisions: Messaging senders/templates, Session status, Messaging
 * prices, Messaging rate limit, Rate limit window, Template variables; ARCHITECTURE §4
 * Messaging sessions).
 */
import { SimError, shapeD } from '../../core/errors.js';
import { counted, retryAfter, type SlidingLimit } from '../../core/rate-limit.js';
import { formatControlTime, formatIsoOffset } from '../../core/time.js';
import { SeededRandom } from '../../core/random.js';
import { STATUS_DELAYS_MS } from '../../core/vocabulary.js';
import type { DeliveryPlan } from '../../engine/message-outcomes.js';
import { ErrorBag } from '../../core/validation.js';
import { fillTemplate } from '../../core/template.js';
import { say, texts, type Texts, type Wire } from '../../core/wire.js';
import fixtures from '../../../fixtures/msgapp.json' with { type: 'json' };
import { accountCtx, type AccountCtx } from '../context.js';
import type { SimState } from '../state.js';
import type { Conversation } from '../conversations/schema.js';
import { armInactivity, insertConversation, receiveMessage } from '../conversations/service.js';
import { DEFAULT_FILENAMES, VOICE_NOTE_FILENAME } from '../files/service.js';
import { readE164 } from '../../core/phone.js';
import type {
  ChannelMessage,
  ChannelMessageRecord,
  CreateSenderInput,
  CreateTemplateInput,
  FreeformSentAnswer,
  InboundAnswer,
  InboundInput,
  InboundMedia,
  MessageStatus,
  ReadReceiptWebhookBody,
  Sender,
  SenderPatchInput,
  SendFreeformInput,
  SendTemplateInput,
  Session,
  SessionStatusAnswer,
  SessionStatusRecord,
  Template,
  TemplateSentAnswer,
  TemplateStatus,
} from './schema.js';

/** The session window (spec: Limits: Session window). */
export const SESSION_WINDOW_MS = 24 * 3_600_000;
/** Rate limit of the two sends (spec: Limits: Request rate): 5 per second per user, sliding. */
export const RATE_LIMIT: SlidingLimit = { max: 5, windowMs: 1_000 };
export const SESSION_CLOSE_EVENT = 'msgapp.session_close';
/** Clock event of a sent message's next delivery status (live-platform H.4). */
export const MESSAGE_STATUS_EVENT = 'msgapp.message_status';
export interface MessageStatusPayload {
  account_id: number;
  message_id: number;
}
/** `messaging_limit` counts unique recipients over this much virtual time (live-platform H.5). */
export const MESSAGING_LIMIT_WINDOW_MS = 24 * 3_600_000;
export interface SessionClosePayload {
  account_id: number;
  session_id: number;
}

/** Texts of the channel; a pair is the specification's text and the live platform's, by error code (live-platform D.5). */
export const MSGAPP_MESSAGES = {
  senderNotFound: texts('Sender not found or does not belong to you.', 'Sender not found or does not belong to you'),
  /** The templates route words SENDER_NOT_FOUND more briefly on the live platform. */
  templatesSenderNotFound: texts('Sender not found or does not belong to you.', 'Sender not found'),
  templateNotFound: texts('Template not found for this sender.', 'Template not found or does not belong to this sender'),
  templateNotApproved: (status: string) => texts('The template is not approved and cannot be sent.', `Template is not approved. Current status: ${status}`),
  senderOffline: texts('The sender is offline and cannot send messages.', 'Sender is not online. Current status: Offline'),
  insufficientBalance: texts('Insufficient balance to send this message. Please top up your account.', 'Insufficient balance. Please top up your account.'),
  sessionExpired: texts(
    'The 24-hour session window has expired. Send a template message to re-open the conversation.',
    'The 24-hour messaging window is closed. Customer must reply first, or use a template message.',
  ),
  rateLimited: 'Too many requests.',
  messagingLimit: (n: number) => `Messaging limit reached: ${n} unique recipients in 24 hours.`,
  invalidPhone: texts('The recipient phone must be a valid phone number in international format, for example +14155550123.', 'Invalid phone number format. Use E.164 format (e.g., +14155551234).'),
  variables: (expected: string[]) =>
    expected.length === 0 ? 'This template takes no variables.' : `The variables must be exactly: ${expected.join(', ')} (or the positional keys 1 to ${expected.length}), each a string.`,
  // session_status `message`: the spec words the expired window as its SESSION_EXPIRED error, the live platform does not.
  open: (minutes: number) =>
    texts(
      `The session is open for ${Math.floor(minutes / 60)} h ${minutes % 60} min: freeform messages can be sent.`,
      `Session open (${Math.floor(minutes / 60)} hr ${minutes % 60} min remaining). Unlimited free-form messages allowed.`,
    ),
  expired: texts('The 24-hour session window has expired. Send a template message to re-open the conversation.', 'Session expired. Send a template or wait for customer to reply.'),
  neverOpened: texts('There is no open session with this recipient. Send a template message to start the conversation.', 'No conversation exists with this recipient. Send a template message first.'),
} as const;

export const msgappErrors = {
  senderNotFound: () => shapeD(404, MSGAPP_MESSAGES.senderNotFound, 'SENDER_NOT_FOUND'),
  templatesSenderNotFound: () => shapeD(404, MSGAPP_MESSAGES.templatesSenderNotFound, 'SENDER_NOT_FOUND'),
  templateNotFound: () => shapeD(404, MSGAPP_MESSAGES.templateNotFound, 'TEMPLATE_NOT_FOUND'),
  templateNotApproved: (status: string) => shapeD(422, MSGAPP_MESSAGES.templateNotApproved(status), 'TEMPLATE_NOT_APPROVED'),
  senderOfflineTemplate: () => shapeD(422, MSGAPP_MESSAGES.senderOffline, 'SENDER_OFFLINE'),
  senderOfflineFreeform: () => shapeD(503, MSGAPP_MESSAGES.senderOffline, 'SENDER_OFFLINE'),
  insufficientBalance: () => shapeD(402, MSGAPP_MESSAGES.insufficientBalance, 'INSUFFICIENT_BALANCE'),
  invalidPhone: () => shapeD(422, MSGAPP_MESSAGES.invalidPhone, 'INVALID_PHONE'),
  variables: (expected: string[]) => shapeD(422, MSGAPP_MESSAGES.variables(expected), 'VALIDATION_ERROR'),
  /**
   * The window is closed: the spec wire's `session_status` has exactly four keys and the
   * error's text (decisions: Session status while closed); the live wire's has the message
   * session-status would give and, once the window had been open, `expired_at` (live-platform D.4).
   */
  sessionExpired: (session: Session | undefined) =>
    shapeD(403, MSGAPP_MESSAGES.sessionExpired, 'SESSION_EXPIRED', { session_status: closedStatus(MSGAPP_MESSAGES.sessionExpired.spec) }).withLive(
      shapeD(403, MSGAPP_MESSAGES.sessionExpired.live, 'SESSION_EXPIRED', { session_status: { ...closedStatus(closedMessage(session).live), ...expiredAt('live', session) } }).body,
    ),
  // live-platform H.5: the closest documented code for a sender past its unique-recipient limit.
  messagingLimit: (n: number) => shapeD(422, MSGAPP_MESSAGES.messagingLimit(n), 'MESSAGING_LIMIT_UNAVAILABLE'),
  rateLimited: (retryAfter: number) => shapeD(429, MSGAPP_MESSAGES.rateLimited, 'RATE_LIMITED', {}, { 'retry-after': String(retryAfter) }),
};

/**
 * Gives a new account its senders (one online, one offline), named after the account's
 * name when it was created, and the online one's four templates (decisions: Fixtures).
 */
export function provisionMessaging(ctx: AccountCtx, accountName: string): void {
  const senders = fixtures.senders.map((s) =>
    ctx.senders.insert({
      phone_number: `+1415555${s.number_suffix}`,
      display_name: `${accountName} ${s.display_name}`.slice(0, 255),
      status: s.status as Sender['status'],
      quality_rating: s.quality_rating as Sender['quality_rating'],
      messaging_limit: s.messaging_limit,
      assistant_id: null,
    }),
  );
  const online = senders.find((s) => s.status === 'online')!;
  for (const t of fixtures.templates) ctx.templates.insert({ ...t, sender_id: online.id, status: t.status as Template['status'] });
}

function isOpen(session: Session | undefined, now: number): session is Session & { expires_at: number } {
  return session !== undefined && session.expires_at !== null && now < session.expires_at;
}

/** The four keys of a closed window (decisions: Session status while closed). */
function closedStatus(message: string) {
  return { is_open: false, can_send_freeform: false, requires_template: true, message };
}

/** The message of a closed window: expired once it had been open, else never opened. */
function closedMessage(session: Session | undefined): Texts {
  return session?.expires_at == null ? MSGAPP_MESSAGES.neverOpened : MSGAPP_MESSAGES.expired;
}

/** live-platform D.4: once an open window has closed, the live wire says when (`expired_at`). Call only for a closed window. */
function expiredAt(wire: Wire, session: Session | undefined): { expired_at?: string } {
  return wire === 'live' && session?.expires_at != null ? { expired_at: formatIsoOffset(session.expires_at) } : {};
}

/** `session_status` with all six keys (spec: Other shapes), plus `expired_at` on the live wire. */
export function sessionStatus(ctx: AccountCtx, session: Session | undefined): SessionStatusRecord {
  const now = ctx.now();
  if (isOpen(session, now)) {
    const minutes = Math.floor((session.expires_at - now) / 60_000);
    return {
      is_open: true,
      can_send_freeform: true,
      requires_template: false,
      message: say(ctx.wire, MSGAPP_MESSAGES.open(minutes)),
      minutes_remaining: minutes,
      expires_at: formatIsoOffset(session.expires_at),
    };
  }
  return {
    ...closedStatus(say(ctx.wire, closedMessage(session))),
    minutes_remaining: 0,
    expires_at: session?.expires_at == null ? null : formatIsoOffset(session.expires_at),
    ...expiredAt(ctx.wire, session),
  };
}

/** The account's sender, or SENDER_NOT_FOUND (`notFound`: the route's wording of it). */
export function findSender(ctx: AccountCtx, id: number, notFound: () => SimError = msgappErrors.senderNotFound): Sender {
  const sender = ctx.senders.get(id);
  if (!sender) throw notFound();
  return sender;
}

export function listSenders(ctx: AccountCtx, status: 'online' | 'all'): Sender[] {
  return ctx.senders.list((s) => status === 'all' || s.status === 'online');
}

export function listTemplates(ctx: AccountCtx, senderId: number, status: 'approved' | 'all'): Template[] {
  const sender = findSender(ctx, senderId, msgappErrors.templatesSenderNotFound);
  return ctx.templates.where('sender', sender.id, (t) => status === 'all' || t.status === 'approved');
}

/** The recipient in E.164, or INVALID_PHONE (on the live wire by E.164's form: live-platform G.3 item 2). */
function recipient(ctx: AccountCtx, text: string): string {
  const read = readE164(text.trim(), ctx.wire);
  if (!read) throw msgappErrors.invalidPhone();
  return read.number;
}

function sessionOf(ctx: AccountCtx, senderId: number, phone: string): Session | undefined {
  return ctx.sessions.where('pair', `${senderId}:${phone}`)[0];
}

/** `GET /user/msgapp/session-status` (decisions: Session status). */
export function getSessionStatus(ctx: AccountCtx, senderId: number, phoneText: string): SessionStatusAnswer {
  const phone = recipient(ctx, phoneText);
  const sender = findSender(ctx, senderId);
  const session = sessionOf(ctx, sender.id, phone);
  const conversation = session ? ctx.conversations.get(session.conversation_id) : undefined;
  if (!conversation) return { success: true, has_conversation: false, session_status: sessionStatus(ctx, session) };
  return {
    success: true,
    has_conversation: true,
    conversation_id: conversation.id,
    customer_name: conversation.customer_name,
    last_customer_message_at: session?.last_customer_message_at == null ? null : formatIsoOffset(session.last_customer_message_at),
    session_status: sessionStatus(ctx, session),
  };
}

/** Refuses a send when five were accepted in the 1000 ms before it (decisions: Rate limit window). */
function checkRate(ctx: AccountCtx): void {
  const wait = retryAfter(ctx.account.recent_sends, ctx.now(), RATE_LIMIT);
  if (wait !== undefined) throw msgappErrors.rateLimited(wait);
}

/** Counts an accepted send (a refused request does not count: decisions: Messaging rate limit). */
function countSend(ctx: AccountCtx): void {
  ctx.setRecent('recent_sends', counted(ctx.account.recent_sends, ctx.now(), RATE_LIMIT));
}

/** A delivery tracking id: `SM` and 32 hex digits from the seeded generator. */
function messageSid(ctx: AccountCtx): string {
  return `SM${ctx.random.faker.string.hexadecimal({ length: 32, casing: 'lower', prefix: '' })}`;
}

/** The channel's record of one message, with its delivery tracking id. */
function insertChannelMessage(
  ctx: AccountCtx,
  sender: Sender,
  conversation: Conversation,
  fields: Pick<ChannelMessage, 'direction' | 'kind' | 'body' | 'status' | 'cost_micros'> & Partial<Pick<ChannelMessage, 'status_history' | 'plan' | 'status_event_id' | 'error_code'>>,
): ChannelMessage {
  return ctx.channelMessages.insert({ sender_id: sender.id, conversation_id: conversation.id, message_sid: messageSid(ctx), created_at: ctx.now(), ...fields });
}

/** The channel conversation of a sender and a recipient, created on first contact. */
function channelConversation(ctx: AccountCtx, sender: Sender, phone: string, name: string | null): { conversation: Conversation; session: Session } {
  let session = sessionOf(ctx, sender.id, phone);
  let conversation = session ? ctx.conversations.get(session.conversation_id) : undefined;
  if (!conversation) {
    conversation = insertConversation(ctx, { assistant_id: sender.assistant_id, type: 'msgapp', customer_phone: phone, customer_name: name, sender_id: sender.id });
    session = ctx.sessions.insert({ sender_id: sender.id, recipient_phone: phone, conversation_id: conversation.id, expires_at: null, last_customer_message_at: null, close_event_id: null });
  } else if (name && conversation.customer_name !== name) {
    conversation = ctx.conversations.update(conversation.id, { customer_name: name });
  }
  return { conversation, session: session! };
}

/** Opens the window, or resets it to 24 hours from now; one close event (ARCHITECTURE §4). */
function openWindow(ctx: AccountCtx, session: Session, customerMessage: boolean): Session {
  if (session.close_event_id !== null) ctx.cancel(session.close_event_id);
  const now = ctx.now();
  const wasOpen = isOpen(session, now);
  const expires = now + SESSION_WINDOW_MS;
  const eventId = ctx.schedule<SessionClosePayload>(expires, SESSION_CLOSE_EVENT, { account_id: ctx.account.id, session_id: session.id });
  const opened = ctx.sessions.update(session.id, { expires_at: expires, close_event_id: eventId, ...(customerMessage && { last_customer_message_at: now }) });
  ctx.emit('msgapp.window_opened', {
    session_id: session.id,
    sender_id: session.sender_id,
    recipient_phone: session.recipient_phone,
    expires_at: formatControlTime(expires),
    by: customerMessage ? 'customer_message' : 'template',
    was_open: wasOpen,
  });
  return opened;
}

/** The window's end on the clock: the state is read from `expires_at`, so only the event is forgotten (and told). */
export function closeWindow(ctx: AccountCtx, payload: SessionClosePayload): void {
  const session = ctx.sessions.get(payload.session_id);
  if (!session) return;
  ctx.sessions.update(session.id, { close_event_id: null });
  ctx.emit('msgapp.window_closed', { session_id: session.id, sender_id: session.sender_id, recipient_phone: session.recipient_phone });
}

function recordOutbound(ctx: AccountCtx, sender: Sender, conversation: Conversation, kind: ChannelMessage['kind'], body: string, cost: number) {
  const now = ctx.now();
  const chat = ctx.messages.insert({ conversation_id: conversation.id, role: 'assistant', content: body, function_calls: null, created_at: now });
  // live-platform H.4: queued at the send, then on the clock as the recipient's side was scripted.
  const plan = ctx.nextMessagePlan(sender.id, conversation.customer_phone ?? '');
  const nextId = ctx.channelMessages.nextId();
  const eventId = ctx.schedule<MessageStatusPayload>(now + STATUS_DELAYS_MS.sent, MESSAGE_STATUS_EVENT, { account_id: ctx.account.id, message_id: nextId });
  const record = insertChannelMessage(ctx, sender, conversation, {
    direction: 'outbound',
    kind,
    body,
    status: 'queued',
    cost_micros: cost,
    status_history: [{ status: 'queued', at: now }],
    plan,
    status_event_id: eventId,
    error_code: null,
  });
  const updated = ctx.conversations.update(conversation.id, {
    status: 'active',
    message_count: conversation.message_count + 1,
    total_cost_micros: conversation.total_cost_micros + cost,
    updated_at: ctx.now(),
  });
  // Every message re-arms the inactivity timer, ours as well as the customer's (decisions: Conversations).
  armInactivity(ctx, updated, updated.assistant_id === null ? undefined : ctx.assistants.get(updated.assistant_id));
  return { chat, record };
}

/** The template's variables given by name or by position, each a string (decisions: Template variables). */
function templateValues(template: Template, given: Record<string, unknown> | undefined): Record<string, string> {
  const values = given ?? {};
  const keys = Object.keys(values);
  const named = template.variables;
  const positional = named.map((_, i) => String(i + 1));
  const sameKeys = (expected: string[]) => keys.length === expected.length && expected.every((k) => Object.prototype.hasOwnProperty.call(values, k));
  const byName = sameKeys(named);
  if (!(byName || sameKeys(positional)) || !keys.every((k) => typeof values[k] === 'string')) throw msgappErrors.variables(named);
  return Object.fromEntries(named.map((name, i) => [name, values[byName ? name : positional[i]!] as string]));
}

/**
 * Refuses a template send that would make one unique recipient too many for the sender
 * within the last 24 hours of virtual time (live-platform H.5: `messaging_limit`, null =
 * unlimited). A recipient already written to in the window does not count again.
 */
function checkMessagingLimit(ctx: AccountCtx, sender: Sender, phone: string): void {
  const limit = sender.messaging_limit;
  if (limit === null) return;
  const since = ctx.now() - MESSAGING_LIMIT_WINDOW_MS;
  const recipients = new Set<string>();
  for (const message of ctx.channelMessages.where('sender', sender.id, (m) => m.kind === 'template' && m.created_at > since)) {
    const conversation = ctx.conversations.get(message.conversation_id);
    if (conversation?.customer_phone) recipients.add(conversation.customer_phone);
  }
  if (!recipients.has(phone) && recipients.size >= limit) throw msgappErrors.messagingLimit(limit);
}

/**
 * Sends an approved template; a successful send opens the 24-hour window (spec: Send
 * template). Checks in order: number, rate, sender, sender online, template, approved,
 * variables, messaging limit, balance.
 */
export function sendTemplate(ctx: AccountCtx, input: SendTemplateInput): TemplateSentAnswer {
  const phone = recipient(ctx, input.recipient_phone);
  checkRate(ctx);
  const sender = findSender(ctx, input.sender_id);
  if (sender.status !== 'online') throw msgappErrors.senderOfflineTemplate();
  const template = ctx.templates.get(input.template_id);
  if (!template || template.sender_id !== sender.id) throw msgappErrors.templateNotFound();
  if (template.status !== 'approved') throw msgappErrors.templateNotApproved(template.status);
  const values = templateValues(template, input.variables);
  checkMessagingLimit(ctx, sender, phone);
  const price = ctx.account.rates.template_message_micros;
  if (ctx.account.balance_micros < price) throw msgappErrors.insufficientBalance();

  ctx.chargeAccount(price);
  countSend(ctx);
  const { conversation, session } = channelConversation(ctx, sender, phone, input.recipient_name ?? null);
  const { chat, record } = recordOutbound(ctx, sender, conversation, 'template', fillTemplate(template.body_text, values), price);
  openWindow(ctx, session, false);
  return { success: true, conversation_id: conversation.id, message_id: chat.id, whatsapp_message_id: record.id, message_sid: record.message_sid, status: record.status };
}

/**
 * Sends free text inside an open window (spec: Send freeform). Checks in order:
 * number, rate, sender, sender online (503), window open (403), balance.
 */
export function sendFreeform(ctx: AccountCtx, input: SendFreeformInput): FreeformSentAnswer {
  const phone = recipient(ctx, input.recipient_phone);
  checkRate(ctx);
  const sender = findSender(ctx, input.sender_id);
  if (sender.status !== 'online') throw msgappErrors.senderOfflineFreeform();
  const existing = sessionOf(ctx, sender.id, phone);
  if (!isOpen(existing, ctx.now())) throw msgappErrors.sessionExpired(existing);
  const price = ctx.account.rates.freeform_message_micros;
  if (ctx.account.balance_micros < price) throw msgappErrors.insufficientBalance();

  ctx.chargeAccount(price);
  countSend(ctx);
  const { conversation, session } = channelConversation(ctx, sender, phone, null);
  const { chat, record } = recordOutbound(ctx, sender, conversation, 'freeform', input.message, price);
  return { success: true, conversation_id: conversation.id, message_id: chat.id, whatsapp_message_id: record.id, message_sid: record.message_sid, session_status: sessionStatus(ctx, session) };
}

/**
 * A customer writes to a sender (control API): text, media or a voice note (live-platform
 * H.6). The window opens or resets to 24 hours,
 * the message lands in the channel conversation and, with AI on and an assistant on the
 * sender, the scripted reply answers.
 */
export function receiveCustomerMessage(state: SimState, input: InboundInput): InboundAnswer {
  const bag = new ErrorBag();
  const senderRow = state.db.senders.get(input.sender_id);
  if (!senderRow) bag.rule('sender_id', 'exists');
  const from = readE164(input.from.trim(), state.wire);
  if (!from) bag.add('from', 'The from must be a valid phone number in E.164 format.');
  bag.throwIfAny();
  const ctx = accountCtx(state.db.accounts.get(senderRow!.account_id)!, state);
  const sender = ctx.senders.get(senderRow!.id)!;
  const { conversation, session } = channelConversation(ctx, sender, from!.number, input.name ?? null);
  const opened = openWindow(ctx, session, true);
  // live-platform H.6: media reads as its caption or `[Image]`, a voice note as its transcription.
  const { content, media } = inboundContent(input);
  insertChannelMessage(ctx, sender, conversation, { direction: 'inbound', kind: 'customer', body: content, status: 'received', cost_micros: 0 });
  receiveMessage(ctx, conversation, content, media);
  return { conversation_id: conversation.id, session_status: sessionStatus(ctx, opened) };
}

/** The failure texts of a code (live-platform H.4): the reference's for 63016, `Provider error <code>` for any other. */
export function failureTexts(code: number): { error_message: string; error_description: string } {
  if (code === 63016) return { error_message: 'Template message 24h window expired', error_description: 'Template message 24h window expired - customer must reply first' };
  return { error_message: `Provider error ${code}`, error_description: `Provider error ${code}` };
}

/** The status after `status` under `plan`, and how long after it; undefined when it is the last. */
function nextStatus(status: string, plan: DeliveryPlan): { status: ReceiptFacts['status']; after: number } | undefined {
  if (status === 'queued') return { status: 'sent', after: STATUS_DELAYS_MS.sent };
  if (status === 'sent') {
    if (plan.kind === 'failed' || plan.kind === 'undelivered') return { status: plan.kind, after: plan.after_ms };
    return { status: 'delivered', after: plan.kind === 'delivered' ? plan.after_ms : STATUS_DELAYS_MS.delivered };
  }
  if (status === 'delivered' && plan.kind === 'read') return { status: 'read', after: plan.after_ms };
  return undefined;
}

/** What a read receipt says of its message (live-platform H.4). */
interface ReceiptFacts {
  whatsapp_message_id: number;
  message_sid: string;
  conversation_id: string | null;
  to: string;
  status: Exclude<MessageStatus, 'queued'>;
  error_code: number | null;
}

/** The read-receipts body, keys in the reference's order (live-platform H.4); failure texts only with a code. */
function receiptBody(ctx: AccountCtx, sender: Sender, facts: ReceiptFacts, at: number): ReadReceiptWebhookBody {
  const assistant = sender.assistant_id === null ? undefined : ctx.assistants.get(sender.assistant_id);
  return {
    event: 'message_status',
    whatsapp_message_id: facts.whatsapp_message_id,
    message_sid: facts.message_sid,
    meta_message_id: null,
    conversation_id: facts.conversation_id,
    assistant_id: assistant?.uuid ?? null,
    sender: { id: sender.id, phone_number: sender.phone_number, display_name: sender.display_name },
    to: facts.to,
    from: sender.phone_number,
    direction: 'outbound',
    status: facts.status,
    error_code: facts.error_code,
    ...(facts.error_code === null ? { error_message: null, error_description: null } : failureTexts(facts.error_code)),
    timestamp: formatIsoOffset(at, ctx.account.timezone),
    provider_timestamp: null,
  };
}

/** Hands a status change to the sender's read-receipts URL, signed with its secret (live-platform H.4); nothing when it has none. */
function sendReadReceipt(ctx: AccountCtx, sender: Sender, body: ReadReceiptWebhookBody): void {
  const url = sender.read_receipts_webhook_url;
  if (!url || !sender.read_receipts_signing_secret) return;
  ctx.sendWebhook('read_receipt', url, body, sender.read_receipts_signing_secret);
}

/**
 * A sent message's next status is due (live-platform H.4): the status moves one step
 * forward (never backward), the change is told on the event stream and posted to the
 * sender's read-receipts URL, and the step after it is scheduled.
 */
export function advanceMessageStatus(ctx: AccountCtx, payload: MessageStatusPayload): void {
  const message = ctx.channelMessages.get(payload.message_id);
  if (!message || !message.plan) return;
  const step = nextStatus(message.status, message.plan);
  if (!step) {
    ctx.channelMessages.update(message.id, { status_event_id: null });
    return;
  }
  const now = ctx.now();
  const failing = step.status === 'failed' || step.status === 'undelivered';
  const following = nextStatus(step.status, message.plan);
  const eventId = following ? ctx.schedule<MessageStatusPayload>(now + following.after, MESSAGE_STATUS_EVENT, { account_id: ctx.account.id, message_id: message.id }) : null;
  const updated = ctx.channelMessages.update(message.id, {
    status: step.status,
    status_history: [...(message.status_history ?? []), { status: step.status, at: now }],
    status_event_id: eventId,
    ...(failing && { error_code: message.plan.error_code }),
  });
  const sender = ctx.senders.get(message.sender_id);
  const conversation = ctx.conversations.get(message.conversation_id);
  ctx.emit('msgapp.message_status', {
    whatsapp_message_id: message.id,
    sender_id: message.sender_id,
    recipient_phone: conversation?.customer_phone ?? '',
    status: step.status,
    error_code: failing ? message.plan.error_code : null,
  });
  const { status } = step;
  const facts = { whatsapp_message_id: updated.id, message_sid: updated.message_sid, conversation_id: conversation?.uuid ?? null, to: conversation?.customer_phone ?? '', status, error_code: failing ? message.plan.error_code : null };
  if (sender) sendReadReceipt(ctx, sender, receiptBody(ctx, sender, facts, now));
}

/** The reference's "Delivered" example as a test event (live-platform H.4), with the sender's own values and `test: true`. */
export const TEST_RECEIPT = { whatsapp_message_id: 12345, message_sid: 'SM1234567890abcdef1234567890abcdef', to: '+1234567890' } as const;

/**
 * `POST /__sim/msgapp/senders/{id}/test-receipt`: one `delivered` event with the
 * reference's example values and `test: true` to the sender's URL, signed; 422 when the
 * sender has no URL. Answers the delivery's id.
 */
export function sendTestReceipt(state: SimState, id: number): { delivery_id: number } {
  const sender = state.db.senders.get(id);
  if (!sender) throw new SimError(404, { message: 'Sender not found.' });
  if (!sender.read_receipts_webhook_url || !sender.read_receipts_signing_secret) {
    new ErrorBag().add('read_receipts_webhook_url', 'The sender has no read_receipts_webhook_url: set one with PATCH /__sim/msgapp/senders/{id}.').throwIfAny();
  }
  const ctx = accountCtx(state.db.accounts.get(sender.account_id)!, state);
  const facts: ReceiptFacts = { ...TEST_RECEIPT, conversation_id: null, status: 'delivered', error_code: null };
  const body: ReadReceiptWebhookBody = { ...receiptBody(ctx, sender, facts, ctx.now()), test: true };
  const delivery = state.webhooks.send({ account_id: sender.account_id, kind: 'read_receipt', url: sender.read_receipts_webhook_url!, payload: body, signWith: sender.read_receipts_signing_secret! });
  return { delivery_id: delivery.id };
}

/**
 * A new signing secret: 64 hex digits from the seeded generator, derived from the seed, the
 * sender and the secret it replaces, so a test knows it and no other draw of the simulator moves.
 */
function signingSecret(state: SimState, sender: Sender): string {
  const random = SeededRandom.derive(state.random.seed, 'read-receipts-secret', sender.account_id, sender.id, sender.read_receipts_signing_secret ?? '');
  return random.faker.string.hexadecimal({ length: 64, casing: 'lower', prefix: '' });
}

/** The row of a sender of any account, or 404 shape A (the control API's). */
function senderRow(state: SimState, id: number): Sender {
  const sender = state.db.senders.get(id);
  if (!sender) throw new SimError(404, { message: 'Sender not found.' });
  return sender;
}

/** An assistant of the sender's account, or 422 on the field (the control API's). */
function checkAssistant(state: SimState, accountId: number, assistantId: number | null | undefined): void {
  if (assistantId == null) return;
  const assistant = state.db.assistants.get(assistantId);
  if (!assistant || assistant.account_id !== accountId) new ErrorBag().rule('assistant_id', 'exists').throwIfAny();
}

/** The read-receipts fields a URL change makes: the secret is made when a URL is first set, and kept after. */
function webhookFields(state: SimState, sender: Sender, input: { read_receipts_webhook_url?: string | null | undefined; regenerate_signing_secret?: true | undefined }): Partial<Sender> {
  const fields: Partial<Sender> = {};
  if (input.read_receipts_webhook_url !== undefined) fields.read_receipts_webhook_url = input.read_receipts_webhook_url;
  const needsFirst = input.read_receipts_webhook_url != null && sender.read_receipts_signing_secret == null;
  if (needsFirst || input.regenerate_signing_secret) fields.read_receipts_signing_secret = signingSecret(state, sender);
  return fields;
}

/**
 * Sets a sender online or offline, which assistant answers its customers, its
 * `messaging_limit`, and its read-receipts URL and secret (control API; live-platform H.4, H.5).
 */
export function patchSender(state: SimState, id: number, input: SenderPatchInput): Sender {
  const sender = senderRow(state, id);
  checkAssistant(state, sender.account_id, input.assistant_id);
  const updated = state.db.senders.update(id, {
    ...(input.online !== undefined && { status: input.online ? 'online' : 'offline' }),
    ...(input.assistant_id !== undefined && { assistant_id: input.assistant_id }),
    ...(input.messaging_limit !== undefined && { messaging_limit: input.messaging_limit }),
    ...webhookFields(state, sender, input),
  });
  // Conversations already open with this sender are answered by the new assistant too.
  if (input.assistant_id !== undefined) {
    for (const conversation of state.db.conversations.where('account', sender.account_id)) {
      if (conversation.sender_id === id) state.db.conversations.update(conversation.id, { assistant_id: input.assistant_id });
    }
  }
  return updated;
}

/** The account a control input names (default 1), or 422 on `account_id`. */
function accountOf(state: SimState, accountId: number | undefined) {
  const account = state.db.accounts.get(accountId ?? 1);
  if (!account) new ErrorBag().rule('account_id', 'exists').throwIfAny();
  return account!;
}

/**
 * `POST /__sim/msgapp/senders` (live-platform H.5): a sender of one's own. Without a
 * number it gets the next free `+1415555` number (fixtures take 0100 up); a number in use
 * by another sender is refused.
 */
export function createSender(state: SimState, input: CreateSenderInput): Sender {
  const account = accountOf(state, input.account_id);
  const bag = new ErrorBag();
  let phone: string | undefined;
  if (input.phone_number !== undefined) {
    phone = readE164(input.phone_number.trim(), 'live')?.number;
    if (!phone) bag.add('phone_number', 'The phone number must be a valid phone number in E.164 format.');
    else if (state.db.senders.all().some((s) => s.phone_number === phone)) bag.add('phone_number', 'The phone number has already been taken.');
  }
  if (input.assistant_id != null) {
    const assistant = state.db.assistants.get(input.assistant_id);
    if (!assistant || assistant.account_id !== account.id) bag.rule('assistant_id', 'exists');
  }
  bag.throwIfAny();
  const ctx = accountCtx(account, state);
  const taken = new Set(state.db.senders.all().map((s) => s.phone_number));
  let suffix = 200;
  while (phone === undefined) {
    const candidate = `+1415555${String(suffix++).padStart(4, '0')}`;
    if (!taken.has(candidate)) phone = candidate;
  }
  const created = ctx.senders.insert({
    phone_number: phone,
    display_name: input.display_name,
    status: input.status,
    quality_rating: input.quality_rating,
    messaging_limit: input.messaging_limit,
    assistant_id: input.assistant_id,
    read_receipts_webhook_url: null,
    read_receipts_signing_secret: null,
  });
  const fields = webhookFields(state, created, input);
  return Object.keys(fields).length > 0 ? state.db.senders.update(created.id, fields) : created;
}

/** The placeholders of a template body in order of first use: `{{1}}`, `{{name}}` (live-platform H.5). */
export function placeholdersOf(body: string): string[] {
  const names: string[] = [];
  for (const match of body.matchAll(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g)) if (!names.includes(match[1]!)) names.push(match[1]!);
  return names;
}

/**
 * `POST /__sim/msgapp/templates` (live-platform H.5): a template of a sender, its
 * variables the body's placeholders unless given; every given variable must appear in the body.
 */
export function createTemplate(state: SimState, input: CreateTemplateInput): Template {
  const sender = state.db.senders.get(input.sender_id);
  const bag = new ErrorBag();
  if (!sender) bag.rule('sender_id', 'exists');
  const placeholders = placeholdersOf(input.body_text);
  const variables = input.variables ?? placeholders;
  const missing = variables.filter((v) => !placeholders.includes(v));
  if (missing.length > 0) bag.add('variables', `Every variable must appear in the body as {{name}}: ${missing.join(', ')} does not.`);
  else if (new Set(variables).size !== variables.length) bag.add('variables', 'The variables must be distinct.');
  bag.throwIfAny();
  const ctx = accountCtx(state.db.accounts.get(sender!.account_id)!, state);
  return ctx.templates.insert({ sender_id: sender!.id, name: input.name, language: input.language, category: input.category, status: input.status, body_text: input.body_text, variables });
}

/** `PATCH /__sim/msgapp/templates/{id}`: a template's review status (live-platform H.5). */
export function patchTemplate(state: SimState, id: number, status: TemplateStatus): Template {
  if (!state.db.templates.get(id)) throw new SimError(404, { message: 'Template not found.' });
  return state.db.templates.update(id, { status });
}

/** `GET /__sim/msgapp/messages`: the channel's messages with their status history, in id order. */
export function listChannelMessages(state: SimState, filter: { account_id?: number | undefined; sender_id?: number | undefined; recipient_phone?: string | undefined }): ChannelMessageRecord[] {
  const rows = filter.sender_id !== undefined ? state.db.channelMessages.select('sender', filter.sender_id) : state.db.channelMessages.all();
  const out: ChannelMessageRecord[] = [];
  for (const m of rows) {
    if (filter.account_id !== undefined && m.account_id !== filter.account_id) continue;
    const conversation = state.db.conversations.get(m.conversation_id);
    const customer = conversation?.customer_phone ?? '';
    if (filter.recipient_phone !== undefined && customer !== filter.recipient_phone) continue;
    const sender = state.db.senders.get(m.sender_id);
    const outbound = m.direction === 'outbound';
    const failed = m.error_code != null;
    out.push({
      whatsapp_message_id: m.id,
      account_id: m.account_id,
      sender_id: m.sender_id,
      conversation_id: m.conversation_id,
      direction: m.direction,
      kind: m.kind,
      to: outbound ? customer : (sender?.phone_number ?? ''),
      from: outbound ? (sender?.phone_number ?? '') : customer,
      body: m.body,
      message_sid: m.message_sid,
      status: m.status,
      status_history: (m.status_history ?? []).map((h) => ({ status: h.status, at: formatControlTime(h.at) })),
      error_code: m.error_code ?? null,
      ...(failed ? failureTexts(m.error_code!) : { error_message: null, error_description: null }),
      cost: m.cost_micros / 1_000_000,
      created_at: formatControlTime(m.created_at),
    });
  }
  return out;
}

/** A customer's media as the message keeps it, and the content it reads as (live-platform H.3, H.6). */
export function inboundContent(input: Pick<InboundInput, 'text' | 'media' | 'voice_note'>): { content: string; media: InboundMedia | undefined } {
  if (input.voice_note) return { content: input.voice_note.transcription, media: { type: 'audio', filename: VOICE_NOTE_FILENAME, caption: null, voice_note: true } };
  if (input.media) {
    const { type, filename, caption } = input.media;
    const placeholder = `[${type[0]!.toUpperCase()}${type.slice(1)}]`;
    return { content: caption ?? placeholder, media: { type, filename: filename ?? DEFAULT_FILENAMES[type], caption: caption ?? null, voice_note: false } };
  }
  return { content: input.text!, media: undefined };
}
