/**
 * The scenario format (ARCHITECTURE §7): a case written as data. `given` creates
 * resources through the public API (so every rule applies), `ref` names them for `$ref`
 * later; `steps` move the clock, make requests and check expectations. Every mapping of
 * the format is closed (an unknown key is an error, not silently ignored); the resources
 * of `given` take the fields of their route's body, whose values the API validates.
 */
import * as z from 'zod';
import { MAX_MOVE_MS, parseDuration } from '../core/clock.js';
import { MAX_SEED } from '../core/random.js';
import { isClockTime, parseInstant } from '../core/time.js';
import { CatalogDocument } from '../domain/catalog/document.js';
import { WIRES } from '../core/wire.js';
import { AccountInput } from '../domain/accounts/schema.js';
import { CreateAssistantBody } from '../domain/assistants/schema.js';
import { CreateCampaignBody } from '../domain/campaigns/schema.js';
import { CreateLeadBody } from '../domain/leads/schema.js';
import { CreateFolderLabelBody } from '../domain/folders-labels/schema.js';
import { CreateDocumentBody, CreateKnowledgebaseBody } from '../domain/knowledgebases/schema.js';
import { CreateSipTrunkBody } from '../domain/sip-trunks/schema.js';
import { SendSmsBody } from '../domain/sms/schema.js';
import { CreateToolBody } from '../domain/tools/schema.js';
import { Outcome, OutcomeRuleSchema } from '../engine/outcomes.js';
import { ReplyRuleSchema } from '../engine/replies.js';
import { MessageOutcome, MessageOutcomeRule } from '../engine/message-outcomes.js';
import { CreateTemplateBody, MEDIA_TYPES } from '../domain/msgapp/schema.js';
import { CLOCK_MESSAGES, WebhookFailureBody } from '../control/schema.js';
import { EXPECTATION_SCHEMAS, type ExpectationKind } from './expectations.js';
import { firstUnknown, schemasAt, type UnknownKey, type UnknownWord } from './shapes.js';
import { lazySchema, unlazy } from '../core/lazy-schema.js';

const ref = lazySchema(() => z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, { error: 'The :attribute must be a name of letters, digits, _ and -.' }));
/**
 * An instant (ISO 8601) within the clock's range: where the clock starts (`start`) or
 * moves to (`advance_to`); checked here so the error names the key.
 */
const instant = lazySchema(() => z
  .string()
  .refine((text) => parseInstant(text) !== undefined, { error: 'The :attribute must be an ISO 8601 time, e.g. 2026-03-02T09:00:00Z.', abort: true })
  .refine((text) => isClockTime(parseInstant(text)), { error: CLOCK_MESSAGES.range }));

/** Milliseconds of a duration (`90s`, `2h`, 5000), or undefined when it is none. */
function durationMs(duration: number | string): number | undefined {
  try {
    return parseDuration(duration);
  } catch {
    return undefined;
  }
}
/** A move of the clock by a duration (`advance`), as the control API takes it; checked here so the error names `advance`. */
const duration = lazySchema(() => z
  .union([z.number(), z.string()])
  .refine((d) => durationMs(d) !== undefined, { error: 'The :attribute must be a duration in milliseconds or with units (90s, 15m, 2h, 3d).' })
  .refine((d) => (durationMs(d) ?? 0) <= MAX_MOVE_MS, { error: CLOCK_MESSAGES.horizon(':attribute') }));

export const ScenarioAccount = lazySchema(() => AccountInput.unwrap().extend({ ref: ref.optional() }).strict());

export const GivenPhoneNumber = lazySchema(() => z.strictObject({
  ref: ref.optional(),
  /** API key of the account (default: the first account's). */
  key: z.string().optional(),
  type: z.enum(['sip', 'caller_id', 'normal']),
  phone_number: z.string().optional(),
  country_code: z.string().optional(),
  contains: z.string().optional(),
}));

