/**
 * Assistants: input schemas for create and update (spec: Assistant (create and update
 * fields)), the stored record, and the wire shapes.
 */
import * as z from 'zod';
import { emptyArray, integer, isoTimestamp, jsonObject } from '../../core/answers.js';
import { documentedAs } from '../../core/documented.js';
import { pageQuery } from '../../core/pagination.js';
import { formatIsoUtc, isTimezone } from '../../core/time.js';
import { RULE_MESSAGES, freeObject, int, num, oneOf, str, strBetween, url } from '../../core/validation.js';
import type { Wire } from '../../core/wire.js';
import { MODES, type Catalog, type Mode } from '../catalog/data.js';
import { E164, E164_RULE } from '../phone-numbers/schema.js';
import { lazySchema, once } from '../../core/lazy-schema.js';

export const ASSISTANT_TYPES = ['inbound', 'outbound'] as const;
export const ASSISTANT_STATUSES = ['inactive', 'active'] as const;
export const KNOWLEDGEBASE_MODES = ['function_call', 'prompt'] as const;
export const ENDPOINT_TYPES = ['vad', 'ai'] as const;
export const AMBIENT_SOUNDS = ['off', 'office', 'city', 'forest', 'crowded_room', 'cafe', 'nature'] as const;
export const SCHEMA_TYPES = ['string', 'number', 'bool'] as const;
export const FILLER_KEYS = ['positive', 'negative', 'question', 'neutral'] as const;
/**
 * The ranges of the settings the clock schedules by (seconds of ringing, minutes of
 * inactivity): the API's, and a restored row's (state/rows.ts).
 */
export const RINGING_TIME = { min: 1, max: 60 } as const;
export const INACTIVITY_TIMEOUT = { min: 1, max: 1440 } as const;

const e164 = () => z.string().regex(E164, { error: E164_RULE });
const requiredText = (max?: number) => str(max).min(1);
const timezone = () => z.string().refine(isTimezone, { error: RULE_MESSAGES.timezone });

/** The live platform's texts and values for what a built-in tool leaves out (live-platform G.2: the docs' defaults). */
export const TOOL_DEFAULTS = {
  assistantTransferDescription: 'Transfer the conversation to this assistant when appropriate.',
  holdMessage: 'Please hold while I connect you with a supervisor.',
  summaryInstructions:
    'Introduce the conversation from your perspective:\n- WHO is calling (name, company if mentioned)\n- WHY they called (their goal or problem)\n- WHY a human is needed at this point\n\nKeep it brief (2-3 sentences).',
  briefingInitialMessage: 'Hello! I have a caller on the line who needs your assistance. May I brief you on the situation?',
  connectedMessage: "You are now connected with a supervisor. I'll leave you to it.",
  holdMusicVolume: 80,
} as const;

/** Limits of the live tool fields (live-platform G.2). */
export const TOOL_LIMITS = { holdMusicVolume: { min: 0, max: 100 }, assistantTransferText: 500 } as const;

/** Texts of the tools' own rules. Tests reuse them. */
export const TOOL_MESSAGES = {
  /** live-platform G.2 (decision). */
  selfTransfer: 'The :attribute may not be the assistant itself.',
  /** Both spellings of a calendar field given with different values (decision). */
  sameAs: (other: string) => `The :attribute and ${other.replace(/_/g, ' ')} must match.`,
} as const;

/** The calendar fields the specification and the live platform spell differently (live-platform G.2): spec name, live name. */
export const CALENDAR_SPELLINGS = [
  ['calendar_api_key', 'calcom_api_key'],
  ['calendar_event_slug', 'calcom_event_slug'],
] as const;

/** A calcom booking field (live-platform G.2); its `type` list is open in the docs ("text, email, phone, select, …"), so any word is taken (decision). */
const BookingField = lazySchema(() => z.object({
  slug: requiredText(255),
  type: requiredText(64),
  label: requiredText(255),
  required: z.boolean().optional(),
  options: z.array(str(255)).optional(),
}));

/**
 * The calendar tool: either spelling of its two required fields (live-platform G.2); a
 * missing one is required under the spelling the item uses (live if it has any `calcom_`
 * field). `calcom_custom_endpoint` is required with `calcom_endpoint: custom` (decision).
 */
