/**
 * The `yaml` package, loaded on first use: only reading a scenario or catalog file or
 * writing a scenario needs it, so importing voxsim does not pay for it (issue 29: about
 * 25 ms of a cold import). `require` loads it synchronously, so the readers stay sync.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

let loaded: typeof Yaml | undefined;

/**
 * The yaml package's exports.
 * @example const doc = yaml().parseDocument('a: 1')
 */
export function yaml(): typeof Yaml {
  loaded ??= createRequire(import.meta.url)('yaml') as typeof Yaml;
  return loaded;
}
