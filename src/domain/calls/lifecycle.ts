/**
 * The call lifecycle on the clock (ARCHITECTURE §4 Call lifecycle; decisions: Call
 * transitions, Billing defaults, Costs of unanswered calls, Recording, Post-call webhook
 * payload). A placed call is `initiated`; a second later it rings; after its ring time it
 * is answered (`in-progress`, then its final status after the talk time) or ends
 * `busy`, `no-answer` or `failed`. The outcome is decided when the call is placed.
 */
import { simEventShape } from '../sim-events.js';
import { nestsTooDeep } from '../../core/validation.js';
import { fromMicros } from '../../core/money.js';
import { fillPromptVariables, hasPlaceholder, systemValues, type SystemValues } from '../../core/prompt-variables.js';
import { callToolByName } from '../tools/calls.js';
import { formatIsoOffset } from '../../core/time.js';
import type { DialContext, Outcome, OutcomeName, OutcomeObject, OutcomeSource } from '../../engine/outcomes.js';
import { sampleValue, type Assistant } from '../assistants/schema.js';
import type { AccountCtx, EventData } from '../context.js';
import { callCosts } from './billing.js';
import { callRow } from './row.js';
import { recordingLink, recordingUrl } from './recording.js';
import { callValuesWithBuiltIns } from './evaluation.js';
import { NO_VALUES, UNANSWERED_STATUSES, formatZuluSeconds, type Call, type CallPlan, type CallStatus, type PlannedToolCall, type CallType, type LivePostCallWebhookBody, type PostCallWebhookBody } from './schema.js';

export const CALL_RING_EVENT = 'call.ring';
export const CALL_CONNECT_EVENT = 'call.connect';
export const CALL_END_EVENT = 'call.end';
/** A planned mid-call tool's moment (live-platform H.10): `index` is its place in the plan's `tool_calls`. */
export const CALL_TOOL_EVENT = 'call.tool';
export interface CallToolPayload {
  account_id: number;
  call_id: number;
  index: number;
}
export interface CallEventPayload {
  account_id: number;
  call_id: number;
}

/** Seconds from placing a call to its ringing. */
export const DIAL_SECONDS = 1;

const FINAL_STATUS: Record<OutcomeName, CallStatus> = {
  human: 'completed',
  'goal-incomplete': 'ended_by_customer',
  voicemail: 'ended',
  busy: 'busy',
  'no-answer': 'no-answer',
  failed: 'failed',
};

// Small phrase banks: transcripts read like a real exchange, yet cost a few random draws.
const OPENERS = ['Hi, yes, I have a minute.', 'Hello, who is this?', 'Sure, go ahead.', 'Yes, speaking.', 'Hi there.'];
const PITCHES = [
  "I'm calling about your recent enquiry. Would you like to book a short call with our team?",
  'I wanted to follow up on your request. Is now a good time to go over the details?',
  'We have a few openings this week. Shall I reserve one for you?',
];
const AGREEMENTS = ['Yes, that works for me.', 'Sounds good, let us do that.', 'Sure, please book it.', 'Okay, Thursday afternoon is fine.'];
const CLOSINGS = ["Perfect, you're all set. Thank you for your time, goodbye!", 'Great, I have booked that for you. Have a nice day!'];
const BRUSH_OFFS = ["Sorry, I can't talk right now.", 'Not interested, thanks.', 'Can you call back another time?'];
const VOICEMAIL_GREETINGS = ["Hi, you've reached my voicemail. Please leave a message after the tone.", 'The person you are calling is not available. Please leave a message.'];

/** A seeded position in a phrase bank. */
function index(ctx: AccountCtx, list: readonly unknown[]): number {
  return ctx.random.int(0, list.length - 1);
}

/** Values collected during a call, typed per the assistant's post_call_schema. */
function collectedVariables(ctx: AccountCtx, assistant: Assistant, goalMet: boolean): Record<string, unknown> {
  if (assistant.post_call_schema.length === 0) return NO_VALUES;
  const values: Record<string, unknown> = {};
  for (const item of assistant.post_call_schema) {
    if (item.type === 'bool') values[item.name] = goalMet;
    else if (!goalMet) values[item.name] = null;
    else values[item.name] = sampleValue(ctx.random, item.type);
  }
  return values;
}