/**
 * A resource of `given`: the fields of the body its route takes (any value, `$ref` strings
 * allowed: the API validates them), `ref`, `key` and the ref-taking `extra` fields. Closed
 * like every other mapping, so a misspelt field is refused here rather than dropped by the
 * API's parser.
 */
const resource = (route: z.ZodType, extra: string[] = []) =>
  // Typed as any field besides `ref` and `key` (its keys are the route's, known only at run time), so a program's scenario object compiles.
  z.strictObject({
    ...Object.fromEntries([...Object.keys((unlazy(route) as unknown as z.ZodObject).shape), ...extra].map((field) => [field, z.unknown().optional()])),
    ref: ref.optional(),
    key: z.string().optional(),
  }) as unknown as z.ZodObject<Record<string, z.ZodType> & { ref: z.ZodOptional<typeof ref>; key: z.ZodOptional<z.ZodString> }, z.core.$strict>;
/**
 * A sender: a fixture changed (`id`), or one of one's own made (`display_name`, live-platform
 * H.5) and named by `ref`; either may set its limit and read-receipts URL (H.4).
 */
export const GivenSender = lazySchema(() => z
  .strictObject({
    id: z.union([z.number().int(), z.string()]).optional(),
    ref: ref.optional(),
    display_name: z.string().optional(),
    phone_number: z.string().optional(),
    account_id: z.number().int().optional(),
    online: z.boolean().optional(),
    assistant: z.string().nullable().optional(),
    messaging_limit: z.number().int().nullable().optional(),
    read_receipts_webhook_url: z.string().nullable().optional(),
  })
  .refine((s) => (s.id === undefined) !== (s.display_name === undefined), { error: 'A sender names an existing one by id, or makes one with display_name: one of the two.' }));
/** A template of one's own (live-platform H.5): `sender` is a ref or an id. */
export const GivenTemplate = lazySchema(() => CreateTemplateBody.unwrap().omit({ sender_id: true }).extend({ ref: ref.optional(), sender: z.union([z.number().int(), z.string()]) }).strict());
/** `msgapp_outcomes`: `{recipient: [outcome...]}` or a list of rules (live-platform H.4). */
export const ScenarioMessageOutcomes = lazySchema(() => z.union([z.array(MessageOutcomeRule), z.record(z.string(), z.array(MessageOutcome).min(1))]));
export const GivenConversation = lazySchema(() => z.strictObject({
  ref: ref.optional(),
  assistant: z.string(),
  type: z.enum(['widget', 'test', 'api']).optional(),
  variables: z.record(z.string(), z.unknown()).optional(),
  messages: z.array(z.string()).optional(),
}));

/**
 * A file document's upload (live-platform C.1), sent as multipart/form-data: `content`
 * as the file's text, else `size` bytes (default 1024, at most the document limit of
 * 20,971,520: a larger file could only be refused); `name` is the file name.
 */
export const GivenFile = lazySchema(() => z.strictObject({
  name: z.string().min(1).optional(),
  size: z.number().int().min(0).max(20_971_520).optional(),
  content: z.string().optional(),
}));
/** The body of the route that creates each kind of `given` resource (a knowledge base's documents: CreateDocumentBody). */
const BODIES = {
  knowledgebases: CreateKnowledgebaseBody,
  tools: CreateToolBody,
  sip_trunks: CreateSipTrunkBody,
  sms: SendSmsBody,
  folders: CreateFolderLabelBody,
  labels: CreateFolderLabelBody,
  assistants: CreateAssistantBody,
  campaigns: CreateCampaignBody,
  leads: CreateLeadBody,
} as const;

/** A knowledge base with its documents, each created through the API (a website by JSON, a file by form). */
export const GivenKnowledgebase = lazySchema(() => resource(BODIES.knowledgebases).extend({
  // A document is created with its knowledge base's key.
  documents: z.array(resource(CreateDocumentBody).omit({ key: true }).extend({ file: GivenFile.optional() })).optional(),
}));

