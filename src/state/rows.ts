/**
 * The kind of every field of every stored record: what a restored snapshot's rows are
 * checked against (state/snapshot.ts), so a row the simulator could not serve is refused
 * with its table, id and field instead of answering 500 later. Each description is typed
 * against the record's interface: a field added to `Call` without its kind here, a kind
 * of another type (a string for a number, a missing `nullable`), or a table added to
 * `Database` without its rows' kind does not compile.
 */
import type * as z from 'zod';
import {
  anything,
  boolean,
  count,
  exactly,
  id,
  int,
  json,
  list,
  mapOf,
  nullable,
  number,
  oneOf,
  optional,
  parsedBy,
  record,
  refined,
  string,
  time,
  whole,
  type FieldKind,
} from '../core/fields.js';
import type { Table } from '../core/store.js';
import { isTimezone } from '../core/time.js';
import { ANSWERED_BY, CALL_STATUSES, DELIVERY_STATES, FAILURE_KINDS, WEBHOOK_KINDS } from '../core/vocabulary.js';
import type { Delivery, FailureRule, ReceiverResponse, WebhookAttempt } from '../engine/webhooks.js';
import { FAULT_STATUSES, type FaultRule, type FaultStatus } from '../engine/faults.js';
import { OUTCOME_NAMES, OUTCOME_SOURCES, RING_SECONDS, TALK_SECONDS } from '../engine/outcomes.js';
import { MAX_PRICE_USD, type Account, type Plan, type Rates } from '../domain/accounts/schema.js';
import {
  AMBIENT_SOUNDS,
  ASSISTANT_STATUSES,
  ASSISTANT_TYPES,
  BuiltInTool,
  ENDPOINT_TYPES,
  FillerConfig,
  INACTIVITY_TIMEOUT,
  KNOWLEDGEBASE_MODES,
  PostCallSchemaItem,
  RINGING_TIME,
  type Assistant,
} from '../domain/assistants/schema.js';
import { LEGACY_CALL_START_EVENT } from '../domain/calls/events.js';
import { CALL_CONNECT_EVENT, CALL_END_EVENT, CALL_RING_EVENT } from '../domain/calls/lifecycle.js';
import { CALL_TYPES, type Call, type CallPlan, type PlannedToolCall } from '../domain/calls/schema.js';
import { DIAL_EVENT, LEAD_RETRY_EVENT } from '../domain/campaigns/dialer.js';
import { CAMPAIGN_STATUSES, DAYS, IDLE_REASONS, RETRY_INTERVAL, type Campaign } from '../domain/campaigns/schema.js';
import { MODES } from '../domain/catalog/data.js';
import { CONVERSATION_TYPES, type ChatMessage, type Conversation, type FunctionCall, type SystemNote } from '../domain/conversations/schema.js';
import { INACTIVITY_EVENT } from '../domain/conversations/service.js';
import type { Database } from '../domain/db.js';
import { FOLDER_LABEL_COLORS, type FolderOrLabel } from '../domain/folders-labels/schema.js';
import { DOCUMENT_STATUSES, DOCUMENT_TYPES, type Knowledgebase, type KnowledgebaseDocument } from '../domain/knowledgebases/schema.js';
import { DOCUMENT_PROCESSED_EVENT } from '../domain/knowledgebases/service.js';
import { LEAD_STATUSES, type Lead, type SecondaryContact } from '../domain/leads/schema.js';
import { MEDIA_TYPES, MESSAGE_STATUSES, TEMPLATE_STATUSES, type ChannelMessage, type InboundMedia, type MessageStatusChange, type Sender, type Session, type Template } from '../domain/msgapp/schema.js';
import { MESSAGE_STATUS_EVENT, SESSION_CLOSE_EVENT } from '../domain/msgapp/service.js';
import { DELIVERY_OUTCOMES, type DeliveryPlan } from '../engine/message-outcomes.js';
import {
  ADDRESS_REQUIREMENTS,
  LIVE_SEARCH_COUNTRIES,
  NUMBER_TYPES,
  SIP_AUTHORIZATION_TYPES,
  SIP_CALLING_FORMATS,
  SIP_TRUNK_TYPES,
  type Charge,
  type NumberOffer,
  type PhoneNumber,
  type SipTrunkSettings,
  type Subscription,
} from '../domain/phone-numbers/schema.js';
import { PERIOD_END_EVENT } from '../domain/phone-numbers/service.js';
import type { Sms } from '../domain/sms/schema.js';
import { TOOL_METHODS, type Tool } from '../domain/tools/schema.js';
import { WebhookFailureBody } from '../control/schema.js';
import { lazySchema } from '../core/lazy-schema.js';