const CalendarTool = lazySchema(() => z
  .object({
    type: z.literal('calendar_integration'),
    calendar_api_key: requiredText().optional(),
    calendar_event_slug: requiredText().optional(),
    calcom_api_key: requiredText().optional(),
    calcom_event_slug: requiredText().optional(),
    calcom_team_slug: str(255).optional(),
    calcom_endpoint: oneOf(['us', 'eu', 'custom']).optional(),
    calcom_custom_endpoint: url().optional(),
    calcom_booking_fields: z.array(BookingField).optional(),
    description: z.string().optional(),
  })
  .superRefine((tool, check) => {
    const live = Object.keys(tool).some((key) => key.startsWith('calcom_'));
    for (const [spec, liveName] of CALENDAR_SPELLINGS) {
      const a = tool[spec];
      const b = tool[liveName];
      if (a === undefined && b === undefined) check.addIssue({ code: 'custom', path: [live ? liveName : spec], message: RULE_MESSAGES.required });
      else if (a !== undefined && b !== undefined && a !== b) check.addIssue({ code: 'custom', path: [liveName], message: TOOL_MESSAGES.sameAs(spec) });
    }
    if (tool.calcom_endpoint === 'custom' && tool.calcom_custom_endpoint === undefined) {
      check.addIssue({ code: 'custom', path: ['calcom_custom_endpoint'], message: RULE_MESSAGES.requiredIf.replace(':other', 'calcom endpoint').replace(':value', 'custom') });
    }
  }));

/** Built-in tool objects, validated per `type` (spec: Built-in tool object; live-platform G.2 for the live fields and `assistant_transfer`). */
export const BuiltInTool = lazySchema(() => z.discriminatedUnion('type', [
  z.object({
    type: z.literal('call_transfer'),
    phone_number: e164(),
    description: z.string().optional(),
    custom: z.boolean().optional(),
    warm_transfer: z.boolean().optional(),
    warm_transfer_message: z.string().optional(),
    timezone: timezone().optional(),
  }),
  z
    .object({
      type: z.literal('warm_call_transfer'),
      // A phone number, or with custom_sip a SIP address or internal extension (live-platform G.2).
      supervisor_phone: requiredText(255),
      outbound_phone_id: int(),
      description: requiredText(),
      caller_id_mode: oneOf(['outbound_number', 'customer_number', 'custom']).optional(),
      hold_music: oneOf(['hold_music', 'none']).optional(),
      hold_message: z.string().optional(),
      custom_sip: z.boolean().optional(),
      custom_caller_id: e164().optional(),
      hold_music_volume: int(TOOL_LIMITS.holdMusicVolume.min, TOOL_LIMITS.holdMusicVolume.max).optional(),
      summary_instructions: z.string().optional(),
      briefing_initial_message: z.string().optional(),
      connected_message: z.string().optional(),
    })
    .superRefine((tool, check) => {
      if (tool.custom_sip !== true && !E164.test(tool.supervisor_phone)) check.addIssue({ code: 'custom', path: ['supervisor_phone'], message: E164_RULE });
    }),
  z.object({ type: z.literal('end_call'), description: z.string().optional() }),
  z.object({ type: z.literal('dtmf_input'), description: z.string().optional() }),
  z.object({
    type: z.literal('collect_keypad'),
    timeout: int(1, 30).optional(),
    stop_key: oneOf(['#', '*']).optional(),
  }),
  CalendarTool,
  z.object({
    type: z.literal('assistant_transfer'),
    // An assistant of the same account, not the one written (checked in the service).
    assistant_id: int(),
    description: str(TOOL_LIMITS.assistantTransferText).optional(),
    message_before_transfer: str(TOOL_LIMITS.assistantTransferText).optional(),
    speak_transfer_greeting: z.boolean().optional(),
  }),
]));
type ToolInput = z.output<typeof BuiltInTool>;
/** A stored built-in tool: as written, the calendar's two fields under the specification's names. */
export type BuiltInTool =
  | Exclude<ToolInput, { type: 'calendar_integration' }>
  | (Omit<Extract<ToolInput, { type: 'calendar_integration' }>, 'calendar_api_key' | 'calendar_event_slug' | 'calcom_api_key' | 'calcom_event_slug'> & {
      calendar_api_key: string;
      calendar_event_slug: string;
    });

