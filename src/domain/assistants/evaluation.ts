/**
 * The built-in evaluation variables every assistant has besides its `post_call_schema`
 * (live-platform H.1): `status` and `summary`, listed first. A schema item of the same
 * name replaces the built-in's type and description; a stored value of the same name (an
 * outcome script's, a reply rule's) replaces the built-in's value. Calls and chats each
 * work out their own values; this file only orders and describes them.
 */

/** One item of an evaluation's schema (spec: Post-call schema item). */
export interface EvaluationItem {
  readonly name: string;
  readonly type: string;
  readonly description: string;
}

/** live-platform H.1: the two built-ins as the reference describes them. */
export const BUILT_IN_EVALUATION: readonly EvaluationItem[] = Object.freeze([
  Object.freeze({ name: 'status', type: 'bool', description: 'Whether the call objective was achieved or not.' }),
  Object.freeze({ name: 'summary', type: 'string', description: 'Call summary in a few words.' }),
]);

/** The built-ins' values of one call or chat. */
export interface BuiltInValues {
  /** Whether the goal was met. */
  status: boolean;
  /** A short English sentence made of the call's or chat's own facts. */
  summary: string;
}

/**
 * Values with the built-ins first (live-platform H.1): `status`, `summary`, then the
 * stored values in their order. A stored `status` or `summary` keeps the first places
 * with its own value (an object keeps a key where it was first set).
 * @example withBuiltIns({ booked: true, status: false }, { status: true, summary: 'x' }) // { status: false, summary: 'x', booked: true }
 */
export function withBuiltIns(stored: Readonly<Record<string, unknown>>, values: BuiltInValues): Record<string, unknown> {
  return { status: values.status, summary: values.summary, ...stored };
}

/**
 * The schema an evaluation's items are described by: the assistant's items, then the
 * built-ins (a lookup by name finds the assistant's item first, so it replaces the
 * built-in's type and description).
 */
export function evaluationSchema(schema: readonly EvaluationItem[]): readonly EvaluationItem[] {
  return schema.length === 0 ? BUILT_IN_EVALUATION : [...schema, ...BUILT_IN_EVALUATION];
}

/**
 * Whether `name` may be a campaign's `goal_completion_variable` for this schema: a bool
 * item, or `status` without an item of its own (live-platform H.1).
 */
export function isGoalVariable(schema: readonly EvaluationItem[], name: string): boolean {
  const item = schema.find((s) => s.name === name);
  return item ? item.type === 'bool' : name === 'status';
}