function transcriptOf(lines: NonNullable<OutcomeObject['transcript']>): string {
  return lines
    .map((line) => (typeof line === 'string' ? line : `${line.role === 'assistant' ? 'Assistant' : 'Customer'}: ${line.content}`))
    .join('\n');
}

/** The course of a call from its scripted outcome, with seeded defaults for what the script leaves out. */
export function planCall(ctx: AccountCtx, assistant: Assistant, outcome: Outcome, source: OutcomeSource, variables: CallVariables): CallPlan {
  // A named outcome is an object with only its kind (no object is made for it).
  const o: OutcomeObject | undefined = typeof outcome === 'string' ? undefined : outcome;
  const kind = typeof outcome === 'string' ? outcome : (outcome.kind ?? 'human');
  const answeredBy = o?.answered_by ?? (kind === 'voicemail' ? 'machine' : kind === 'human' || kind === 'goal-incomplete' ? 'human' : 'unknown');
  const defaultRing =
    kind === 'no-answer' ? assistant.ringing_time : kind === 'busy' ? 2 : kind === 'failed' ? 1 : kind === 'voicemail' ? ctx.random.int(8, 20) : ctx.random.int(3, 10);
  const voicemailTalk = assistant.voice_mail_message !== null ? 5 + Math.ceil(assistant.voice_mail_message.length / 15) : assistant.end_call_on_voicemail ? 3 : 20;
  const defaultTalk = UNANSWERED_STATUSES.has(FINAL_STATUS[kind]) ? 0 : kind === 'voicemail' ? voicemailTalk : kind === 'goal-incomplete' ? ctx.random.int(10, 30) : ctx.random.int(45, 240);
  let talk = o?.talk_seconds ?? defaultTalk;
  let finalStatus = o?.status ?? FINAL_STATUS[kind];
  // decisions: duration never exceeds max_duration; the assistant ends the call at the limit.
  if (talk > assistant.max_duration) {
    talk = assistant.max_duration;
    // A voicemail still ends `ended` (decisions: Call transitions).
    if (o?.status === undefined && answeredBy === 'human') finalStatus = 'ended_by_assistant';
  }
  const ring = o?.ring_seconds ?? defaultRing;
  const talkSeconds = UNANSWERED_STATUSES.has(finalStatus) ? 0 : talk;
  const transcript = o?.transcript ? transcriptOf(o.transcript) : defaultTranscript(ctx, assistant, kind, finalStatus, variables);
  // Scripted values make a plan of the call's own; the rest is looked up before a plan is built.
  if (o?.variables !== undefined || o?.evaluation !== undefined || o?.tool_calls !== undefined) {
    const plan: CallPlan = { kind, source, answered_by: answeredBy, final_status: finalStatus, ring_seconds: ring, talk_seconds: talkSeconds, transcript, variables: o.variables ?? null, evaluation: o.evaluation ?? null };
    if (o.tool_calls !== undefined && o.tool_calls.length > 0) plan.tool_calls = plannedToolCalls(o.tool_calls, talkSeconds);
    return ctx.callMemo.plan(plan);
  }
  return ctx.callMemo.planOf(kind, source, answeredBy, finalStatus, ring, talkSeconds, transcript);
}

/**
 * The seconds of the talk each tool is called at (live-platform H.10): its `at`, else its
 * place in order spread evenly through the talk (the i-th of n at talk × i / (n + 1));
 * never past the end of the talk.
 */
function plannedToolCalls(items: NonNullable<OutcomeObject['tool_calls']>, talkSeconds: number): PlannedToolCall[] {
  return items.map((item, i) => ({
    tool: item.tool,
    arguments: item.arguments,
    at: Math.min(item.at ?? Math.floor((talkSeconds * (i + 1)) / (items.length + 1)), talkSeconds),
  }));
}

