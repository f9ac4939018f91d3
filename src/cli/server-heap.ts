/**
 * The heap of a long-running `voxsim serve` (issue 44: 10,000 sandboxes touched in turn, at
 * most 100 loaded, in under 300 MB of resident memory).
 *
 * With V8's defaults that run peaked at 387 MB with a live heap of 40 MB, in two parts:
 * - **The young generation** (the new space, where objects are made) doubles while much of
 *   what it holds survives its collections, up to a cap V8 sets from the machine's memory
 *   (128 MB on a 24 GB machine, Node 24). A server that loads and unloads sandboxes keeps
 *   most of what it makes for a while, so it reached that cap. The cap is fixed when the
 *   process starts (`--max-semi-space-size`), but the growth factor is read at each growth:
 *   after each young collection, growth is turned off (a factor of 1) once the space has
 *   reached `YOUNG_GENERATION_MB`, and on again if V8 shrinks it below.
 * - **The old generation** may grow to up to 4 times what a full collection left before the
 *   next one (V8 weighs the collector's speed against the program's): 130 MB for 40 MB live.
 *   `OLD_GENERATION_GROWTH_PERCENT` (read at each full collection) makes that twice, from
 *   `OLD_GENERATION_AFTER_MS` on (a start to its first answer took the same time as with V8's
 *   defaults: medians of 15 alternating starts, 345 against 346 ms and 358 against 352 ms).
 *
 * The same run then peaks near 220 MB; the dialer bench's campaigns are no slower
 * (docs/performance.md). Only the `voxsim serve` process does this (src/cli/launch.ts): the
 * library runs in the user's own process, whose heap is theirs to tune. Sizes given to Node
 * (on its command line or in NODE_OPTIONS) are left to do their work.
 */
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { afterRealDelay } from '../core/clock.js';

/** The new space (both halves) at which growth stops. */
export const YOUNG_GENERATION_MB = 16;
/** The old generation's room before its next collection, in percent of what the last one left. */
export const OLD_GENERATION_GROWTH_PERCENT = 100;
/** How long after the process starts its old generation's room is set (real time). */
export const OLD_GENERATION_AFTER_MS = 2000;
const MB = 1024 * 1024;
/** V8's own growth factor of the young generation (`--semi-space-growth-factor`). */
const V8_GROWTH = 2;

const YOUNG_FLAGS = /^--(?:(?:max|min)[-_]semi[-_]space[-_]size|semi[-_]space[-_]growth[-_]factor)\b/;
const OLD_FLAGS = /^--heap[-_]growing[-_]percent\b/;

/** Flags Node was given, on its command line and in NODE_OPTIONS. */
function nodeFlags(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  return [...execArgv, ...(nodeOptions ?? '').split(/\s+/)];
}

/** Whether Node was given a young-generation size or growth of the operator's own. */
export function youngGenerationSetByNode(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  return nodeFlags(execArgv, nodeOptions).some((arg) => YOUNG_FLAGS.test(arg));
}

/** Whether Node was given the old generation's growth (`--heap-growing-percent`). */
export function oldGenerationSetByNode(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  return nodeFlags(execArgv, nodeOptions).some((arg) => OLD_FLAGS.test(arg));
}

/** Tunes this process's heap for a server; returns a function that stops watching the young generation. */
export function tuneServerHeap(youngMb = YOUNG_GENERATION_MB, oldPercent = OLD_GENERATION_GROWTH_PERCENT): () => void {
  const { execArgv } = process;
  const options = process.env.NODE_OPTIONS;
  // After the start-up: loading the modules and the state grows the old generation quickly, which V8's own
  // growth serves best (with the tighter room from the first moment the start took some 30 ms longer).
  if (!oldGenerationSetByNode(execArgv, options)) afterRealDelay(OLD_GENERATION_AFTER_MS, () => setFlagsFromString(`--heap-growing-percent=${oldPercent}`));
  if (youngGenerationSetByNode(execArgv, options)) return () => {};
  let growth = V8_GROWTH;
  const check = () => {
    const space = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    if (space === undefined) return;
    const wanted = space.space_size >= youngMb * MB ? 1 : V8_GROWTH;
    if (wanted !== growth) {
      growth = wanted;
      setFlagsFromString(`--semi-space-growth-factor=${wanted}`);
    }
  };
  // The new space grows only in a young-generation collection: its observer entry comes after it.
  const observer = new PerformanceObserver((list) => {
    if (list.getEntries().some((entry) => (entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR)) check();
  });
  observer.observe({ entryTypes: ['gc'] });
  check();
  return () => {
    observer.disconnect();
    if (growth !== V8_GROWTH) setFlagsFromString(`--semi-space-growth-factor=${V8_GROWTH}`);
  };
}