/** A zone the calling windows and the formats can compute in (an invalid one would give NaN times). */
const timezone = refined(string, isTimezone, 'must be an IANA time zone such as Europe/Berlin');
/** `HH:MM:SS`, as a campaign stores its hours. */
const timeOfDay = refined(string, (t) => /^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/.test(t), 'must be a time of day written HH:MM:SS');
const ref = nullable(id);
/**
 * The settings the simulator schedules events or charges money by are held to the API's
 * ranges: beyond them a ring time or retry interval puts an event past the last time the
 * state may hold, a price takes the balance past 2^53, and the simulator's next snapshot
 * would be refused (its own state file could not be read back).
 */
const range = (r: { readonly min: number; readonly max: number }) => whole(r.min, r.max);
const price = whole(0, MAX_PRICE_USD * 1_000_000);

const plan = record<Plan>({ max_campaigns: count, max_calls_in_parallel: count, max_tools: count });
const rates = record<Rates>({
  ai_per_minute_micros: price,
  carrier_per_minute_micros: price,
  widget_message_micros: price,
  template_message_micros: price,
  freeform_message_micros: price,
  sms_segment_micros: optional(price),
});

const account = record<Account>({
  id,
  name: string,
  email: string,
  api_key: string,
  balance_micros: int,
  has_payment_method: boolean,
  timezone,
  plan,
  rates,
  recent_sends: list(time),
  recent_replies: optional(list(time)),
  created_at: time,
});

const assistant = record<Assistant>({
  id,
  account_id: id,
  uuid: string,
  status: oneOf(ASSISTANT_STATUSES),
  inbound_webhook_url: nullable(string),
  created_at: time,
  updated_at: time,
  name: string,
  voice_id: int,
  language_id: int,
  type: oneOf(ASSISTANT_TYPES),
  mode: oneOf(MODES),
  timezone,
  initial_message: string,
  system_prompt: string,
  llm_model_id: nullable(int),
  multimodal_model_id: nullable(int),
  chat_llm_fallback_id: nullable(int),
  turn_detection_threshold: nullable(number),
  secondary_language_ids: list(int),
  knowledgebase_id: ref,
  knowledgebase_mode: oneOf(KNOWLEDGEBASE_MODES),
  phone_number_id: ref,
  tool_ids: list(id),
  // Nested shapes with their own zod schemas: assistants are few, parsing them costs nothing.
  tools: list(parsedBy(BuiltInTool as unknown as z.ZodType<BuiltInTool>)),
  voice_stability: number,
  voice_similarity: number,
  speech_speed: number,
  llm_temperature: number,
  tts_emotion_enabled: boolean,
  synthesizer_provider_id: nullable(int),
  transcriber_provider_id: nullable(int),
  allow_interruptions: boolean,
  fillers: boolean,
  filler_config: nullable(parsedBy(FillerConfig)),
  record: boolean,
  enable_noise_cancellation: boolean,
  wait_for_customer: boolean,
  max_duration: count,
  max_silence_duration: count,
  max_initial_silence_duration: nullable(count),
  ringing_time: range(RINGING_TIME),
  reengagement_interval: count,
  reengagement_prompt: nullable(string),
  end_call_on_voicemail: boolean,
  voice_mail_message: nullable(string),
  endpoint_type: oneOf(ENDPOINT_TYPES),
  endpoint_sensitivity: number,
  interrupt_sensitivity: number,
  min_interrupt_words: nullable(count),
  ambient_sound: oneOf(AMBIENT_SOUNDS),
  ambient_sound_volume: number,
  is_webhook_active: boolean,
  webhook_url: nullable(string),
  send_webhook_only_on_completed: boolean,
  include_recording_in_webhook: boolean,
  post_call_evaluation: boolean,
  post_call_schema: list(parsedBy(PostCallSchemaItem)),
  variables: json,
  conversation_inactivity_timeout: nullable(range(INACTIVITY_TIMEOUT)),
  conversation_ended_retrigger: boolean,
  conversation_ended_webhook_url: nullable(string),
  folder_id: optional(ref),
  label_ids: optional(list(id)),
});