/**
 * What a call's texts are filled from (live-platform H.8): the call's input variables,
 * then the lead's over them, and the facts of the system variables (the numbers, the
 * call's start).
 */
interface CallVariables {
  input: Record<string, unknown>;
  lead: Record<string, unknown> | null;
  customer_phone: string;
  assistant_phone: string;
  /** When the call was placed. */
  at: number;
}

/**
 * A text with the call's prompt variables filled in (live-platform H.8), worked only
 * when it has a placeholder: the dialer's calls mostly greet with a plain text.
 */
function filled(text: string, assistant: Assistant, variables: CallVariables): string {
  if (!hasPlaceholder(text)) return text;
  const facts = promptFacts(assistant, variables);
  return fillPromptVariables(text, facts.system, facts.variables);
}

/** What a call's texts are filled from: the system values, worked out on first use, and the variables (the assistant's, the call's input, its lead's over them). */
function promptFacts(assistant: Assistant, variables: CallVariables): { system: () => SystemValues; variables: Record<string, unknown> } {
  return {
    system: () =>
      systemValues({
        customer_phone: variables.customer_phone || null,
        assistant_phone: variables.assistant_phone || null,
        assistant_uuid: assistant.uuid,
        assistant_name: assistant.name,
        at: variables.at,
        timezone: assistant.timezone,
      }),
    variables: { ...assistant.variables, ...variables.input, ...variables.lead },
  };
}

/**
 * Any text of the assistant's (its `system_prompt`, a mid-call tool's URL, header value or
 * body field) filled for a call as its greeting is (live-platform H.8): the assistant's
 * variables, the call's input variables, its lead's, and the system variables at the
 * call's start. A text without a placeholder is answered as it is.
 * @example callPromptText(ctx, call, assistant, assistant.system_prompt)
 */
export function callPromptText(ctx: AccountCtx, call: Call, assistant: Assistant, text: string): string {
  if (!hasPlaceholder(text)) return text;
  const facts = callPromptFacts(ctx, call, assistant);
  return fillPromptVariables(text, facts.system, facts.variables);
}

/**
 * What `callPromptText` fills from, for fillers of their own (a mid-call tool's URL encodes
 * what it fills, live-platform H.10): the system values, worked out on first use, and the
 * variables (the assistant's, the call's input variables, its lead's over them).
 */
export function callPromptFacts(ctx: AccountCtx, call: Call, assistant: Assistant): { system: () => SystemValues; variables: Record<string, unknown> } {
  const lead = call.lead_id === null ? undefined : ctx.leads.get(call.lead_id);
  return promptFacts(assistant, {
    input: call.input_variables,
    lead: lead?.variables ?? null,
    customer_phone: call.client_phone_number,
    assistant_phone: call.assistant_phone_number,
    at: call.created_at,
  });
}

// The texts of the phrase banks from their head and picks (what the call memo keys them by), built on a miss.
const voicemailText = (_head: string, greeting: number) => `Customer: ${VOICEMAIL_GREETINGS[greeting]!}`;
const voicemailMessageText = (message: string, greeting: number) => `Customer: ${VOICEMAIL_GREETINGS[greeting]!}\nAssistant: ${message}`;
const brushOffText = (greeting: string, brushOff: number) => `Assistant: ${greeting}\nCustomer: ${BRUSH_OFFS[brushOff]!}\nAssistant: No problem, I'll try another time. Goodbye!`;
function humanText(greeting: string, combination: number): string {
  const closing = combination % CLOSINGS.length;
  const agreement = Math.floor(combination / CLOSINGS.length) % AGREEMENTS.length;
  const pitch = Math.floor(combination / (CLOSINGS.length * AGREEMENTS.length)) % PITCHES.length;
  const opener = Math.floor(combination / (CLOSINGS.length * AGREEMENTS.length * PITCHES.length));
  return [`Assistant: ${greeting}`, `Customer: ${OPENERS[opener]!}`, `Assistant: ${PITCHES[pitch]!}`, `Customer: ${AGREEMENTS[agreement]!}`, `Assistant: ${CLOSINGS[closing]!}`].join('\n');
}