/**
 * A tool as it is stored: the calendar's fields under the specification's names (either
 * spelling is taken: live-platform G.2), everything else as written.
 * @example storedTool({ type: 'calendar_integration', calcom_api_key: 'k', calcom_event_slug: 'intro' }) // { type, calendar_api_key: 'k', calendar_event_slug: 'intro' }
 */
export function storedTool(tool: ToolInput): BuiltInTool {
  if (tool.type !== 'calendar_integration') return tool;
  const { calendar_api_key, calendar_event_slug, calcom_api_key, calcom_event_slug, type, ...rest } = tool;
  return { type, calendar_api_key: (calendar_api_key ?? calcom_api_key)!, calendar_event_slug: (calendar_event_slug ?? calcom_event_slug)!, ...rest };
}

/**
 * A stored tool as the live platform reads it back (live-platform G.2, D.3): `{type, data}`
 * with every field of its type in the docs' order, the calendar's under the live names; a
 * field left out has its documented default, or null where none is documented (decision).
 * @example liveTool({ type: 'collect_keypad' }) // { type: 'collect_keypad', data: { timeout: 5, stop_key: '#' } }
 */
export function liveTool(tool: BuiltInTool): { type: string; data: Record<string, unknown> } {
  const t = structuredClone(tool) as Record<string, unknown> & BuiltInTool;
  const or = (key: string, fallback: unknown) => (t[key] === undefined ? fallback : t[key]);
  switch (t.type) {
    case 'call_transfer':
      return { type: t.type, data: { phone_number: t.phone_number, description: or('description', null), custom: or('custom', false), warm_transfer: or('warm_transfer', false), warm_transfer_message: or('warm_transfer_message', null), timezone: or('timezone', null) } };
    case 'warm_call_transfer':
      return {
        type: t.type,
        data: {
          supervisor_phone: t.supervisor_phone,
          outbound_phone_id: t.outbound_phone_id,
          description: t.description,
          caller_id_mode: or('caller_id_mode', 'outbound_number'),
          hold_music: or('hold_music', 'hold_music'),
          hold_message: or('hold_message', TOOL_DEFAULTS.holdMessage),
          custom_sip: or('custom_sip', false),
          custom_caller_id: or('custom_caller_id', null),
          hold_music_volume: or('hold_music_volume', TOOL_DEFAULTS.holdMusicVolume),
          summary_instructions: or('summary_instructions', TOOL_DEFAULTS.summaryInstructions),
          briefing_initial_message: or('briefing_initial_message', TOOL_DEFAULTS.briefingInitialMessage),
          connected_message: or('connected_message', TOOL_DEFAULTS.connectedMessage),
        },
      };
    case 'end_call':
    case 'dtmf_input':
      return { type: t.type, data: { description: or('description', null) } };
    case 'collect_keypad':
      return { type: t.type, data: { timeout: or('timeout', 5), stop_key: or('stop_key', '#') } };
    case 'calendar_integration':
      return {
        type: t.type,
        data: {
          calcom_api_key: t.calendar_api_key,
          calcom_event_slug: t.calendar_event_slug,
          calcom_team_slug: or('calcom_team_slug', null),
          calcom_endpoint: or('calcom_endpoint', 'us'),
          calcom_custom_endpoint: or('calcom_custom_endpoint', null),
          calcom_booking_fields: (t.calcom_booking_fields ?? []).map((f) => ({ slug: f.slug, type: f.type, label: f.label, required: f.required ?? false, options: f.options ?? null })),
          description: or('description', null),
        },
      };
    case 'assistant_transfer':
      return {
        type: t.type,
        data: {
          assistant_id: t.assistant_id,
          description: or('description', TOOL_DEFAULTS.assistantTransferDescription),
          message_before_transfer: or('message_before_transfer', null),
          speak_transfer_greeting: or('speak_transfer_greeting', true),
        },
      };
  }
}

/** Post-call schema item (spec: Post-call schema item). */
export const PostCallSchemaItem = lazySchema(() => z.object({
  name: strBetween(3, 16).regex(/^[a-z0-9_]+$/, { error: 'The :attribute may only contain lowercase letters, numbers and underscores.' }),
  type: oneOf(SCHEMA_TYPES),
  description: strBetween(3, 255),
}));
export type PostCallSchemaItem = z.infer<typeof PostCallSchemaItem>;