const subscription = record<Subscription>({
  period: count,
  price_micros: price,
  billing_price_id: string,
  period_start: time,
  period_end: time,
  cancelled: boolean,
  event_id: id,
});

const sip = record<SipTrunkSettings>({
  sip_trunk_type: oneOf(SIP_TRUNK_TYPES),
  sip_username: nullable(string),
  sip_password: nullable(string),
  sip_address: nullable(string),
  sip_calling_format: oneOf(SIP_CALLING_FORMATS),
  inbound_authorization_type: oneOf(SIP_AUTHORIZATION_TYPES),
  allowed_inbound_ips: nullable(list(string)),
  outbound_proxy: boolean,
  inbound_trunk_id: string,
  outbound_trunk_id: string,
  inbound_generation: count,
  outbound_generation: count,
  updated_at: time,
});

const phoneNumber = record<PhoneNumber>({
  id,
  account_id: id,
  phone_number: string,
  country_code: string,
  type: oneOf(NUMBER_TYPES),
  sms_capable: boolean,
  region: string,
  has_active_subscription: boolean,
  subscription: nullable(subscription),
  nickname: optional(nullable(string)),
  created_at: time,
  sip: optional(sip),
});

const numberOffer = record<NumberOffer>({
  id,
  account_id: id,
  phone_number: string,
  phone_number_formatted: string,
  country_code: oneOf(LIVE_SEARCH_COUNTRIES),
  price_micros: price,
  billing_price_id: string,
  address_requirements: oneOf(ADDRESS_REQUIREMENTS),
  sms_capable: boolean,
  created_at: time,
});

const charge = record<Charge>({
  id,
  account_id: id,
  phone_number_id: id,
  phone_number: string,
  amount_micros: int,
  billing_price_id: string,
  period_start: time,
  period_end: time,
  created_at: time,
});

const knowledgebase = record<Knowledgebase>({ id, account_id: id, name: string, description: nullable(string), created_at: time, updated_at: time });

const tool = record<Tool>({
  id,
  account_id: id,
  name: string,
  description: string,
  endpoint: string,
  method: oneOf(TOOL_METHODS),
  timeout: count,
  headers: mapOf(string),
  schema: json,
  created_at: time,
  updated_at: time,
});

const document = record<KnowledgebaseDocument>({
  id,
  account_id: id,
  knowledgebase_id: id,
  name: string,
  description: nullable(string),
  type: oneOf(DOCUMENT_TYPES),
  status: oneOf(DOCUMENT_STATUSES),
  url: nullable(string),
  links: nullable(list(string)),
  relative_links_limit: nullable(count),
  file_name: nullable(string),
  file_size: nullable(count),
  processed_event_id: ref,
  created_at: time,
  updated_at: time,
});

const campaign = record<Campaign>({
  id,
  account_id: id,
  name: string,
  assistant_id: id,
  timezone,
  max_calls_in_parallel: count,
  allowed_hours_start_time: timeOfDay,
  allowed_hours_end_time: timeOfDay,
  allowed_days: list(oneOf(DAYS)),
  max_retries: count,
  retry_interval: range(RETRY_INTERVAL),
  retry_on_voicemail: boolean,
  retry_on_goal_incomplete: boolean,
  goal_completion_variable: nullable(string),
  mark_complete_when_no_leads: boolean,
  phone_number_ids: list(id),
  status: oneOf(CAMPAIGN_STATUSES),
  dial_event_id: ref,
  in_flight: count,
  rotation: count,
  idle_reason: nullable(oneOf(IDLE_REASONS)),
  created_at: time,
  updated_at: time,
});

