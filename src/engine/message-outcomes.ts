/**
 * Scripted delivery outcomes of sent messages (live-platform H.4): rules by recipient and
 * sender, each a sequence consumed message by message per recipient, its last outcome
 * repeating, as call outcomes are (engine/outcomes.ts). Without a rule a message is read.
 */
import * as z from 'zod';
import { readE164 } from '../core/phone.js';
import { int, oneOf, parseInput } from '../core/validation.js';
import { lazySchema } from '../core/lazy-schema.js';
import { STATUS_DELAYS_MS } from '../core/vocabulary.js';
import { cloneData } from '../core/clone.js';

/** How a sent message ends: read (the default), delivered with no read receipt, failed or undelivered after `sent`. */
export const DELIVERY_OUTCOMES = ['read', 'delivered', 'failed', 'undelivered'] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

/** Default failure codes (live-platform H.4, decision): 63016 for `failed`, 30003 for `undelivered`. */
export const DEFAULT_ERROR_CODES = { failed: 63016, undelivered: 30003 } as const;

/** What a message's recipient side does, fixed at the send. */
export interface DeliveryPlan {
  kind: DeliveryOutcome;
  /** The failure's code (failed, undelivered), else null. */
  error_code: number | null;
  /** Milliseconds from the status before the outcome's last one to it (`read` after `delivered`, the others after `sent`). */
  after_ms: number;
}

export const MessageOutcome = lazySchema(() => z.union([
  oneOf(DELIVERY_OUTCOMES),
  z.strictObject({ kind: oneOf(DELIVERY_OUTCOMES), error_code: int(1, 999_999).optional(), after: int(0, 86_400).optional() }),
]));
export type MessageOutcome = z.output<typeof MessageOutcome>;

export const MessageOutcomeRule = lazySchema(() => z.strictObject({
  match: z.strictObject({ recipient_phone: z.string().min(1).optional(), sender_id: int(1).optional() }).default({}),
  outcomes: z.array(MessageOutcome).min(1, { error: 'The :attribute must have at least 1 items.' }),
}));
export type MessageOutcomeRule = z.output<typeof MessageOutcomeRule>;
/** `PUT /__sim/msgapp/outcomes`. */
export const MessageOutcomeRulesBody = lazySchema(() => z.object({ rules: z.array(MessageOutcomeRule) }));

export interface MessageOutcomeState {
  rules: MessageOutcomeRule[];
  /** Messages per `<rule position>|<recipient>` so far, for sequences. */
  attempts: Record<string, number>;
}

/** The plan an outcome makes, with H.4's defaults for what it leaves out. */
export function planOf(outcome: MessageOutcome): DeliveryPlan {
  const written = typeof outcome === 'string' ? { kind: outcome } : outcome;
  const kind = written.kind;
  const failing = kind === 'failed' || kind === 'undelivered';
  const after = 'after' in written && written.after !== undefined ? written.after * 1_000 : kind === 'read' ? STATUS_DELAYS_MS.read : STATUS_DELAYS_MS.delivered;
  return { kind, error_code: failing ? (('error_code' in written && written.error_code) || DEFAULT_ERROR_CODES[kind]) : null, after_ms: after };
}

/** Precedence (like call outcomes): recipient and sender, recipient, sender, catch-all; then the order given. */
function specificity(rule: MessageOutcomeRule): number {
  const { recipient_phone, sender_id } = rule.match;
  return (recipient_phone === undefined ? 2 : 0) + (sender_id === undefined ? 1 : 0);
}

/** A rule's recipient in E.164 (by its form alone, as call outcome rules read theirs), so `+1 234 567 890` matches too. */
function normalised(rule: MessageOutcomeRule): MessageOutcomeRule {
  const phone = rule.match.recipient_phone;
  const read = phone === undefined ? undefined : readE164(phone.replace(/[\s().-]/g, ''), 'live');
  return read ? { ...rule, match: { ...rule.match, recipient_phone: read.number } } : rule;
}

const DEFAULT_PLAN: Readonly<DeliveryPlan> = Object.freeze(planOf('read'));

/**
 * The delivery outcome rules of one simulator.
 * @example
 * sim.control.msgapp.outcomes.set({ rules: [{ match: { recipient_phone: '+1234567890' }, outcomes: ['failed'] }] })
 */
export class MessageOutcomeScript {
  private rules: MessageOutcomeRule[] = [];
  private ordered: { rule: MessageOutcomeRule; position: number }[] = [];
  private attempts = new Map<string, number>();
  private changes = 0;

  /** Grows with every change of the rules or the counts (the state file writes them only when it moved). */
  get revision(): number {
    return this.changes;
  }

  /** Replaces every rule, validated as `PUT /__sim/msgapp/outcomes` validates them (422 shape B); sequences start again. */
  set(rules: unknown): void {
    const checked = parseInput(MessageOutcomeRulesBody, { rules }, 'control').rules.map(normalised);
    this.attempts.clear();
    this.place(checked);
  }

  private place(rules: MessageOutcomeRule[]): void {
    this.changes++;
    this.rules = structuredClone(rules);
    this.ordered = this.rules.map((rule, position) => ({ rule, position })).sort((a, b) => specificity(a.rule) - specificity(b.rule) || a.position - b.position);
  }

  list(): MessageOutcomeRule[] {
    return cloneData(this.rules);
  }

  clear(): void {
    this.place([]);
    this.attempts.clear();
  }

  /** The plan of the next message from `sender_id` to `recipient`: a matching rule's sequence moves one step for that recipient. */
  next(sender_id: number, recipient: string): DeliveryPlan {
    for (const { rule, position } of this.ordered) {
      const { recipient_phone, sender_id: sender } = rule.match;
      if ((recipient_phone !== undefined && recipient_phone !== recipient) || (sender !== undefined && sender !== sender_id)) continue;
      const last = rule.outcomes.length - 1;
      const key = `${position}|${recipient}`;
      const attempt = this.attempts.get(key) ?? 0;
      if (attempt < last) {
        this.attempts.set(key, attempt + 1);
        this.changes++;
      }
      return planOf(rule.outcomes[Math.min(attempt, last)]!);
    }
    return { ...DEFAULT_PLAN };
  }

  snapshot(): MessageOutcomeState {
    return { rules: this.list(), attempts: Object.fromEntries(this.attempts) };
  }

  restore(state: MessageOutcomeState): void {
    this.place(state.rules);
    this.attempts = new Map(Object.entries(state.attempts));
  }
}