// A small bank of plausible collected words: a generated string costs one draw.
const SAMPLE_WORDS = ['confirmed', 'interested', 'callback', 'premium', 'standard', 'tuesday', 'berlin', 'email'];

/**
 * A generated value of a post-call schema item's type, for what a call or a conversation
 * collected without a script: a bool is a coin toss, a number 1-10, a string one word.
 * Each costs one draw of `random`.
 * @example sampleValue(ctx.random, 'number') // 7
 */
export function sampleValue(random: { int(min: number, max: number): number }, type: PostCallSchemaItem['type']): boolean | number | string {
  if (type === 'bool') return random.int(0, 1) === 1;
  if (type === 'number') return random.int(1, 10);
  return SAMPLE_WORDS[random.int(0, SAMPLE_WORDS.length - 1)]!;
}

/** Divergence: the specification says "short strings" without a number; we cap each filler at 100 characters. */
export const FILLER_MAX_CHARS = 100;
const fillerList = lazySchema(() => z.array(str(FILLER_MAX_CHARS).min(1)));
export const FillerConfig = lazySchema(() => z.object({
  positive: fillerList.optional(),
  negative: fillerList.optional(),
  question: fillerList.optional(),
  neutral: fillerList.optional(),
}));
export type FillerConfig = z.infer<typeof FillerConfig>;

/** Every field of the table with its type and range; which are required, nullable or defaulted is decided below. */
const fieldSchemas = once(() => ({
  name: requiredText(255),
  voice_id: int(),
  language_id: int(),
  type: oneOf(ASSISTANT_TYPES),
  mode: oneOf(MODES),
  timezone: timezone(),
  initial_message: requiredText(200),
  system_prompt: requiredText(),
  llm_model_id: int(),
  multimodal_model_id: int(),
  chat_llm_fallback_id: int(),
  turn_detection_threshold: num(0, 1),
  secondary_language_ids: z.array(int()),
  knowledgebase_id: int(),
  knowledgebase_mode: oneOf(KNOWLEDGEBASE_MODES),
  phone_number_id: int(),
  tool_ids: z.array(int()),
  // live-platform G.2: stored with the calendar's fields under the specification's names.
  tools: z.array(BuiltInTool).transform((tools) => tools.map(storedTool)),
  voice_stability: num(0, 1),
  voice_similarity: num(0, 1),
  speech_speed: num(0.7, 1.2),
  llm_temperature: num(0, 1),
  tts_emotion_enabled: z.boolean(),
  synthesizer_provider_id: int(),
  transcriber_provider_id: int(),
  allow_interruptions: z.boolean(),
  fillers: z.boolean(),
  filler_config: FillerConfig,
  record: z.boolean(),
  enable_noise_cancellation: z.boolean(),
  wait_for_customer: z.boolean(),
  max_duration: int(20, 1200),
  max_silence_duration: int(1, 360),
  max_initial_silence_duration: int(1, 120),
  ringing_time: int(RINGING_TIME.min, RINGING_TIME.max),
  reengagement_interval: int(7, 600),
  reengagement_prompt: str(1000),
  end_call_on_voicemail: z.boolean(),
  voice_mail_message: str(1000),
  endpoint_type: oneOf(ENDPOINT_TYPES),
  endpoint_sensitivity: num(0, 5),
  interrupt_sensitivity: num(0, 5),
  min_interrupt_words: int(0, 10),
  ambient_sound: oneOf(AMBIENT_SOUNDS),
  ambient_sound_volume: num(0, 1),
  is_webhook_active: z.boolean(),
  webhook_url: url(),
  send_webhook_only_on_completed: z.boolean(),
  include_recording_in_webhook: z.boolean(),
  post_call_evaluation: z.boolean(),
  post_call_schema: z.array(PostCallSchemaItem),
  variables: freeObject(),
  conversation_inactivity_timeout: int(INACTIVITY_TIMEOUT.min, INACTIVITY_TIMEOUT.max),
  conversation_ended_retrigger: z.boolean(),
  conversation_ended_webhook_url: url(),
  // live-platform C.3: the assistant's folder and labels (own ids; checked in the service).
  folder_id: int(),
  label_ids: z.array(int()),
}));
type Fields = ReturnType<typeof fieldSchemas>;
type FieldName = keyof Fields;