const lead = record<Lead>({
  id,
  account_id: id,
  campaign_id: id,
  phone_number: string,
  variables: json,
  status: oneOf(LEAD_STATUSES),
  attempts: count,
  chain: int,
  next_attempt_at: nullable(time),
  retry_event_id: ref,
  created_at: time,
  updated_at: time,
});

const secondaryContact = record<SecondaryContact>({
  id,
  account_id: id,
  lead_id: id,
  position: count,
  phone_number: string,
  variables: json,
  status: oneOf(LEAD_STATUSES),
  created_at: time,
  updated_at: time,
});

const callPlan = record<CallPlan>({
  kind: oneOf(OUTCOME_NAMES),
  source: oneOf(OUTCOME_SOURCES),
  answered_by: oneOf(ANSWERED_BY),
  final_status: oneOf(CALL_STATUSES),
  ring_seconds: range(RING_SECONDS),
  talk_seconds: range(TALK_SECONDS),
  transcript: nullable(string),
  variables: nullable(json),
  evaluation: nullable(json),
  tool_calls: optional(list(record<PlannedToolCall>({ tool: string, arguments: json, at: range(TALK_SECONDS) }))),
});

const call = record<Call>({
  id,
  account_id: id,
  assistant_id: ref,
  assistant_name: string,
  campaign_id: ref,
  campaign_name: nullable(string),
  lead_id: ref,
  contact_id: ref,
  type: oneOf(CALL_TYPES),
  duration: count,
  assistant_phone_number: string,
  client_phone_number: string,
  status: oneOf(CALL_STATUSES),
  transcript: string,
  variables: json,
  input_variables: json,
  evaluation: json,
  webhook_response: nullable(json),
  carrier_cost_micros: int,
  total_cost_micros: int,
  answered_by: oneOf(ANSWERED_BY),
  recording_url: nullable(string),
  plan: nullable(callPlan),
  event_id: ref,
  answered_at: nullable(time),
  ended_at: nullable(time),
  created_at: time,
  updated_at: time,
});

const conversation = record<Conversation>({
  id,
  account_id: id,
  uuid: string,
  assistant_id: ref,
  type: oneOf(CONVERSATION_TYPES),
  status: oneOf(['active', 'ended']),
  ai_enabled: boolean,
  message_count: count,
  total_cost_micros: int,
  input_variables: json,
  variables: json,
  customer_phone: nullable(string),
  customer_name: nullable(string),
  sender_id: ref,
  external_identifier: optional(nullable(string)),
  ended_count: count,
  ended_at: nullable(time),
  inactivity_event_id: ref,
  created_at: time,
  updated_at: time,
  system_notes: optional(list(record<SystemNote>({ content: string, at: time, after: count }))),
});

const functionCall = record<FunctionCall>({ name: string, arguments: json, result: json });

const inboundMedia = record<InboundMedia>({ type: oneOf(MEDIA_TYPES), filename: string, caption: nullable(string), voice_note: boolean });

const message = record<ChatMessage>({
  id,
  account_id: id,
  conversation_id: id,
  role: oneOf(['assistant', 'user']),
  content: string,
  function_calls: nullable(list(functionCall)),
  created_at: time,
  media: optional(inboundMedia),
});

const sender = record<Sender>({
  id,
  account_id: id,
  phone_number: string,
  display_name: string,
  status: oneOf(['online', 'offline']),
  quality_rating: oneOf(['high', 'medium', 'low']),
  messaging_limit: nullable(count),
  assistant_id: ref,
  read_receipts_webhook_url: optional(nullable(string)),
  read_receipts_signing_secret: optional(nullable(string)),
});

