/**
 * The expectation steps' forms (ARCHITECTURE §7): what each one reads, as the records of
 * the answers it reads (on both wires: a scenario may play on either), and the keys that
 * choose what is read rather than compare with it. Every other key is a field of the
 * record, so the loader checks them all before playing, at every depth: a misspelt key is
 * refused at its line instead of passing when no item is selected.
 */
import * as z from 'zod';
import { MeRecord } from '../domain/accounts/schema.js';
import { AssistantRecord, LiveAssistantRecord } from '../domain/assistants/schema.js';
import { CallRecord, LiveCallRecord } from '../domain/calls/schema.js';
import { CampaignRecord } from '../domain/campaigns/schema.js';
import { ConversationReadRecord, ConversationRecord, LiveConversationReadRecord, LiveConversationRecord } from '../domain/conversations/schema.js';
import { DocumentRecord, KnowledgebaseRecord, LiveKnowledgebaseRecord } from '../domain/knowledgebases/schema.js';
import { LeadRecord } from '../domain/leads/schema.js';
import { SIM_EVENT_SCHEMAS } from '../domain/sim-events.js';
import { LiveToolRecord, ToolRecord } from '../domain/tools/schema.js';
import { DeliveryRecord } from '../control/schema.js';
import { firstUnknown, knownKeysAt, schemasAt, type UnknownKey, type UnknownWord } from './shapes.js';
import { lazySchema, once, unlazy, type ObjectSchema } from '../core/lazy-schema.js';

/** What an expectation compares with and which of its keys choose instead. */
interface Form {
  /** The records it compares with: the answer's record on each wire. */
  records: readonly z.ZodType[];
  /** Compares every item of a list: `count`, `where`, and per field one value or a value per item. */
  collection?: boolean;
  /** Keys that choose what is read (a ref, a number, an event type), or that hold a form of their own (`documents`). */
  choose?: Record<string, z.ZodType | Form>;
  /** The records a given expectation compares with, when its choice narrows them (`expect_events` by `type`). */
  narrow?: (expectation: Record<string, unknown>) => readonly z.ZodType[] | undefined;
}

const isForm = (value: z.ZodType | Form): value is Form => 'records' in value;
const isMapping = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A ref (`spring`, `$spring`) or a literal id. */
const id = lazySchema(() => z.union([z.number().int(), z.string()]));

/**
 * The items of `expect_events`: `{type, at, ...data}` per event type (SIM_EVENT_SCHEMAS).
 * `type` is any text: the data of a conversation event or a placed call carries its own
 * `type`, which wins.
 */
const eventRecords = once((): Record<string, z.ZodType> =>
  Object.fromEntries(
  Object.entries(SIM_EVENT_SCHEMAS).map(([type, data]) => [type, unlazy(data as z.ZodType as ObjectSchema).extend({ type: z.string(), at: z.string() })]),
  ),
);

/** What `GET /user/conversations` lists of a conversation, with `history` and `variables` from `GET /conversations/{uuid}`. */
const read = { history: true, variables: true } as const;

/** The expectation steps. */
const EXPECTATION_KINDS = [
  'expect_lead', 'expect_leads', 'expect_calls', 'expect_campaign', 'expect_assistant', 'expect_knowledgebase',
  'expect_tool', 'expect_conversation', 'expect_deliveries', 'expect_events', 'expect_balance',
] as const;

export type ExpectationKind = (typeof EXPECTATION_KINDS)[number];

/** Each step's form, built when a scenario is first loaded (they read some 1,000 schemas of answers: issue 29). */
const forms = once(() => ({
  expect_lead: { records: [LeadRecord], choose: { lead: id.optional(), phone_number: z.string().optional(), campaign: id.optional() } },
  expect_leads: { records: [LeadRecord], collection: true, choose: { campaign: id.optional() } },
  expect_calls: { records: [CallRecord, LiveCallRecord], collection: true, choose: { phone_number: z.string().optional(), campaign: id.optional() } },
  expect_campaign: { records: [CampaignRecord], choose: { campaign: id } },
  expect_assistant: { records: [AssistantRecord, LiveAssistantRecord], choose: { assistant: id } },
  expect_knowledgebase: {
    records: [KnowledgebaseRecord, LiveKnowledgebaseRecord],
    choose: { knowledgebase: id, documents: { records: [DocumentRecord], collection: true } },
  },
  expect_tool: { records: [ToolRecord, LiveToolRecord], choose: { tool: id } },
  expect_conversation: {
    records: [ConversationRecord.unwrap().extend(ConversationReadRecord.unwrap().pick(read).shape), LiveConversationRecord.unwrap().extend(LiveConversationReadRecord.unwrap().pick(read).shape)],
    choose: { conversation: z.string() },
  },
  expect_deliveries: { records: [DeliveryRecord], collection: true },
  expect_events: {
    records: Object.values(eventRecords()),
    collection: true,
    choose: { type: z.enum(Object.keys(SIM_EVENT_SCHEMAS) as [string, ...string[]]).optional() },
    narrow: (expectation) => (typeof expectation.type === 'string' && eventRecords()[expectation.type] ? [eventRecords()[expectation.type]!] : undefined),
  },
  expect_balance: { records: [MeRecord] },
}) satisfies Record<ExpectationKind, Form>);

