/**
 * Values that many calls hold alike, stored once: default transcripts (a greeting and a
 * few picks from phrase banks), call plans (most unanswered and voicemail calls have
 * one of a handful) and the heads of call rows. A campaign of a million leads would otherwise hold a million copies
 * of the same few hundred texts. Shared values are never written to: a call changes by
 * patches that replace its fields. Bounded, so a stream of unique texts (templates filled
 * with each lead's variables) costs no more than storing them.
 */
import { ANSWERED_BY, CALL_STATUSES, type AnsweredBy, type CallStatus } from '../../core/vocabulary.js';
import type { OutcomeName, OutcomeSource } from '../../engine/outcomes.js';
import { CallHeads } from './row.js';
import type { CallPlan } from './schema.js';

/**
 * How many texts and plans one memo keeps at most: enough for every plan of the default
 * phrase banks' human calls (8 ring times, 196 talk times, 120 transcripts per greeting).
 * What it keeps beyond the calls' own copies is its maps (about 10 MB when full).
 */
const LIMIT = 262_144;

const KINDS: readonly OutcomeName[] = ['human', 'goal-incomplete', 'voicemail', 'busy', 'no-answer', 'failed'];
const SOURCES: readonly OutcomeSource[] = ['rule', 'magic', 'default'];

/**
 * The plan's fields other than its texts as one integer, or undefined when a number is out
 * of range: a small integer (which V8 hashes without boxing) for the usual ring and talk
 * times, a larger one (above 2^30, so never equal to a small one) for the rest.
 */
function planShape(kind: OutcomeName, source: OutcomeSource, answeredBy: AnsweredBy, finalStatus: CallStatus, ring: number, talk: number): number | undefined {
  if (!(ring >= 0 && ring < 65_536 && talk >= 0 && talk < 1_048_576 && Number.isInteger(ring) && Number.isInteger(talk))) return undefined;
  const k = KINDS.indexOf(kind);
  const s = SOURCES.indexOf(source);
  const a = ANSWERED_BY.indexOf(answeredBy);
  const f = CALL_STATUSES.indexOf(finalStatus);
  // A value these lists do not know (a new outcome name) is never packed with another's number.
  if (k < 0 || s < 0 || a < 0 || f < 0 || CALL_STATUSES.length > 16) return undefined;
  const fields = ((k * 4 + s) * 4 + a) * 16 + f;
  if (ring < 64 && talk < 4096) return (fields * 64 + ring) * 4096 + talk;
  return 2 ** 30 + (fields * 65_536 + ring) * 1_048_576 + talk;
}

/** A plan without scripted variables or evaluation, its fields in a call plan's order. */
function newPlan(kind: OutcomeName, source: OutcomeSource, answeredBy: AnsweredBy, finalStatus: CallStatus, ring: number, talk: number, transcript: string): CallPlan {
  return { kind, source, answered_by: answeredBy, final_status: finalStatus, ring_seconds: ring, talk_seconds: talk, transcript, variables: null, evaluation: null };
}

export class CallMemo {
  /** What the calls of one placement share (calls/row). */
  readonly heads = new CallHeads();
  /** Texts by kind of text, by their variable head (a filled greeting), by the picks' combination. */
  private readonly texts = new Map<string, Map<string, string[]>>();
  /** Plans without scripted variables or evaluation, by transcript, by shape. */
  private readonly plans = new Map<string, Map<number, CallPlan>>();
  private size = 0;

  /**
   * The text of one kind with this head and combination of picks, built by
   * `build(head, combination)` the first time (a function of those alone: no closure is
   * made per call).
   * @example memo.text('human', greeting, combination, humanText)
   */
  text(kind: string, head: string, combination: number, build: (head: string, combination: number) => string): string {
    let heads = this.texts.get(kind);
    if (!heads) this.texts.set(kind, (heads = new Map()));
    let built = heads.get(head);
    const known = built?.[combination];
    if (known !== undefined) return known;
    const text = build(head, combination);
    if (this.size >= LIMIT) return text;
    if (!built) heads.set(head, (built = []));
    built[combination] = text;
    this.size++;
    return text;
  }

  /** A plan equal to `plan` that another call already holds, else `plan` (kept for the next). */
  plan(plan: CallPlan): CallPlan {
    if (plan.variables !== null || plan.evaluation !== null || plan.transcript === null || plan.tool_calls !== undefined) return plan;
    return this.shared(plan.kind, plan.source, plan.answered_by, plan.final_status, plan.ring_seconds, plan.talk_seconds, plan.transcript, plan);
  }

  /**
   * The plan of these fields without scripted variables or evaluation: one another call
   * already holds, else a new one (kept for the next). Looked up before it is built, so a
   * call whose plan is known makes none (nearly every call of a large campaign).
   * @example memo.planOf('busy', 'rule', 'unknown', 'busy', 2, 0, '')
   */
  planOf(kind: OutcomeName, source: OutcomeSource, answeredBy: AnsweredBy, finalStatus: CallStatus, ring: number, talk: number, transcript: string): CallPlan {
    return this.shared(kind, source, answeredBy, finalStatus, ring, talk, transcript, undefined);
  }

  /** The shared plan of these fields; `given` (else a plan built of them) when there is none yet. */
  private shared(kind: OutcomeName, source: OutcomeSource, answeredBy: AnsweredBy, finalStatus: CallStatus, ring: number, talk: number, transcript: string, given: CallPlan | undefined): CallPlan {
    const shape = planShape(kind, source, answeredBy, finalStatus, ring, talk);
    if (shape === undefined) return given ?? newPlan(kind, source, answeredBy, finalStatus, ring, talk, transcript);
    let shapes = this.plans.get(transcript);
    const known = shapes?.get(shape);
    if (known) return known;
    if (this.size >= LIMIT) return given ?? newPlan(kind, source, answeredBy, finalStatus, ring, talk, transcript);
    if (!shapes) this.plans.set(transcript, (shapes = new Map()));
    const kept = given ?? newPlan(kind, source, answeredBy, finalStatus, ring, talk, transcript);
    shapes.set(shape, kept);
    this.size++;
    return kept;
  }
}