const template = record<Template>({
  id,
  account_id: id,
  sender_id: id,
  name: string,
  language: string,
  category: string,
  status: oneOf(TEMPLATE_STATUSES),
  body_text: string,
  variables: list(string),
});

const session = record<Session>({
  id,
  account_id: id,
  sender_id: id,
  recipient_phone: string,
  conversation_id: id,
  expires_at: nullable(time),
  last_customer_message_at: nullable(time),
  close_event_id: ref,
});

const channelMessage = record<ChannelMessage>({
  id,
  account_id: id,
  sender_id: id,
  conversation_id: id,
  direction: oneOf(['outbound', 'inbound']),
  kind: oneOf(['template', 'freeform', 'customer', 'reply']),
  body: string,
  message_sid: string,
  status: string,
  cost_micros: int,
  created_at: time,
  status_history: optional(list(record<MessageStatusChange>({ status: oneOf(MESSAGE_STATUSES), at: time }))),
  plan: optional(record<DeliveryPlan>({ kind: oneOf(DELIVERY_OUTCOMES), error_code: nullable(int), after_ms: count })),
  status_event_id: optional(ref),
  error_code: optional(nullable(int)),
});

const folderOrLabel = record<FolderOrLabel>({ id, account_id: id, name: string, color: nullable(oneOf(FOLDER_LABEL_COLORS)), created_at: time, updated_at: time });

const sms = record<Sms>({
  id,
  account_id: id,
  sms_id: string,
  phone_number_id: id,
  from: string,
  to: string,
  body: string,
  segments: count,
  cost_micros: int,
  currency: exactly('USD'),
  status: exactly('sent'),
  created_at: time,
});

/** The tables of a Database (its properties that are tables). */
export type TableKey = { [K in keyof Database]: Database[K] extends Table<infer _R> ? K : never }[keyof Database];
type RowOf<K extends TableKey> = Database[K] extends Table<infer R> ? R : never;

/** The kind of each table's rows, by the Database property that holds the table. */
export const ROW_KINDS: { readonly [K in TableKey]: FieldKind<RowOf<K>> } = {
  accounts: account,
  assistants: assistant,
  phoneNumbers: phoneNumber,
  numberOffers: numberOffer,
  charges: charge,
  knowledgebases: knowledgebase,
  tools: tool,
  documents: document,
  campaigns: campaign,
  leads: lead,
  secondaryContacts: secondaryContact,
  calls: call,
  conversations: conversation,
  messages: message,
  senders: sender,
  templates: template,
  sessions: session,
  channelMessages: channelMessage,
  folders: folderOrLabel,
  labels: folderOrLabel,
  sms,
};

/** The fields of R that hold row ids: a number, a list of them, either possibly null or absent. */
type IdFields<R> = { [K in keyof R]-?: NonNullable<R[K]> extends number | readonly number[] ? K : never }[keyof R];

/**
 * The references a restored row must resolve, each to a row of the same account in the
 * named table (by its Database property). Only references the simulator itself never
 * leaves dangling: deleting a campaign removes its leads (decisions: Delete campaign), a
 * lead its secondary contacts, a knowledge base its documents; deleting a number, tool,
 * folder, label or knowledge base takes it out of assistants and campaigns (live-platform
 * C.1-C.3); senders and conversations are never deleted. The rest may outlive what they
 * name and are read as gone: a campaign's, call's, conversation's or sender's assistant,
 * a call's campaign, lead and contact, a charge's or message's number. Every row's
 * `account_id` must name an account of the snapshot.
 */
export const ROW_REFERENCES: { readonly [K in TableKey]?: { readonly [F in IdFields<RowOf<K>>]?: TableKey } } = {
  assistants: { knowledgebase_id: 'knowledgebases', phone_number_id: 'phoneNumbers', tool_ids: 'tools', folder_id: 'folders', label_ids: 'labels' },
  documents: { knowledgebase_id: 'knowledgebases' },
  campaigns: { phone_number_ids: 'phoneNumbers' },
  leads: { campaign_id: 'campaigns' },
  secondaryContacts: { lead_id: 'leads' },
  conversations: { sender_id: 'senders' },
  messages: { conversation_id: 'conversations' },
  templates: { sender_id: 'senders' },
  sessions: { sender_id: 'senders', conversation_id: 'conversations' },
  channelMessages: { sender_id: 'senders', conversation_id: 'conversations' },
};

