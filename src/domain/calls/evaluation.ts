/**
 * A call's built-in evaluation values (live-platform H.1): `status` true exactly when the
 * goal was met, `summary` a short English sentence of the call's own facts (who answered,
 * how it ended, its length), never random (decision). Worked out from the stored call
 * whenever it is shown, so the stored record (and the spec wire) stays as it was.
 */
import { withBuiltIns, type BuiltInValues } from '../assistants/evaluation.js';

/**
 * What the built-ins read of a call (a `Call` is one; named here so schema.ts, which
 * shows them, can import this file).
 */
export interface CallFacts {
  plan: { readonly kind: string } | null;
  status: string;
  answered_by: 'human' | 'machine' | 'unknown';
  duration: number;
  variables: Readonly<Record<string, unknown>>;
}

/** Statuses of a call not yet over: it has no evaluation yet. */
const LIVE_STATUSES: ReadonlySet<string> = new Set(['initiated', 'ringing', 'in-progress']);

/**
 * Whether the call met its goal: its planned outcome was `human` (H.1: false for
 * goal-incomplete, voicemail, busy, no-answer, failed; a call cut short by a campaign's
 * stop is re-planned as goal-incomplete). A record without a plan (`POST /__sim/calls`)
 * met it when it is `completed`.
 */
export function callGoalMet(call: Pick<CallFacts, 'plan' | 'status'>): boolean {
  return call.plan ? call.plan.kind === 'human' : call.status === 'completed';
}

const WHO: Readonly<Record<CallFacts['answered_by'], string>> = { human: 'The customer answered', machine: 'Voicemail answered', unknown: 'Nobody answered' };
const HOW: Readonly<Record<string, string>> = {
  completed: 'the goal was met',
  ended_by_customer: 'hung up before the goal was met',
  ended_by_assistant: 'the assistant ended the call',
  ended: 'the call ended',
  busy: 'the line was busy',
  'no-answer': 'the call rang out',
  failed: 'the call failed',
};

/** `2 min 5 s`, `45 s`. */
function length(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  return minutes === 0 ? `${rest} s` : rest === 0 ? `${minutes} min` : `${minutes} min ${rest} s`;
}

/**
 * The call's summary sentence (decision).
 * @example callSummary({ answered_by: 'human', status: 'completed', duration: 125 }) // 'The customer answered and the goal was met after 2 min 5 s.'
 */
export function callSummary(call: Pick<CallFacts, 'answered_by' | 'status' | 'duration'>): string {
  const how = HOW[call.status] ?? 'the call ended';
  const after = call.duration > 0 ? ` after ${length(call.duration)}` : '';
  return `${WHO[call.answered_by]} and ${how}${after}.`;
}

/** The built-ins of an ended call; undefined while it is still placed, ringing or talking. */
export function callBuiltIns(call: CallFacts): BuiltInValues | undefined {
  if (LIVE_STATUSES.has(call.status)) return undefined;
  return { status: callGoalMet(call), summary: callSummary(call) };
}

/**
 * Stored values (a call's `variables` or `evaluation`) with the built-ins first; as
 * stored while the call is not over.
 */
export function callValuesWithBuiltIns(call: CallFacts, stored: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const builtIns = callBuiltIns(call);
  return builtIns ? withBuiltIns(stored, builtIns) : { ...stored };
}

/**
 * The value a campaign's goal variable has in an ended call: the stored one, else the
 * built-in `status` (live-platform H.1: `goal_completion_variable: "status"`).
 */
export function goalValue(call: CallFacts, name: string): unknown {
  if (Object.prototype.hasOwnProperty.call(call.variables, name)) return call.variables[name];
  return name === 'status' ? callGoalMet(call) : undefined;
}
