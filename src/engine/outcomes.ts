/**
 * Scripted call outcomes (ARCHITECTURE §4 Scripted outcomes): rules by exact number, by
 * lead variables or by campaign, then the magic numbers, then the default (a human
 * who meets the goal). A rule may hold a sequence, consumed attempt by attempt per
 * dialed number; when it is used up its last outcome repeats (decisions: Outcome sequences).
 */
import { isDeepStrictEqual } from 'node:util';
import * as z from 'zod';
import { readE164 } from '../core/phone.js';
import { freeObject, int, oneOf, parseInput } from '../core/validation.js';
import { ANSWERED_BY, CALL_STATUSES } from '../core/vocabulary.js';
import { lazySchema } from '../core/lazy-schema.js';
import { cloneData } from '../core/clone.js';

export const OUTCOME_NAMES = ['human', 'busy', 'no-answer', 'voicemail', 'failed', 'goal-incomplete'] as const;
export type OutcomeName = (typeof OUTCOME_NAMES)[number];

/** Magic numbers: the last four digits pick the outcome, with no setup (ARCHITECTURE §4). */
export const MAGIC_SUFFIXES: Record<string, OutcomeName> = {
  '0001': 'busy',
  '0002': 'no-answer',
  '0003': 'voicemail',
  '0004': 'failed',
  '0005': 'goal-incomplete',
};

/** The seconds an outcome may ring and talk: the API's range, and a restored call plan's (state/rows.ts). */
export const RING_SECONDS = { min: 0, max: 600 } as const;
export const TALK_SECONDS = { min: 0, max: 86_400 } as const;

const TranscriptLine = lazySchema(() => z.union([z.string(), z.strictObject({ role: oneOf(['assistant', 'customer', 'user']), content: z.string() })]));

/**
 * A mid-call tool the call calls (live-platform H.10): `tool` is the tool's name, `at`
 * seconds into the talk (default: in order, spread through the talk time).
 */
export const OutcomeToolCall = lazySchema(() => z.strictObject({
  tool: z.string().min(1).max(255),
  arguments: freeObject().default({}),
  at: int(TALK_SECONDS.min, TALK_SECONDS.max).optional(),
}));
export type OutcomeToolCall = z.infer<typeof OutcomeToolCall>;

/** An outcome written out: every field optional, the rest from `kind` (default human). Closed, like the rule and its match: a misspelt key is refused, never dropped. */
export const OutcomeObject = lazySchema(() => z.strictObject({
  kind: z.enum(OUTCOME_NAMES).optional(),
  answered_by: z.enum(ANSWERED_BY).optional(),
  status: z.enum(CALL_STATUSES).optional(),
  ring_seconds: int(RING_SECONDS.min, RING_SECONDS.max).optional(),
  talk_seconds: int(TALK_SECONDS.min, TALK_SECONDS.max).optional(),
  transcript: z.array(TranscriptLine).optional(),
  variables: freeObject().optional(),
  evaluation: freeObject().optional(),
  tool_calls: z.array(OutcomeToolCall).optional(),
}));
export type OutcomeObject = z.infer<typeof OutcomeObject>;
export const Outcome = lazySchema(() => z.union([z.enum(OUTCOME_NAMES), OutcomeObject]));
export type Outcome = z.infer<typeof Outcome>;

export const OutcomeRuleSchema = lazySchema(() => z.strictObject({
  match: z
    .strictObject({
      phone_number: z.string().min(1).optional(),
      campaign_id: int(1).optional(),
      lead_variables: freeObject().optional(),
    })
    .default({}),
  outcomes: z.array(Outcome).min(1, { error: 'The :attribute must have at least 1 items.' }),
}));
export type OutcomeRule = z.infer<typeof OutcomeRuleSchema>;
export const OutcomeRulesBody = lazySchema(() => z.object({ rules: z.array(OutcomeRuleSchema) }));

/** What a dial is: the number, its campaign, its lead's variables. */
export interface DialContext {
  phone_number: string;
  campaign_id: number | null;
  lead_variables: Record<string, unknown> | null;
}

/** Where an outcome came from, for the record. */
/** Where a call's outcome came from: a rule, a magic number, or the default. */
export const OUTCOME_SOURCES = ['rule', 'magic', 'default'] as const;
export type OutcomeSource = (typeof OUTCOME_SOURCES)[number];

export interface OutcomeState {
  rules: OutcomeRule[];
  /** Attempts per rule (its position) and dialed number, for sequences. */
  attempts: Record<string, number>;
}

function specificity(rule: OutcomeRule): number {
  // Precedence among rules (ARCHITECTURE §4): exact number, then lead variables, then campaign, then catch-all.
  if (rule.match.phone_number !== undefined) return 0;
  if (rule.match.lead_variables !== undefined) return 1;
  if (rule.match.campaign_id !== undefined) return 2;
  return 3;
}

/**
 * A rule's number written in E.164, as dialed numbers are (so "+1 555 123 0003" matches too).
 * Read by E.164's form alone, so a number only the live wire dials (`+1234567890`,
 * live-platform G.3 item 2) is written the same way on either wire.
 */
function normalised(rule: OutcomeRule): OutcomeRule {
  const phone = rule.match.phone_number;
  const read = phone === undefined ? undefined : readE164(phone.replace(/[\s().-]/g, ''), 'live');
  return read ? { ...rule, match: { ...rule.match, phone_number: read.number } } : rule;
}