export const Given = lazySchema(() => z.strictObject({
  // issue 27: a catalog document put in force before anything is created (docs/catalog.md).
  catalog: CatalogDocument.optional(),
  phone_numbers: z.array(GivenPhoneNumber).optional(),
  // live-platform C.1, C.2: knowledge bases (with their documents) and tools before the assistants that name them.
  knowledgebases: z.array(GivenKnowledgebase).optional(),
  tools: z.array(resource(BODIES.tools)).optional(),
  // live-platform C.4, C.5: trunks and sent SMS after the numbers (an SMS names its number by `$ref` in `from`).
  sip_trunks: z.array(resource(BODIES.sip_trunks)).optional(),
  sms: z.array(resource(BODIES.sms)).optional(),
  // live-platform C.3: created before the assistants, which name them by `$ref` in folder_id and label_ids.
  folders: z.array(resource(BODIES.folders)).optional(),
  labels: z.array(resource(BODIES.labels)).optional(),
  assistants: z.array(resource(BODIES.assistants)).optional(),
  // `assistant` / `campaign`: a ref (or id) standing for assistant_id / campaign_id.
  campaigns: z.array(resource(BODIES.campaigns, ['assistant'])).optional(),
  leads: z.array(resource(BODIES.leads, ['campaign'])).optional(),
  conversations: z.array(GivenConversation).optional(),
  senders: z.array(GivenSender).optional(),
  templates: z.array(GivenTemplate).optional(),
}));

/** The first key nested in a resource's fields that `body` does not have where it stands. */
function firstUnknownInBody(resource: Record<string, unknown>, body: z.ZodType, path: (string | number)[]): UnknownKey | UnknownWord | undefined {
  for (const [field, value] of Object.entries(resource)) {
    const schemas = schemasAt(body, [field]);
    const found = schemas.length === 0 ? undefined : firstUnknown(value, schemas, [...path, field]);
    if (found) return found;
  }
  return undefined;
}

/**
 * The first key nested in a `given` resource that its route's body does not have
 * (`post_call_schema: [{name, typ}]`): the API would drop it without a word, so the
 * loader refuses it. A resource's own keys are checked by its schema.
 * @example firstUnknownInGiven({ assistants: [{ filler_config: { postive: ['Great'] } }] }) // { key: 'postive', path: ['given', 'assistants', 0, 'filler_config'], ... }
 */
export function firstUnknownInGiven(given: z.output<typeof Given> | undefined): UnknownKey | UnknownWord | undefined {
  for (const [kind, body] of Object.entries(BODIES) as [keyof typeof BODIES, z.ZodType][]) {
    for (const [i, resource] of (given?.[kind] ?? []).entries()) {
      const at = ['given', kind, i];
      const found =
        firstUnknownInBody(resource, body, at) ??
        ((resource as { documents?: Record<string, unknown>[] }).documents ?? []).map((document, d) => firstUnknownInBody(document, CreateDocumentBody, [...at, 'documents', d])).find(Boolean);
      if (found) return found;
    }
  }
  return undefined;
}

/** An outcome rule whose ids may be `$refs` (resolved when the scenario runs). */
const ScenarioOutcomeRule = lazySchema(() => OutcomeRuleSchema.unwrap().extend({
  match: z.strictObject({ phone_number: z.string().min(1).optional(), campaign_id: z.union([z.number().int(), z.string()]).optional(), lead_variables: z.record(z.string(), z.unknown()).optional() }).default({}),
}));
/** `outcomes`: `{number: [outcome...]}` or a list of rules (ARCHITECTURE §6 Outcome rule). */
export const ScenarioOutcomes = lazySchema(() => z.union([z.array(ScenarioOutcomeRule), z.record(z.string(), z.array(Outcome).min(1))]));

