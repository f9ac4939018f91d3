/**
 * Values made on their first use (issue 29: importing voxsim pays only for what every
 * path needs). `once` keeps what a build answered; `lazyRequire` loads a dependency that
 * only some paths need (luxon, libphonenumber-js, yaml, safe-regex2, faker's English
 * locale) by a synchronous require, so the callers stay synchronous.
 */
import { createRequire } from 'node:module';

/**
 * A value built on its first use and kept.
 * @example const fields = once(() => ({ name: str(255) })); fields().name
 */
export function once<T>(build: () => T): () => T {
  let value: T | undefined;
  let built = false;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value as T;
  };
}

const load = createRequire(import.meta.url);

/**
 * A package's exports, loaded when first asked for.
 * @example const luxon = lazyRequire<typeof import('luxon')>('luxon'); luxon().DateTime.utc()
 */
export function lazyRequire<T>(id: string): () => T {
  return once(() => load(id) as T);
}
