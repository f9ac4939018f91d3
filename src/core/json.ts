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