/** The keys of the records of a form: the fields an expectation may compare. */
const fieldsOf = (records: readonly z.ZodType[]) => [...new Set(records.flatMap((record) => knownKeysAt(record)))];

/** A form as a closed zod schema: its choosing keys, `count` and `where` for a collection, and the records' fields (any value, checked by `firstUnknownIn`). */
function schemaOf(form: Form): z.ZodObject {
  const fields = Object.fromEntries(fieldsOf(form.records).map((key) => [key, z.unknown().optional()]));
  return z.strictObject({
    ...fields,
    ...(form.collection && { count: z.number().int().min(0).optional(), where: z.strictObject(fields).optional() }),
    ...Object.fromEntries(Object.entries(form.choose ?? {}).map(([key, choice]) => [key, isForm(choice) ? schemaOf(choice).optional() : choice])),
  });
}

/** The value of each expectation step: a closed mapping (`expect_balance` may also be a number, the total balance). */
export const EXPECTATION_SCHEMAS = Object.fromEntries(
  EXPECTATION_KINDS.map((kind): [string, z.ZodType] => [
    kind,
    lazySchema(() => (kind === 'expect_balance' ? z.union([z.number(), schemaOf(forms()[kind])]) : schemaOf(forms()[kind]))),
  ]),
) as Record<ExpectationKind, z.ZodType>;

function firstUnknownIn(form: Form, expectation: Record<string, unknown>, path: (string | number)[]): UnknownKey | UnknownWord | undefined {
  const records = form.narrow?.(expectation) ?? form.records;
  for (const [key, value] of Object.entries(expectation)) {
    const at = [...path, key];
    const choice = form.choose?.[key];
    let found: UnknownKey | UnknownWord | undefined;
    if (choice !== undefined) {
      if (isForm(choice) && isMapping(value)) found = firstUnknownIn(choice, value, at);
    } else if (form.collection && key === 'where') {
      found = firstUnknown(value, records, at, { words: true });
    } else if (!(form.collection && key === 'count')) {
      const field = records.flatMap((record) => schemasAt(record, [key]));
      // Only a narrowed form lacks a key its schema let through (`reason` of a `campaign.status` event).
      if (field.length === 0) return { kind: 'key', path, key, known: [...fieldsOf(records), ...Object.keys(form.choose ?? {}), ...(form.collection ? ['count', 'where'] : [])] };
      // A collection's field holds one value for every item, or a list of one value per item.
      found = firstUnknown(value, form.collection ? [...field, ...field.map((f) => z.array(f))] : field, at, { words: true });
    }
    if (found) return found;
  }
  return undefined;
}

/**
 * The first key of an expectation step's value (already shaped by its schema) that its records do not
 * have where it stands, or the first text that is not a word of its field's enum: inside
 * `where`, inside field values (`history: [{role: assistant}]`), and against the one
 * event type an `expect_events` names.
 * @example firstUnknownInExpectation('expect_calls', { where: { answerd_by: 'machine' } }, ['steps', 3, 'expect_calls']) // { kind: 'key', key: 'answerd_by', ... }
 */
export function firstUnknownInExpectation(kind: string, expectation: unknown, path: (string | number)[]): UnknownKey | UnknownWord | undefined {
  const form: Form | undefined = (EXPECTATION_KINDS as readonly string[]).includes(kind) ? forms()[kind as ExpectationKind] : undefined;
  return form && isMapping(expectation) ? firstUnknownIn(form, expectation, path) : undefined;
}