/**
 * The pending clock event a row keeps the id of, to cancel or replace it: the field, the
 * event types it may name, and the payload field that names the row. The simulator only
 * ever stores the id of an event it scheduled for that row, so a restored id that names a
 * pending event of another type or row is refused: cancelling it (a stopped campaign, a
 * deleted lead) would cancel another row's event, leaving a call ringing for ever or a
 * number unrenewed. An id of no pending event (one that fired) restores as it is.
 */
export interface RowEvent<R> {
  readonly field: string;
  readonly of: (row: R) => number | null | undefined;
  readonly types: readonly string[];
  readonly names: string;
}

export const ROW_EVENTS: { readonly [K in TableKey]?: RowEvent<RowOf<K>> } = {
  calls: { field: 'event_id', of: (c) => c.event_id, types: [CALL_RING_EVENT, CALL_CONNECT_EVENT, CALL_END_EVENT, LEGACY_CALL_START_EVENT], names: 'call_id' },
  campaigns: { field: 'dial_event_id', of: (c) => c.dial_event_id, types: [DIAL_EVENT], names: 'campaign_id' },
  leads: { field: 'retry_event_id', of: (l) => l.retry_event_id, types: [LEAD_RETRY_EVENT], names: 'lead_id' },
  documents: { field: 'processed_event_id', of: (d) => d.processed_event_id, types: [DOCUMENT_PROCESSED_EVENT], names: 'document_id' },
  conversations: { field: 'inactivity_event_id', of: (c) => c.inactivity_event_id, types: [INACTIVITY_EVENT], names: 'conversation_id' },
  sessions: { field: 'close_event_id', of: (s) => s.close_event_id, types: [SESSION_CLOSE_EVENT], names: 'session_id' },
  channelMessages: { field: 'status_event_id', of: (m) => m.status_event_id, types: [MESSAGE_STATUS_EVENT], names: 'message_id' },
  phoneNumbers: { field: 'subscription.event_id', of: (n) => n.subscription?.event_id, types: [PERIOD_END_EVENT], names: 'phone_number_id' },
};

/** A webhook delivery of the journal. */
export const DELIVERY_KIND = record<Delivery>({
  id,
  account_id: id,
  kind: oneOf(WEBHOOK_KINDS),
  url: string,
  payload: anything,
  state: oneOf(DELIVERY_STATES),
  attempts: list(record<WebhookAttempt>({ at: time, status: nullable(int), error: nullable(string), duration_ms: number })),
  next_attempt_at: nullable(time),
  response: nullable(record<ReceiverResponse>({ status: int, body: string, truncated: optional(exactly(true)) })),
  created_at: time,
  headers: optional(mapOf(string)),
  resent_from: optional(id),
});

/** A forced webhook failure (`POST /__sim/webhooks/failures`). */
export const FAILURE_RULE_KIND = record<FailureRule>({
  id,
  url: nullable(string),
  kind: nullable(oneOf(FAILURE_KINDS)),
  times: count,
  with: parsedBy(lazySchema(() => WebhookFailureBody.unwrap().shape.with)),
});

/** A forced request fault (`POST /__sim/faults`); a snapshot saved before faults had a status (live-platform H.11) has neither of the last two. */
export const FAULT_RULE_KIND = record<FaultRule>({
  id,
  method: string,
  path: string,
  times: count,
  status: optional(refined(int, (v): v is FaultStatus => (FAULT_STATUSES as readonly number[]).includes(v), 'must be 429, 500, 502, 503 or 504')) as FieldKind<FaultStatus>,
  retry_after: optional(nullable(id)) as FieldKind<number | null>,
});