/** One step per action key; the other keys are the action's options, and no other key (strict). */
export const STEP_SCHEMAS = {
  request: lazySchema(() => z.strictObject({
    request: z.string().regex(/^(GET|POST|PUT|PATCH|DELETE)\s+\/\S*$/, { error: 'The :attribute must be "METHOD /path", e.g. "POST /user/campaigns/update-status".' }),
    body: z.unknown().optional(),
    key: z.string().nullable().optional(),
    /** Sends `body`'s fields and this file as multipart/form-data (an upload: a file document). */
    file: GivenFile.optional(),
    /** Names ids of the answer for later `$refs`: ref name -> dotted path in the answer body (`data.id`, `data.0.id`). */
    refs: z.record(ref, z.string().regex(/^[\w-]+(\.[\w-]+)*$/, { error: 'The :attribute must be a dotted path in the answer, e.g. data.id.' })).optional(),
    expect: z.strictObject({ status: z.number().int().optional(), body: z.unknown().optional() }).optional(),
  })),
  advance: lazySchema(() => z.strictObject({ advance: duration })),
  advance_to: lazySchema(() => z.strictObject({ advance_to: instant })),
  run_until_idle: lazySchema(() => z.strictObject({ run_until_idle: z.union([z.literal(true), z.strictObject({ max_events: z.number().int().min(1) })]) })),
  customer_message: lazySchema(() => z.strictObject({
    customer_message: z.strictObject({
      sender: z.union([z.number().int(), z.string()]).default(1),
      from: z.string(),
      text: z.string().optional(),
      name: z.string().optional(),
      // live-platform H.6: media with an optional caption, or a voice note.
      media: z.strictObject({ type: z.enum(MEDIA_TYPES), filename: z.string().optional(), caption: z.string().optional() }).optional(),
      voice_note: z.strictObject({ transcription: z.string() }).optional(),
    }),
  })),
  inbound_call: lazySchema(() => z.strictObject({ inbound_call: z.strictObject({ to: z.string(), from: z.string() }) })),
  ...(Object.fromEntries(Object.entries(EXPECTATION_SCHEMAS).map(([kind, schema]) => [kind, lazySchema(() => z.strictObject({ [kind]: schema }))])) as Record<ExpectationKind, z.ZodLazy<z.ZodObject>>),
} as const;
export type StepKind = keyof typeof STEP_SCHEMAS;
export const STEP_KINDS = Object.keys(STEP_SCHEMAS) as StepKind[];

/** A step: exactly one action key, checked by the loader (clearer errors than a union). */
export const Step = lazySchema(() => z.record(z.string(), z.unknown()));

export const Scenario = lazySchema(() => z.strictObject({
  name: z.string().min(1),
  description: z.string().optional(),
  seed: z.number().int().min(0).max(MAX_SEED).optional(),
  start: instant.optional(),
  /** The wire format of the answers (live-platform Rule 5); default the simulator's. */
  wire: z.enum(WIRES).optional(),
  accounts: z.array(ScenarioAccount).optional(),
  given: Given.optional(),
  outcomes: ScenarioOutcomes.optional(),
  msgapp_outcomes: ScenarioMessageOutcomes.optional(),
  replies: z.array(ReplyRuleSchema).optional(),
  webhook_failures: z.array(WebhookFailureBody.unwrap().strict()).optional(),
  steps: z.array(Step).default([]),
}));
/** A scenario as a program may write it (the object form of the YAML or JSON file): `sim.loadScenario(...)`, `sim.control.scenario.load(...)`. */
export type ScenarioInput = z.input<typeof Scenario>;

export type Scenario = z.infer<typeof Scenario>;

/** The JSON Schema of the format, for editors (`voxsim scenario schema`). */
export function scenarioJsonSchema(): Record<string, unknown> {
  const steps = z.union(STEP_KINDS.map((kind) => unlazy(STEP_SCHEMAS[kind])) as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]]);
  const schema = Scenario.unwrap().extend({ steps: z.array(steps).optional() });
  return {
    $id: 'urn:voxsim:scenario',
    title: 'voxsim scenario',
    ...z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }),
  };
}
