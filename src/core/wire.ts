/**
 * The wire format (live-platform Rule 5): `spec` encodes every body as the
 * specification does; `live` as the live platform serves it (its sections D and E).
 * Serialisers and error factories decide by it; routes never branch on it.
 */
export const WIRES = ['spec', 'live'] as const;
export type Wire = (typeof WIRES)[number];

/** A text in both spellings: the specification's and the live platform's (live-platform D.5). */
export interface Texts {
  readonly spec: string;
  readonly live: string;
}

/**
 * A text with its live spelling.
 * @example texts('Lead updated successfully.', 'Lead successfully updated')
 */
export function texts(spec: string, live: string): Texts {
  return { spec, live };
}

/**
 * The text of the wire: a plain string is the same on both.
 * @example say('live', texts('Lead updated successfully.', 'Lead successfully updated')) // 'Lead successfully updated'
 */
export function say(wire: Wire, text: string | Texts): string {
  return typeof text === 'string' ? text : text[wire];
}
