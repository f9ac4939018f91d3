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

/**
 * A chat's built-ins (live-platform H.1, for the conversation-ended payload): `status` true
 * when the conversation ended with the assistant answering the last user message
 * (decision), `summary` a sentence of its own facts (decision). `messages` in their order;
 * `system` messages (a human agent taking over, H.3) are not turns and are skipped.
 * @example chatBuiltIns([{ role: 'user' }, { role: 'assistant' }]) // { status: true, summary: 'The customer sent 1 message and the assistant answered the last one.' }
 */
export function chatBuiltIns(messages: readonly { readonly role: string }[]): BuiltInValues {
  let sent = 0;
  let last: string | undefined;
  for (const m of messages) {
    if (m.role === 'system') continue;
    if (m.role === 'user') sent++;
    last = m.role;
  }
  const status = sent > 0 && last === 'assistant';
  if (sent === 0) return { status, summary: 'The customer sent no message.' };
  const answer = status ? 'the assistant answered the last one' : 'the last one was not answered';
  return { status, summary: `The customer sent ${sent} message${sent === 1 ? '' : 's'} and ${answer}.` };
}