/** A rule in precedence order, with what `next` reads of it on every dial worked out once. */
interface PlacedRule {
  rule: OutcomeRule;
  /** Its place in the rules as given (sequences count attempts per place). */
  position: number;
  /** The keys of its `lead_variables`. */
  variableKeys: string[];
  /** What `next` answers for it when it has one outcome (never changed by callers). */
  only: { outcome: Outcome; source: OutcomeSource } | undefined;
}

function matches(placed: PlacedRule, dial: DialContext): boolean {
  const { phone_number, campaign_id, lead_variables } = placed.rule.match;
  if (phone_number !== undefined && phone_number !== dial.phone_number) return false;
  if (campaign_id !== undefined && campaign_id !== dial.campaign_id) return false;
  if (lead_variables !== undefined) {
    const vars = dial.lead_variables;
    if (!vars) return false;
    for (const key of placed.variableKeys) {
      const expected = lead_variables[key];
      // Deep equality: key order inside nested objects does not matter; a primitive is compared as isDeepStrictEqual compares it.
      if (typeof expected === 'object' && expected !== null ? !isDeepStrictEqual(vars[key], expected) : !Object.is(vars[key], expected)) return false;
    }
  }
  return true;
}

/** What `next` answers without a rule: a magic number's outcome, or the default human. */
const MAGIC_OUTCOMES: Readonly<Record<string, { outcome: Outcome; source: OutcomeSource }>> = Object.fromEntries(
  Object.entries(MAGIC_SUFFIXES).map(([suffix, outcome]) => [suffix, Object.freeze({ outcome, source: 'magic' as const })]),
);
const DEFAULT_OUTCOME = Object.freeze({ outcome: 'human' as Outcome, source: 'default' as const });

/**
 * The outcome rules of one simulator.
 * @example
 * sim.control.outcomes.forNumber('+15551230003', ['voicemail', 'human'])
 */
export class OutcomeScript {
  private rules: OutcomeRule[] = [];
  /** Rules in precedence order (stable within a kind), each with its position in `rules`. */
  private ordered: PlacedRule[] = [];
  /**
   * Attempts per rule position and dialed number, kept only for rules with a sequence
   * and only until the sequence reaches its last outcome (which then repeats): a
   * single-outcome rule over a million numbers keeps nothing.
   */
  private attempts = new Map<number, Map<string, number>>();
  private changes = 0;

  /** Grows with every change of the rules or the attempt counts (the state file writes them only when it moved). */
  get revision(): number {
    return this.changes;
  }

  /**
   * Replaces every rule, validated as `PUT /__sim/outcomes` validates them (422 shape B)
   * and with numbers read as E.164; sequences start again from their first outcome.
   */
  set(rules: unknown): void {
    const checked = parseInput(OutcomeRulesBody, { rules }, 'control').rules.map(normalised);
    this.attempts.clear();
    this.place(checked);
  }

  private place(rules: OutcomeRule[]): void {
    this.changes++;
    this.rules = structuredClone(rules);
    this.ordered = this.rules
      .map((rule, position) => ({
        rule,
        position,
        variableKeys: Object.keys(rule.match.lead_variables ?? {}),
        only: rule.outcomes.length === 1 ? Object.freeze({ outcome: rule.outcomes[0]!, source: 'rule' as const }) : undefined,
      }))
      .sort((a, b) => specificity(a.rule) - specificity(b.rule) || a.position - b.position);
  }

  /** Adds one rule after the others (the others keep their place in their sequences), validated as `set` does. */
  add(rule: unknown): void {
    this.place([...this.rules, normalised(parseInput(OutcomeRuleSchema, rule, 'control'))]);
  }

  list(): OutcomeRule[] {
    return cloneData(this.rules);
  }

  /** Forgets rules and attempt counts. */
  clear(): void {
    this.place([]);
    this.attempts.clear();
  }

  /**
   * The outcome of the next attempt to `dial.phone_number`: a matching rule's sequence
   * moves one step for that number (each rule counts its own attempts per number).
   */
  next(dial: DialContext): { readonly outcome: Outcome; readonly source: OutcomeSource } {
    for (const placed of this.ordered) {
      if (!matches(placed, dial)) continue;
      if (placed.only) return placed.only;
      const { rule, position } = placed;
      const last = rule.outcomes.length - 1;
      let counts = this.attempts.get(position);
      if (!counts) this.attempts.set(position, (counts = new Map()));
      const attempt = counts.get(dial.phone_number) ?? 0;
      // Past the last outcome the count no longer matters: it stops there.
      if (attempt < last) {
        counts.set(dial.phone_number, attempt + 1);
        this.changes++;
      }
      return { outcome: rule.outcomes[Math.min(attempt, last)]!, source: 'rule' };
    }
    return MAGIC_OUTCOMES[dial.phone_number.slice(-4)] ?? DEFAULT_OUTCOME;
  }

  /** The attempt counts as `<rule position>|<number>` and count, live: for readers that write them in slices. */
  *attemptEntries(): IterableIterator<[string, number]> {
    for (const [position, counts] of this.attempts) for (const [phone, count] of counts) yield [`${position}|${phone}`, count];
  }

  snapshot(): OutcomeState {
    return { rules: this.list(), attempts: Object.fromEntries(this.attemptEntries()) };
  }

  restore(state: OutcomeState): void {
    this.place(state.rules);
    this.attempts = new Map();
    for (const [key, count] of Object.entries(state.attempts)) {
      const bar = key.indexOf('|');
      const position = Number(key.slice(0, bar));
      let counts = this.attempts.get(position);
      if (!counts) this.attempts.set(position, (counts = new Map()));
      counts.set(key.slice(bar + 1), count);
    }
  }
}