/**
 * A transcript from the phrase banks. The picks are drawn in the order the lines read,
 * then the text is looked up by its head and picks (calls with the same greeting share one).
 */
function defaultTranscript(ctx: AccountCtx, assistant: Assistant, kind: OutcomeName, status: CallStatus, variables: CallVariables): string {
  if (UNANSWERED_STATUSES.has(status)) return '';
  if (kind === 'voicemail') {
    const greeting = index(ctx, VOICEMAIL_GREETINGS);
    // ARCHITECTURE §4: voicemail leaves voice_mail_message in the transcript.
    if (assistant.voice_mail_message === null) return ctx.callMemo.text('voicemail', '', greeting, voicemailText);
    return ctx.callMemo.text('voicemail-message', filled(assistant.voice_mail_message, assistant, variables), greeting, voicemailMessageText);
  }
  const greeting = filled(assistant.initial_message, assistant, variables);
  if (kind === 'goal-incomplete') return ctx.callMemo.text(kind, greeting, index(ctx, BRUSH_OFFS), brushOffText);
  const opener = index(ctx, OPENERS);
  const pitch = index(ctx, PITCHES);
  const agreement = index(ctx, AGREEMENTS);
  const closing = index(ctx, CLOSINGS);
  return ctx.callMemo.text('human', greeting, ((opener * PITCHES.length + pitch) * AGREEMENTS.length + agreement) * CLOSINGS.length + closing, humanText);
}

/** `call.status` events: a placed call, a call moving on, an ended call (what a watcher of the end wants to know added). */
const CALL_PLACED_EVENT = simEventShape('call.status', ['account_id', 'call_id', 'status', 'campaign_id', 'lead_id', 'type', 'phone_number']);
const CALL_STATUS_EVENT = simEventShape('call.status', ['account_id', 'call_id', 'status', 'campaign_id', 'lead_id']);
const CALL_ENDED_EVENT = simEventShape('call.status', ['account_id', 'call_id', 'status', 'campaign_id', 'lead_id', 'ended', 'answered_by', 'duration', 'total_cost']);

/**
 * The fields each move of a call writes, in place (`Table.changing`): the dialer moves
 * every call three or four times, and typed writes cost less than a patch's.
 */
const RING_FIELDS = ['status', 'updated_at', 'event_id'] as const satisfies readonly (keyof Call)[];
const ANSWER_FIELDS = ['status', 'updated_at', 'event_id', 'answered_at', 'answered_by'] as const satisfies readonly (keyof Call)[];
const END_FIELDS = [
  'status',
  'updated_at',
  'event_id',
  'ended_at',
  'duration',
  'answered_by',
  'transcript',
  'variables',
  'evaluation',
  'carrier_cost_micros',
  'total_cost_micros',
  'recording_url',
] as const satisfies readonly (keyof Call)[];

/** What a new call is made of; the rest starts empty. */
export interface NewCall {
  assistant: Assistant;
  assistant_phone_number: string;
  client_phone_number: string;
  type: CallType;
  campaign?: { id: number; name: string } | null;
  lead_id?: number | null;
  contact_id?: number | null;
  input_variables: Record<string, unknown>;
  /** Lead variables an outcome rule may match (campaign dials). */
  lead_variables?: Record<string, unknown> | null;
}

/**
 * Places a call: the record, `initiated`, with its assistant made `active` (decisions:
 * Assistant activation happens when a call is initiated); its outcome decided from the
 * outcome script; its ring one second later on the clock. Campaign dials, make_call
 * and inbound calls all place calls here.
 * @example placeCall(ctx, { assistant, assistant_phone_number: '+14155550100', client_phone_number: '+14155550123', type: 'outbound', input_variables: {} })
 */