/** Fields required on create (spec: the Create column). */
export const REQUIRED_ON_CREATE = ['name', 'voice_id', 'language_id', 'type', 'mode', 'timezone', 'initial_message', 'system_prompt'] as const satisfies readonly FieldName[];

/**
 * Fields whose null means "clear" or "back to the default" on update (spec: the
 * Constraints column); on create a null is the same as leaving the field out.
 * `filler_config` is included: an empty configuration is the same as none.
 */
export const NULLABLE = [
  'chat_llm_fallback_id',
  'turn_detection_threshold',
  'knowledgebase_id',
  'phone_number_id',
  'synthesizer_provider_id',
  'transcriber_provider_id',
  'max_initial_silence_duration',
  'reengagement_prompt',
  'voice_mail_message',
  'min_interrupt_words',
  'webhook_url',
  'conversation_inactivity_timeout',
  'conversation_ended_webhook_url',
  'filler_config',
  'folder_id',
] as const satisfies readonly FieldName[];

/** The collections an update replaces whole (spec: Update rules). */
export const REPLACING_COLLECTIONS = ['secondary_language_ids', 'tool_ids', 'tools', 'variables', 'post_call_schema', 'filler_config'] as const;

type Shaped = { [K in FieldName]: z.ZodType };

function shape(required: readonly string[]): Shaped {
  const out = {} as Record<string, z.ZodType>;
  for (const [name, schema] of Object.entries(fieldSchemas()) as [FieldName, z.ZodType][]) {
    const nullable = (NULLABLE as readonly string[]).includes(name) ? schema.nullable() : schema;
    out[name] = required.includes(name) ? nullable : nullable.optional();
  }
  return out as Shaped;
}

/** `POST /user/assistant`. */
export const CreateAssistantBody = lazySchema(() => z.object(shape(REQUIRED_ON_CREATE)) as unknown as z.ZodType<AssistantInput>);
/** `PUT /user/assistant/{id}`: any subset. */
export const UpdateAssistantBody = lazySchema(() => z.object(shape([])) as unknown as z.ZodType<AssistantInput>);

/** The parsed input: every field possibly absent; nullable ones possibly null. */
export type AssistantInput = {
  [K in FieldName]?: z.output<Fields[K]> | (K extends (typeof NULLABLE)[number] ? null : never);
};

/** The settings an assistant stores: every field of the table with its value or default. */
export interface AssistantSettings {
  name: string;
  voice_id: number;
  language_id: number;
  type: (typeof ASSISTANT_TYPES)[number];
  mode: Mode;
  timezone: string;
  initial_message: string;
  system_prompt: string;
  llm_model_id: number | null;
  multimodal_model_id: number | null;
  chat_llm_fallback_id: number | null;
  turn_detection_threshold: number | null;
  secondary_language_ids: number[];
  knowledgebase_id: number | null;
  knowledgebase_mode: (typeof KNOWLEDGEBASE_MODES)[number];
  phone_number_id: number | null;
  tool_ids: number[];
  tools: BuiltInTool[];
  voice_stability: number;
  voice_similarity: number;
  speech_speed: number;
  llm_temperature: number;
  tts_emotion_enabled: boolean;
  synthesizer_provider_id: number | null;
  transcriber_provider_id: number | null;
  allow_interruptions: boolean;
  fillers: boolean;
  filler_config: FillerConfig | null;
  record: boolean;
  enable_noise_cancellation: boolean;
  wait_for_customer: boolean;
  max_duration: number;
  max_silence_duration: number;
  max_initial_silence_duration: number | null;
  ringing_time: number;
  reengagement_interval: number;
  reengagement_prompt: string | null;
  end_call_on_voicemail: boolean;
  voice_mail_message: string | null;
  endpoint_type: (typeof ENDPOINT_TYPES)[number];
  endpoint_sensitivity: number;
  interrupt_sensitivity: number;
  min_interrupt_words: number | null;
  ambient_sound: (typeof AMBIENT_SOUNDS)[number];
  ambient_sound_volume: number;
  is_webhook_active: boolean;
  webhook_url: string | null;
  send_webhook_only_on_completed: boolean;
  include_recording_in_webhook: boolean;
  post_call_evaluation: boolean;
  post_call_schema: PostCallSchemaItem[];
  variables: Record<string, unknown>;
  conversation_inactivity_timeout: number | null;
  conversation_ended_retrigger: boolean;
  conversation_ended_webhook_url: string | null;
  /** live-platform C.3: shown on the live wire only; absent in older snapshots. */
  folder_id?: number | null;
  /** live-platform C.3: de-duplicated in order; shown on the live wire only; absent in older snapshots. */
  label_ids?: number[];
}

