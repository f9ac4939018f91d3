/**
 * The `yaml` package, loaded on first use: only reading a scenario or catalog file or
 * writing a scenario needs it, so importing voxsim does not pay for it (issue 29: about
 * 25 ms of a cold import). It loads synchronously, so the readers stay sync.
 * @example const doc = yaml().parseDocument('a: 1')
 */
import type * as Yaml from 'yaml';
import { lazyRequire } from '../core/lazy.js';

export const yaml = lazyRequire<typeof Yaml>('yaml');