export function placeCall(ctx: AccountCtx, c: NewCall): Call {
  const now = ctx.now();
  if (c.assistant.status !== 'active') ctx.assistants.update(c.assistant.id, { status: 'active' });
  // The outcome and the ring are decided for the id the call will take, so the row is stored once, whole.
  const plan = decideCall(ctx, c.assistant, c.input_variables, c.assistant_phone_number, { phone_number: c.client_phone_number, campaign_id: c.campaign?.id ?? null, lead_variables: c.lead_variables ?? null });
  const eventId = scheduleRing(ctx, ctx.calls.nextId());
  const call = ctx.calls.insertRow((id, accountId) =>
    callRow(id, {
      account_id: accountId,
      assistant_id: c.assistant.id,
      assistant_name: c.assistant.name,
      campaign_id: c.campaign?.id ?? null,
      campaign_name: c.campaign?.name ?? null,
      lead_id: c.lead_id ?? null,
      contact_id: c.contact_id ?? null,
      type: c.type,
      assistant_phone_number: c.assistant_phone_number,
      client_phone_number: c.client_phone_number,
      input_variables: c.input_variables,
      plan,
      event_id: eventId,
      created_at: now,
    }, ctx.callMemo.heads),
  );
  ctx.emitValues(CALL_PLACED_EVENT, ctx.account.id, call.id, 'initiated', call.campaign_id, call.lead_id, call.type, call.client_phone_number);
  return call;
}

/** A new call's plan, from the outcome script. */
function decideCall(ctx: AccountCtx, assistant: Assistant, input: Record<string, unknown>, assistantPhone: string, dial: DialContext): CallPlan {
  const { outcome, source } = ctx.nextOutcome(dial);
  return planCall(ctx, assistant, outcome, source, { input, lead: dial.lead_variables, customer_phone: dial.phone_number, assistant_phone: assistantPhone, at: ctx.now() });
}

/** A call's ring, one second from now on the clock; answers the event's id. */
function scheduleRing(ctx: AccountCtx, callId: number): number {
  return ctx.schedule<CallEventPayload>(ctx.now() + DIAL_SECONDS * 1000, CALL_RING_EVENT, { account_id: ctx.account.id, call_id: callId });
}

/** Decides the outcome of an initiated call that has none yet and schedules its ring. */
export function scheduleCall(ctx: AccountCtx, call: Call, assistant: Assistant, dial: DialContext): Call {
  const plan = decideCall(ctx, assistant, call.input_variables, call.assistant_phone_number, dial);
  return ctx.calls.update(call.id, { plan, event_id: scheduleRing(ctx, call.id) });
}

/** The call a lifecycle event is about, while it is still being played out. */
export function liveCall(ctx: AccountCtx, payload: CallEventPayload): (Call & { plan: CallPlan }) | undefined {
  const call = ctx.calls.get(payload.call_id);
  return call?.plan ? (call as Call & { plan: CallPlan }) : undefined;
}

/** Whether the ring ends the call: nobody answers a busy, unanswered or failed call. */
export function endsAtRing(call: Call & { plan: CallPlan }): boolean {
  return UNANSWERED_STATUSES.has(call.plan.final_status);
}

/**
 * `initiated` -> `ringing`; the outcome shows after the ring time. `payload` is the ring
 * event's: the connect event names the same call, and payloads are never written to.
 */
export function ringCall(ctx: AccountCtx, call: Call & { plan: CallPlan }, payload: CallEventPayload): void {
  const now = ctx.now();
  const eventId = ctx.schedule<CallEventPayload>(now + call.plan.ring_seconds * 1000, CALL_CONNECT_EVENT, payload);
  const moving = ctx.calls.changing(call, RING_FIELDS);
  call.status = 'ringing';
  call.updated_at = now;
  call.event_id = eventId;
  ctx.calls.changed(call, moving);
  ctx.emitValues(CALL_STATUS_EVENT, ctx.account.id, call.id, 'ringing', call.campaign_id, call.lead_id);
}