/** Defaults of the optional fields that do not depend on the mode or the language (spec: Constraints / default). */
export const DEFAULTS = {
  chat_llm_fallback_id: null,
  turn_detection_threshold: null,
  secondary_language_ids: [],
  knowledgebase_id: null,
  knowledgebase_mode: 'function_call',
  phone_number_id: null,
  tool_ids: [],
  tools: [],
  voice_stability: 0.7,
  voice_similarity: 0.5,
  speech_speed: 1,
  llm_temperature: 0.1,
  tts_emotion_enabled: true,
  allow_interruptions: true,
  fillers: false,
  filler_config: null,
  record: false,
  enable_noise_cancellation: true,
  wait_for_customer: false,
  max_duration: 600,
  max_silence_duration: 40,
  max_initial_silence_duration: null,
  ringing_time: 30,
  reengagement_interval: 30,
  reengagement_prompt: null,
  end_call_on_voicemail: true,
  voice_mail_message: null,
  endpoint_type: 'vad',
  endpoint_sensitivity: 0.5,
  interrupt_sensitivity: 0.5,
  min_interrupt_words: null,
  ambient_sound: 'off',
  ambient_sound_volume: 0.5,
  is_webhook_active: false,
  webhook_url: null,
  send_webhook_only_on_completed: true,
  include_recording_in_webhook: true,
  post_call_evaluation: true,
  post_call_schema: [],
  variables: {},
  conversation_inactivity_timeout: 30,
  conversation_ended_retrigger: false,
  conversation_ended_webhook_url: null,
  folder_id: null,
  label_ids: [],
} as const satisfies Partial<AssistantSettings>;

export type AssistantStatus = (typeof ASSISTANT_STATUSES)[number];

/** The stored assistant. */
export interface Assistant extends AssistantSettings {
  id: number;
  account_id: number;
  uuid: string;
  status: AssistantStatus;
  /** live-platform B: set by the inbound webhook switches; shown on the live wire only. */
  inbound_webhook_url: string | null;
  created_at: number;
  updated_at: number;
}

export const AssistantListQuery = lazySchema(() => pageQuery(10));

/**
 * `GET /user/assistants` ignores its query (live-platform B); the OpenAPI document names
 * the paging parameters a client of a list sends, as taken and ignored (issue 34).
 */
export const BareListQueryDoc = lazySchema(() => {
  const ignored = z.string().optional().meta({ description: 'Ignored: this list is never paged (live-platform B).' });
  return z.object({ page: ignored, per_page: ignored });
});

const ASSISTANT_REF_RULE = 'The :attribute must be an assistant id or uuid.';

/**
 * An assistant named in a body (live-platform A.1): its integer id or its uuid; a digit
 * string counts as the integer id, as in the path form of the switch routes.
 */
// Built at once, not lazily: zod's JSON Schema reads a lazy preprocessed field as optional (core/lazy-schema.ts).
// The document shows both types it takes, not only the string it ends as (issue 34: a client typed from it sent no integers).
export const AssistantRef = documentedAs(
  z.preprocess(
    (v) => (typeof v === 'number' && Number.isInteger(v) ? String(v) : v),
    z.string({ error: (issue) => (issue.input === undefined ? undefined : ASSISTANT_REF_RULE) }).min(1).max(255),
  ),
  {
    json: {
      description: "The assistant's integer id (a number or its digits) or its uuid.",
      anyOf: [{ type: 'integer' }, { type: 'string', minLength: 1, maxLength: 255 }],
    },
  },
);

