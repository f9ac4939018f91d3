/**
 * Scripted assistant replies (ARCHITECTURE §4 Scripted replies): ordered rules, per
 * assistant or for all; the first rule whose `when` matches the customer's message
 * answers; without a match, a fixed default reply.
 */
import * as z from 'zod';
import { fillTemplate } from '../core/template.js';
import { freeObject, int, parseInput } from '../core/validation.js';
import { lazySchema } from '../core/lazy-schema.js';
import { lazyRequire } from '../core/lazy.js';
import { cloneData } from '../core/clone.js';

/** The answer when no rule matches. */
export const DEFAULT_REPLY = 'Thank you for your message. How else can I help you today?';

/** Texts of refused reply rules (`:attribute` is the field's path). */
export const REPLY_MESSAGES = {
  catastrophicRegex:
    'The :attribute may take exponential time on a message that almost matches: it repeats a group that holds a repetition (as in (a+)+) or has more than 25 repetitions. Rewrite it without nested repetition.',
} as const;

const FLAGS = /^[dgimsuy]*$/;

/** Whether the pattern compiles; unknown flags are reported by their own rule, not as a bad pattern. */
function compiles(pattern: { regex: string; flags?: string | undefined }): boolean {
  try {
    new RegExp(pattern.regex, FLAGS.test(pattern.flags ?? '') ? pattern.flags : '');
    return true;
  } catch {
    return false;
  }
}

/** safe-regex2, loaded on first use: only scripts with patterns need it (issue 29). */
const safeRegex = lazyRequire<typeof import('safe-regex2')>('safe-regex2');

/**
 * Whether a pattern that compiles is free of catastrophic backtracking, as safe-regex2
 * (fastify) judges it: no quantifier inside a quantified group (`(a+)+`, `(\w+\s?)*`,
 * whose match time doubles with each character of a near miss) and at most 25
 * quantifiers. Two readings keep it from refusing what cannot blow up: a group made
 * optional (`(?:\+?1)?`) repeats at most once, so its `?` is not counted as a repetition
 * around the group's own; and its parser does not know lookbehind, whose quantifiers are
 * those of a lookahead, so it reads one. Overlapping alternatives under one quantifier
 * (`(a|a)*`) are beyond what it detects.
 */
function backtracksSafely(pattern: { regex: string; flags?: string | undefined }): boolean {
  return !compiles(pattern) || safeRegex()(pattern.regex.replace(/\)\?\??/g, ')').replace(/\(\?<([=!])/g, '(?$1'));
}

/**
 * A function call of a reply rule: with `result`, the scripted answer; without, the tool
 * named `name` attached to the assistant is called for real with `arguments` and its
 * answer is the result (live-platform H.10).
 */
const FunctionCallSchema = lazySchema(() => z.strictObject({ name: z.string().min(1).max(255), arguments: freeObject().default({}), result: freeObject().optional() }));
/** A function call of an assistant reply (spec: Other shapes: function call record). */
export interface FunctionCall {
  name: string;
  arguments: Record<string, unknown>;
  result: Record<string, unknown>;
}
/** A function call as a rule writes it: no `result` means the tool is called (live-platform H.10). */
export interface ScriptedFunctionCall {
  name: string;
  arguments: Record<string, unknown>;
  result?: Record<string, unknown> | undefined;
}

/** A reply rule: `when` is text (found anywhere in the message, any letter case) or `{regex, flags?}`. Closed, with its function calls: a misspelt key is refused, never dropped. */
export const ReplyRuleSchema = lazySchema(() => z.strictObject({
  assistant_id: z.union([int(1), z.string().min(1)]).nullable().default(null),
  when: z.union([
    z.string().min(1),
    z
      .strictObject({ regex: z.string().min(1), flags: z.string().regex(FLAGS, { error: 'The :attribute may only hold the flags d, g, i, m, s, u and y.' }).optional() })
      .refine(compiles, { error: 'The :attribute is not a valid regular expression.', path: ['regex'] })
      .refine(backtracksSafely, { error: REPLY_MESSAGES.catastrophicRegex, path: ['regex'] }),
  ]),
  reply: z.string().max(4096, { error: 'The :attribute may not be greater than 4096 characters.' }),
  function_calls: z.array(FunctionCallSchema).default([]),
  set_variables: freeObject().default({}),
}));
export type ReplyRule = z.infer<typeof ReplyRuleSchema>;
export const ReplyRulesBody = lazySchema(() => z.object({ rules: z.array(ReplyRuleSchema) }));

export interface ScriptedReply {
  reply: string;
  function_calls: ScriptedFunctionCall[];
  set_variables: Record<string, unknown>;
}

function matches(rule: ReplyRule, message: string): boolean {
  if (typeof rule.when === 'string') return message.toLowerCase().includes(rule.when.toLowerCase());
  return new RegExp(rule.when.regex, (rule.when.flags ?? '').replace(/[gy]/g, '')).test(message);
}

/** The reply rules of one simulator. */
export class ReplyScript {
  private rules: ReplyRule[] = [];
  private changes = 0;

  /** Grows with every change of the rules (the state file writes them only when it moved). */
  get revision(): number {
    return this.changes;
  }

  /** Replaces every rule, validated as `PUT /__sim/replies` validates them (422 shape B). */
  set(rules: unknown): void {
    this.rules = structuredClone(parseInput(ReplyRulesBody, { rules }, 'control').rules);
    this.changes++;
  }

  list(): ReplyRule[] {
    return cloneData(this.rules);
  }

  /**
   * The reply of `assistant` to `message`, with `variables` filled in.
   * @example script.reply({ id: 1, uuid }, 'What are your hours?', {})
   */
  reply(assistant: { id: number; uuid: string }, message: string, variables: Record<string, unknown>): ScriptedReply {
    const rule = this.rules.find(
      (r) => (r.assistant_id === null || r.assistant_id === assistant.id || r.assistant_id === assistant.uuid) && matches(r, message),
    );
    if (!rule) return { reply: fillTemplate(DEFAULT_REPLY, variables), function_calls: [], set_variables: {} };
    const values = { ...variables, ...rule.set_variables };
    return {
      reply: fillTemplate(rule.reply, values),
      function_calls: cloneData(rule.function_calls),
      set_variables: cloneData(rule.set_variables),
    };
  }
}