/** The ring ends answered: `in-progress` until the talk time is over (`payload`: the connect event's, as for `ringCall`). */
export function answerCall(ctx: AccountCtx, call: Call & { plan: CallPlan }, payload: CallEventPayload): void {
  const now = ctx.now();
  // Before the end: a tool called at the talk's last second is still called during the call.
  const tools = call.plan.tool_calls;
  if (tools) for (let index = 0; index < tools.length; index++) ctx.schedule<CallToolPayload>(now + tools[index]!.at * 1000, CALL_TOOL_EVENT, { account_id: ctx.account.id, call_id: call.id, index });
  const eventId = ctx.schedule<CallEventPayload>(now + call.plan.talk_seconds * 1000, CALL_END_EVENT, payload);
  const moving = ctx.calls.changing(call, ANSWER_FIELDS);
  call.status = 'in-progress';
  call.updated_at = now;
  call.event_id = eventId;
  call.answered_at = now;
  call.answered_by = call.plan.answered_by;
  ctx.calls.changed(call, moving);
  ctx.emitValues(CALL_STATUS_EVENT, ctx.account.id, call.id, 'in-progress', call.campaign_id, call.lead_id);
}

/**
 * A planned mid-call tool's moment (live-platform H.10): the tool named by the plan is
 * called for real while the call is in progress; its answer, a failure or a timeout is
 * recorded in the tool-call journal and the call goes on either way. A call that ended
 * (aborted) or lost its assistant calls nothing.
 */
export async function callPlannedTool(ctx: AccountCtx, payload: CallToolPayload): Promise<void> {
  const call = ctx.calls.get(payload.call_id);
  const planned = call?.plan?.tool_calls?.[payload.index];
  if (!call || !planned || call.status !== 'in-progress') return;
  const assistant = call.assistant_id === null ? undefined : ctx.assistants.get(call.assistant_id);
  if (!assistant) return;
  await callToolByName(ctx, assistant, planned.tool, planned.arguments, callPromptFacts(ctx, call, assistant), { call_id: call.id });
}

/**
 * The call ends with its planned status: duration, transcript, collected variables,
 * evaluation, costs charged to the balance, the recording. Answers the ended call; a
 * call whose assistant was deleted meanwhile keeps its status.
 */
export function finishCall(ctx: AccountCtx, call: Call & { plan: CallPlan }): Call {
  const plan = call.plan;
  const assistant = call.assistant_id === null ? undefined : ctx.assistants.get(call.assistant_id);
  if (!assistant) return call;
  const answered = !UNANSWERED_STATUSES.has(plan.final_status);
  const goalMet = plan.kind === 'human';
  const variables = plan.variables ?? (plan.answered_by === 'human' ? collectedVariables(ctx, assistant, goalMet) : NO_VALUES);
  // No values collected: the shared empty object, not a copy of it.
  const evaluation = plan.evaluation ?? (assistant.post_call_evaluation && plan.answered_by === 'human' && variables !== NO_VALUES ? { ...variables } : NO_VALUES);
  const { carrier, total } = callCosts(ctx.account.rates, plan);
  if (total > 0) ctx.chargeAccount(total);
  const duration = answered ? plan.talk_seconds : 0;
  const status = plan.final_status;
  const now = ctx.now();
  const moving = ctx.calls.changing(call, END_FIELDS);
  call.status = status;
  call.updated_at = now;
  call.event_id = null;
  call.ended_at = now;
  call.duration = duration;
  call.answered_by = plan.answered_by;
  call.transcript = plan.transcript ?? '';
  call.variables = variables;
  call.evaluation = evaluation;
  call.carrier_cost_micros = carrier;
  call.total_cost_micros = total;
  call.recording_url = answered && assistant.record ? recordingUrl(call.id) : null;
  ctx.calls.changed(call, moving);
  ctx.emitValues(CALL_ENDED_EVENT, ctx.account.id, call.id, status, call.campaign_id, call.lead_id, true, plan.answered_by, duration, fromMicros(total));
  return call;
}

/** Statuses of a call in flight: placed, ringing or talking (what a campaign's stop aborts). */
export const IN_FLIGHT_STATUSES = ['initiated', 'ringing', 'in-progress'] as const satisfies readonly CallStatus[];

/**
 * The first lines of a planned transcript that fit `talked` of its `planned` seconds (at
 * least the greeting: it is said at the answer).
 */
function cutTranscript(transcript: string | null, planned: number, talked: number): string {
  if (!transcript || talked >= planned) return transcript ?? '';
  const lines = transcript.split('\n');
  const kept = Math.max(1, Math.ceil((lines.length * talked) / Math.max(1, planned)));
  return lines.slice(0, kept).join('\n');
}