/** The body of a switch that names its assistant (live-platform A.1, B). */
export const AssistantSwitchBody = lazySchema(() => z.object({ assistant_id: AssistantRef }));
/** The body of a switch that also sets a webhook URL. */
export const AssistantWebhookBody = lazySchema(() => AssistantSwitchBody.unwrap().extend({ webhook_url: url() }));

/** The record returned by create and update (spec: Assistant record as returned by create and update). */
export const AssistantSummaryRecord = lazySchema(() => z
  .object({ id: integer(), name: z.string(), status: z.enum(ASSISTANT_STATUSES), type: z.enum(ASSISTANT_TYPES), mode: z.enum(MODES) })
  .meta({ id: 'AssistantSummary' }));
export type AssistantSummaryRecord = z.output<typeof AssistantSummaryRecord>;

const nullableId = () => integer().nullable();

/** The read record on the spec wire (decisions: Assistant read record; `serialiseAssistant`). */
export const AssistantRecord = lazySchema(() => z
  .object({
    id: integer(),
    uuid: z.string(),
    name: z.string(),
    status: z.enum(ASSISTANT_STATUSES),
    type: z.enum(ASSISTANT_TYPES),
    mode: z.enum(MODES),
    voice_id: integer(),
    language_id: integer(),
    timezone: z.string(),
    initial_message: z.string(),
    system_prompt: z.string(),
    llm_model_id: nullableId(),
    multimodal_model_id: nullableId(),
    chat_llm_fallback_id: nullableId(),
    turn_detection_threshold: z.number().nullable(),
    secondary_language_ids: z.array(integer()),
    knowledgebase_id: nullableId(),
    knowledgebase_mode: z.enum(KNOWLEDGEBASE_MODES),
    phone_number_id: nullableId(),
    tool_ids: z.array(integer()),
    tools: z.array(BuiltInTool),
    voice_stability: z.number(),
    voice_similarity: z.number(),
    speech_speed: z.number(),
    llm_temperature: z.number(),
    tts_emotion_enabled: z.boolean(),
    synthesizer_provider_id: nullableId(),
    transcriber_provider_id: nullableId(),
    allow_interruptions: z.boolean(),
    fillers: z.boolean(),
    filler_config: FillerConfig.nullable(),
    record: z.boolean(),
    enable_noise_cancellation: z.boolean(),
    wait_for_customer: z.boolean(),
    max_duration: integer(),
    max_silence_duration: integer(),
    max_initial_silence_duration: integer().nullable(),
    ringing_time: integer(),
    reengagement_interval: integer(),
    reengagement_prompt: z.string().nullable(),
    end_call_on_voicemail: z.boolean(),
    voice_mail_message: z.string().nullable(),
    endpoint_type: z.enum(ENDPOINT_TYPES),
    endpoint_sensitivity: z.number(),
    interrupt_sensitivity: z.number(),
    min_interrupt_words: integer().nullable(),
    ambient_sound: z.enum(AMBIENT_SOUNDS),
    ambient_sound_volume: z.number(),
    is_webhook_active: z.boolean(),
    webhook_url: z.string().nullable(),
    send_webhook_only_on_completed: z.boolean(),
    include_recording_in_webhook: z.boolean(),
    post_call_evaluation: z.boolean(),
    post_call_schema: z.array(PostCallSchemaItem),
    variables: jsonObject(),
    conversation_inactivity_timeout: integer().nullable(),
    conversation_ended_retrigger: z.boolean(),
    conversation_ended_webhook_url: z.string().nullable(),
    created_at: isoTimestamp(),
    updated_at: isoTimestamp(),
  })
  .meta({ id: 'Assistant' }));
export type AssistantRecord = z.output<typeof AssistantRecord>;

/** A boolean as the live platform writes it: 0 or 1 (live-platform D.3). */
const bit = () => z.union([z.literal(0), z.literal(1)]);

