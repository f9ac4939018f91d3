/**
 * Keeps the young generation of a long-running `voxsim serve` small (issue 44: 10,000
 * sandboxes touched in turn, at most 100 loaded, in under 300 MB of resident memory).
 *
 * V8 grows its young generation (the new space, where objects are made) by doubling it
 * while much of what it holds survives a collection, up to a cap it sets from the
 * machine's memory: 128 MB of new space on a machine of 24 GB, for Node 24. A server
 * that loads and unloads sandboxes keeps most of what it makes for a while, so it reached
 * that cap, and kept it: the 10,000-sandbox run peaked at 387 MB of resident memory with
 * a live heap of 40 MB. The cap is fixed when the process starts (`--max-semi-space-size`),
 * but the growth factor is read at each growth: once the new space has reached
 * `YOUNG_GENERATION_MB`, this sets it to 1 (no more growth), and back to V8's 2 if the
 * space shrinks below. The same run then peaks under 300 MB, and the dialer's campaigns
 * are no slower (docs/performance.md).
 *
 * Only the `voxsim serve` process does this: the library runs in the user's own process,
 * whose heap is theirs to tune. A `--max-semi-space-size` given to Node (on its command
 * line or in NODE_OPTIONS) is left to do its work.
 */
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** The new space (both halves) at which growth stops. */
export const YOUNG_GENERATION_MB = 16;
const MB = 1024 * 1024;
/** V8's own growth factor (`--semi-space-growth-factor`). */
const V8_GROWTH = 2;

/** Whether Node was given a young-generation size of the operator's own. */
export function youngGenerationSetByNode(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  const given = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)];
  return given.some((arg) => /^--(max|min)[-_]semi[-_]space[-_]size\b/.test(arg) || /^--semi[-_]space[-_]growth[-_]factor\b/.test(arg));
}

/** Starts watching the young generation after each of its collections; returns a function that stops it. */
export function capYoungGeneration(limitMb = YOUNG_GENERATION_MB): () => void {
  if (youngGenerationSetByNode(process.execArgv, process.env.NODE_OPTIONS)) return () => {};
  let growth = V8_GROWTH;
  const check = () => {
    const space = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    if (space === undefined) return;
    const wanted = space.space_size >= limitMb * MB ? 1 : V8_GROWTH;
    if (wanted !== growth) {
      growth = wanted;
      setFlagsFromString(`--semi-space-growth-factor=${wanted}`);
    }
  };
  // The new space grows only in a young-generation collection: its observer entry comes just after.
  const observer = new PerformanceObserver((list) => {
    if (list.getEntries().some((entry) => (entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR)) check();
  });
  observer.observe({ entryTypes: ['gc'] });
  check();
  return () => observer.disconnect();
}