/**
 * Aborts a call in flight (live-platform H.9, a campaign's stop): its pending clock event
 * is cancelled; a call `in-progress` ends at once `ended` with the time talked so far
 * (billed as any ended call, its transcript cut there, its goal not met: a human's call
 * is re-planned as goal-incomplete); an `initiated` or `ringing` one ends `failed`
 * without cost. Answers the ended call, or undefined for a call not in flight or whose
 * assistant is gone (it plays on as `finishCall` would leave it).
 */
export function abortCall(ctx: AccountCtx, call: Call): Call | undefined {
  const plan = call.plan;
  if (!plan || !(IN_FLIGHT_STATUSES as readonly CallStatus[]).includes(call.status)) return undefined;
  if (call.assistant_id === null || !ctx.assistants.get(call.assistant_id)) return undefined;
  if (call.event_id !== null) ctx.cancel(call.event_id);
  let aborted: CallPlan;
  if (call.status === 'in-progress') {
    const talked = Math.max(0, Math.round((ctx.now() - (call.answered_at ?? ctx.now())) / 1000));
    const kind = plan.kind === 'human' ? 'goal-incomplete' : plan.kind;
    aborted = { ...plan, kind, final_status: 'ended', talk_seconds: talked, transcript: cutTranscript(plan.transcript, plan.talk_seconds, talked) };
  } else {
    aborted = { ...plan, kind: 'failed', answered_by: 'unknown', final_status: 'failed', talk_seconds: 0, transcript: '' };
  }
  // A plan is shared between calls (the call memo): the aborted one is the call's own.
  const replanned = ctx.calls.update(call.id, { plan: aborted, event_id: null });
  return finishCall(ctx, replanned as Call & { plan: CallPlan });
}

/**
 * The post-call webhook (decisions: Post-call webhook payload), when `is_webhook_active`,
 * and only for `completed` calls with `send_webhook_only_on_completed`. Sent once the
 * call's lead is settled, so the payload shows the lead's new status.
 */
export function sendPostCallWebhook(ctx: AccountCtx, call: Call): void {
  const assistant = call.assistant_id === null ? undefined : ctx.assistants.get(call.assistant_id);
  if (!assistant || !assistant.is_webhook_active || assistant.webhook_url === null) return;
  if (assistant.send_webhook_only_on_completed && call.status !== 'completed') return;
  ctx.sendWebhook('post_call', assistant.webhook_url, postCallPayload(ctx, call, assistant));
}

/**
 * The post-call webhook's body (decisions: Post-call webhook payload); on the live wire as
 * the reference lists it (live-platform H.2, `livePostCallPayload`).
 */
export function postCallPayload(ctx: AccountCtx, call: Call, assistant: Assistant): PostCallWebhookBody | LivePostCallWebhookBody {
  if (ctx.wire === 'live') return livePostCallPayload(ctx, call, assistant);
  const lead = call.lead_id === null ? undefined : ctx.leads.get(call.lead_id);
  const campaign = call.campaign_id === null ? undefined : ctx.campaigns.get(call.campaign_id);
  const payload = {
    id: call.id,
    customer_phone: call.client_phone_number,
    assistant_phone: call.assistant_phone_number,
    duration: call.duration,
    status: call.status,
    extracted_variables: structuredClone(call.variables),
    input_variables: structuredClone(call.input_variables),
    transcript: call.transcript,
    created_at: formatIsoOffset(call.created_at, assistant.timezone),
    finished_at: formatIsoOffset(call.ended_at ?? ctx.now(), assistant.timezone),
    lead: lead ? { id: lead.id, phone_number: lead.phone_number, status: lead.status, variables: structuredClone(lead.variables) } : null,
    campaign: campaign ? { id: campaign.id, name: campaign.name, status: campaign.status } : null,
    total_cost: fromMicros(call.total_cost_micros),
  };
  // decisions: Recording: the key is present only with include_recording_in_webhook.
  return assistant.include_recording_in_webhook ? { ...payload, recording_url: recordingLink(ctx.files, call) } : payload;
}

