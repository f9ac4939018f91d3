/**
 * Copies of stored JSON values for answers: a serialiser hands out copies so a caller of
 * `sim.handle` that changes an answer cannot change the state. Stored values are JSON
 * (request bodies, scripted outcomes), which a plain walk copies several times faster
 * than `structuredClone` (which serialises every value through the structured-clone wire).
 */

/**
 * A deep copy of a JSON value (objects, arrays, primitives; anything else goes through
 * `structuredClone`).
 * @example copyJson({ a: [1, { b: 2 }] }) // { a: [1, { b: 2 }] }, sharing nothing
 */
export function copyJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copyJson) as T;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const copy = copyJson((value as Record<string, unknown>)[key]);
    // A `__proto__` key is data (JSON.parse makes it an own property): assigning it would set the prototype.
    if (key === '__proto__') Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
    else out[key] = copy;
  }
  return out as T;
}

/**
 * A JSON value given as its text: a part of an answer the core has encoded already (a
 * record's kept text, `Table.text`), spliced as it is by `encodeJson` and `answerText`.
 * Only requests that ask for text (`SimRequest.encoded`, the adapters) get one.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * `JSON.stringify` of JSON data (plain objects, arrays, primitives) in which `JsonText`
 * parts stand for themselves. A walk in JavaScript: for small envelopes around encoded
 * parts (a page around its rows' texts), not for whole bodies.
 * @example encodeJson({ data: [new JsonText('{"id":1}')], total: 1 }) // '{"data":[{"id":1}],"total":1}'
 */
export function encodeJson(value: unknown): string {
  if (value instanceof JsonText) return value.text;
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + (encodeMember(value[i]) ?? 'null');
    return `${out}]`;
  }
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  let out = '{';
  for (const key of Object.keys(value)) {
    const member = encodeMember((value as Record<string, unknown>)[key]);
    if (member !== undefined) out += `${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:${member}`;
  }
  return `${out}}`;
}

/** A member's text, `undefined` for what `JSON.stringify` leaves out of an object (and writes as `null` in an array). */
function encodeMember(value: unknown): string | undefined {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol' ? undefined : encodeJson(value);
}

/**
 * The JSON text of an answer's body: its text when the core encoded it already
 * (`JsonText`), else `JSON.stringify` of it.
 * @example answerText(response.body)
 */
export function answerText(body: unknown): string {
  return body instanceof JsonText ? body.text : JSON.stringify(body);
}