/** The read record on the live wire (live-platform D.3, C.3). */
export const LiveAssistantRecord = lazySchema(() => AssistantRecord.unwrap().extend({
  fillers: bit(),
  end_call_on_voicemail: bit(),
  llm_temperature: z.string(),
  voice_stability: z.string(),
  voice_similarity: z.string(),
  speech_speed: z.string(),
  ambient_sound_volume: z.string(),
  variables: z.union([jsonObject(), emptyArray()]),
  filler_config: z.union([FillerConfig, emptyArray()]).nullable(),
  tools: z.array(z.object({ type: z.string(), data: jsonObject() })),
  user_id: integer(),
  engine_id: integer(),
  synthesizer_id: nullableId(),
  transcriber_id: nullableId(),
  instance_id: z.null(),
  flows_platform_id: z.null(),
  language: z.string().nullable(),
  inbound_webhook_url: z.string().nullable(),
  widget_settings: z.object({ enabled: z.boolean() }),
  deleted_at: z.null(),
  folder_id: nullableId(),
  label_ids: z.array(integer()),
}).meta({ id: 'LiveAssistant' }));
export type LiveAssistantRecord = z.output<typeof LiveAssistantRecord>;

/** The record returned by create and update (spec: Assistant record as returned by create and update). */
export function serialiseAssistantSummary(a: Assistant): AssistantSummaryRecord {
  return { id: a.id, name: a.name, status: a.status, type: a.type, mode: a.mode };
}

/**
 * The read record (decisions: Assistant read record): every stored field plus id, uuid,
 * status and timestamps; on the live wire with live-platform D.3's encodings and its
 * live-only keys after the rest. `catalog` (the request's) gives the live record's `language`.
 * @example serialiseAssistant(assistant, ctx.wire, ctx.catalog)
 */
export function serialiseAssistant(a: Assistant, wire: Wire, catalog: Catalog): AssistantRecord | LiveAssistantRecord {
  // The folder and labels are live-only keys (live-platform C.3: the spec wire keeps today's record).
  const { id, account_id: _account, uuid, status, created_at, updated_at, name, type, mode, inbound_webhook_url: _inbound, folder_id: _folder, label_ids: _labels, ...settings } = a;
  const record = {
    id,
    uuid,
    name,
    status,
    type,
    mode,
    ...structuredClone(settings),
    created_at: formatIsoUtc(created_at),
    updated_at: formatIsoUtc(updated_at),
  };
  if (wire === 'spec') return record;
  return {
    // live-platform D.3: the spec keys keep their places; only these values are encoded as the live platform does.
    ...record,
    fillers: a.fillers ? 1 : 0,
    end_call_on_voicemail: a.end_call_on_voicemail ? 1 : 0,
    llm_temperature: decimalString(a.llm_temperature),
    voice_stability: decimalString(a.voice_stability),
    voice_similarity: decimalString(a.voice_similarity),
    speech_speed: decimalString(a.speech_speed),
    ambient_sound_volume: decimalString(a.ambient_sound_volume),
    // live-platform D.3: PHP encodes an empty associative array as `[]`.
    variables: Object.keys(a.variables).length === 0 ? [] : record.variables,
    filler_config: a.filler_config !== null && Object.keys(a.filler_config).length === 0 ? [] : record.filler_config,
    // live-platform G.2: every field with its default, the calendar's under the live names.
    tools: a.tools.map(liveTool),
    // live-platform D.3: the live-only keys, in its order.
    user_id: a.account_id,
    engine_id: ENGINE_IDS[a.mode],
    synthesizer_id: a.synthesizer_provider_id,
    transcriber_id: a.transcriber_provider_id,
    instance_id: null,
    flows_platform_id: null,
    language: catalog.language(a.language_id)?.iso_2 ?? null,
    inbound_webhook_url: a.inbound_webhook_url ?? null,
    widget_settings: { enabled: false },
    deleted_at: null,
    // live-platform C.3.
    folder_id: a.folder_id ?? null,
    label_ids: [...(a.label_ids ?? [])],
  };
}

/** The live platform's engine ids (live-platform D.3). */
const ENGINE_IDS: Record<Mode, number> = { pipeline: 1, multimodal: 2, dualplex: 3 };

/**
 * A number as the live platform's decimal string: its shortest form, with at least one
 * decimal (live-platform D.3, decision), never in exponent notation.
 * @example decimalString(0.7) // '0.7'
 * @example decimalString(1) // '1.0'
 */
export function decimalString(n: number): string {
  const text = String(n);
  const exponent = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!exponent) return text.includes('.') ? text : `${text}.0`;
  const [, sign, lead, rest = '', power] = exponent;
  const digits = `${lead}${rest}`;
  const point = 1 + Number(power);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}.0`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}