/**
 * The live wire's post-call body (live-platform H.2), field for field and in the order of
 * the reference's `webhooks/post-call` example: `recording_url` after the transcript (only
 * with include_recording_in_webhook), times in UTC as `YYYY-MM-DDTHH:MM:SSZ`, a phone the
 * call has none of as null, `extracted_variables` with the built-in status and summary
 * first (H.1), the lead's and the campaign's documented fields, no `total_cost`.
 */
function livePostCallPayload(ctx: AccountCtx, call: Call, assistant: Assistant): LivePostCallWebhookBody {
  const lead = call.lead_id === null ? undefined : ctx.leads.get(call.lead_id);
  const campaign = call.campaign_id === null ? undefined : ctx.campaigns.get(call.campaign_id);
  const head = {
    id: call.id,
    customer_phone: call.client_phone_number === '' ? null : call.client_phone_number,
    assistant_phone: call.assistant_phone_number === '' ? null : call.assistant_phone_number,
    duration: call.duration,
    status: call.status,
    extracted_variables: structuredClone(callValuesWithBuiltIns(call, call.variables)),
    input_variables: structuredClone(call.input_variables),
    transcript: call.transcript,
  };
  const tail = {
    created_at: formatZuluSeconds(call.created_at),
    // The reference: "taken from the call record's updated_at" (the end, for an ended call).
    finished_at: formatZuluSeconds(call.ended_at ?? call.updated_at),
    lead: lead
      ? {
          id: lead.id,
          phone_number: lead.phone_number,
          variables: structuredClone(lead.variables),
          status: lead.status,
          created_at: formatZuluSeconds(lead.created_at),
          updated_at: formatZuluSeconds(lead.updated_at),
        }
      : null,
    campaign: campaign
      ? {
          id: campaign.id,
          name: campaign.name,
          status: campaign.status,
          allowed_hours_start_time: campaign.allowed_hours_start_time,
          allowed_hours_end_time: campaign.allowed_hours_end_time,
          allowed_days: [...campaign.allowed_days],
          max_calls_in_parallel: campaign.max_calls_in_parallel,
          max_retries: campaign.max_retries,
          retry_interval: campaign.retry_interval,
          created_at: formatZuluSeconds(campaign.created_at),
          updated_at: formatZuluSeconds(campaign.updated_at),
        }
      : null,
  };
  // decisions: Recording: the key is present only with include_recording_in_webhook.
  return assistant.include_recording_in_webhook ? { ...head, recording_url: recordingLink(ctx.files, call), ...tail } : { ...head, ...tail };
}

/**
 * The receiver's answer to a post-call delivery, stored as the call's `webhook_response`
 * `{status, body, delivery}`: a JSON body parsed, any other kept as text. So is JSON
 * nesting deeper than MAX_JSON_DEPTH: 64 KB of `[[[...` parses, but no later copy or
 * serialisation of the call could walk it. A body cut at RECEIVER_BODY_LIMIT is the
 * text kept, never parsed (a cut `12345` is not the number the receiver meant), with
 * `truncated: true`; the key is absent otherwise.
 * @example storeWebhookResponse(ctx, 7, { status: 200, body: '{"ok":true}' }, 'delivered') // webhook_response {status: 200, body: {ok: true}, delivery: 'delivered'}
 */
export function storeWebhookResponse(ctx: AccountCtx, callId: number, response: { status: number; body: string; truncated?: boolean } | null, state: string): void {
  const call = ctx.calls.get(callId);
  if (!call) return;
  let body: unknown = response?.body ?? null;
  if (response && response.truncated !== true) {
    try {
      const parsed: unknown = JSON.parse(response.body);
      if (!nestsTooDeep(parsed)) body = parsed;
    } catch {
      // Not JSON: kept as text.
    }
  }
  const truncated = response?.truncated === true ? { truncated: true } : {};
  ctx.calls.update(call.id, { webhook_response: { status: response?.status ?? null, body, delivery: state, ...truncated } });
}
