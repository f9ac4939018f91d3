/**
 * The messaging-application channel (spec: Messaging-application channel; States >
 * Messaging session; decisions: Messaging senders/templates, Session status, Messaging
 * prices, Messaging rate limit, Rate limit window, Template variables; ARCHITECTURE §4
 * Messaging sessions).
 */
import { SimError, shapeD } from '../../core/errors.js';
import { counted, retryAfter, type SlidingLimit } from '../../core/rate-limit.js';
import { formatControlTime, formatIsoOffset } from '../../core/time.js';
import { ErrorBag } from '../../core/validation.js';
import { fillTemplate } from '../../core/template.js';
import { say, texts, type Texts, type Wire } from '../../core/wire.js';
import fixtures from '../../../fixtures/msgapp.json' with { type: 'json' };
import { accountCtx, type AccountCtx } from '../context.js';
import type { SimState } from '../state.js';
import type { Conversation } from '../conversations/schema.js';
import { armInactivity, insertConversation, receiveMessage } from '../conversations/service.js';
import { readE164 } from '../../core/phone.js';
import type { ChannelMessage, FreeformSentAnswer, InboundAnswer, Sender, SendFreeformInput, SendTemplateInput, Session, SessionStatusAnswer, SessionStatusRecord, Template, TemplateSentAnswer } from './schema.js';

/** The session window (spec: Limits: Session window). */
export const SESSION_WINDOW_MS = 24 * 3_600_000;
/** Rate limit of the two sends (spec: Limits: Request rate): 5 per second per user, sliding. */
export const RATE_LIMIT: SlidingLimit = { max: 5, windowMs: 1_000 };
export const SESSION_CLOSE_EVENT = 'msgapp.session_close';
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
  fields: Pick<ChannelMessage, 'direction' | 'kind' | 'body' | 'status' | 'cost_micros'>,
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
  const chat = ctx.messages.insert({ conversation_id: conversation.id, role: 'assistant', content: body, function_calls: null, created_at: ctx.now() });
  const record = insertChannelMessage(ctx, sender, conversation, { direction: 'outbound', kind, body, status: 'queued', cost_micros: cost });
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
 * Sends an approved template; a successful send opens the 24-hour window (spec: Send
 * template). Checks in order: number, rate, sender, sender online, template, approved,
 * variables, balance.
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
 * A customer writes to a sender (control API): the window opens or resets to 24 hours,
 * the message lands in the channel conversation and, with AI on and an assistant on the
 * sender, the scripted reply answers.
 */
export function receiveCustomerMessage(state: SimState, input: { sender_id: number; from: string; text: string; name?: string | undefined }): InboundAnswer {
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
  insertChannelMessage(ctx, sender, conversation, { direction: 'inbound', kind: 'customer', body: input.text, status: 'received', cost_micros: 0 });
  receiveMessage(ctx, conversation, input.text);
  return { conversation_id: conversation.id, session_status: sessionStatus(ctx, opened) };
}

/** Sets a sender online or offline, and which assistant answers its customers (control API). */
export function patchSender(state: SimState, id: number, input: { online?: boolean | undefined; assistant_id?: number | null | undefined }): Sender {
  const sender = state.db.senders.get(id);
  if (!sender) throw new SimError(404, { message: 'Sender not found.' });
  if (input.assistant_id != null) {
    const assistant = state.db.assistants.get(input.assistant_id);
    if (!assistant || assistant.account_id !== sender.account_id) new ErrorBag().rule('assistant_id', 'exists').throwIfAny();
  }
  const updated = state.db.senders.update(id, {
    ...(input.online !== undefined && { status: input.online ? 'online' : 'offline' }),
    ...(input.assistant_id !== undefined && { assistant_id: input.assistant_id }),
  });
  // Conversations already open with this sender are answered by the new assistant too.
  if (input.assistant_id !== undefined) {
    for (const conversation of state.db.conversations.where('account', sender.account_id)) {
      if (conversation.sender_id === id) state.db.conversations.update(conversation.id, { assistant_id: input.assistant_id });
    }
  }
  return updated;
}

