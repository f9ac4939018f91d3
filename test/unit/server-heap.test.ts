/**
 * The heap tuning of `voxsim serve` (src/cli/server-heap.ts, issue 44): in a process of its
 * own (it sets V8 flags), run on the source through tsx.
 */
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { oldGenerationSetByNode, youngGenerationSetByNode } from '../../src/cli/server-heap.js';

const MODULE = new URL('../../src/cli/server-heap.ts', import.meta.url).pathname;
const CHILD = new URL('../support/server-heap-child.mjs', import.meta.url).pathname;

function largestNewSpace(limitMb: number): Promise<number> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ['--no-warnings', '--import', 'tsx', CHILD, MODULE, String(limitMb)], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } }, (error, out, err) =>
      error ? reject(new Error(`${error.message}: ${err}`)) : resolve((JSON.parse(out) as { max_mb: number }).max_mb),
    ),
  );
}

describe('the heap of a server', () => {
  it('stops the young generation growing near its cap, where V8 alone grows it further', async () => {
    // Two processes side by side: each measures its own heap.
    const [capped, free] = await Promise.all([largestNewSpace(4), largestNewSpace(0)]);
    // The check follows the collections (their observer entries come after them): it may pass the cap by a doubling or
    // two (10-20 MB seen for a cap of 4, against 64-128 MB for V8 alone, on a 24 GB machine).
    expect(capped).toBeLessThanOrEqual(32);
    expect(free).toBeGreaterThanOrEqual(capped * 2);
  });

  it('leaves sizes given to Node alone, on its command line or in NODE_OPTIONS', () => {
    expect(youngGenerationSetByNode(['--max-semi-space-size=32'], undefined)).toBe(true);
    expect(youngGenerationSetByNode([], '--max_semi_space_size=8 --enable-source-maps')).toBe(true);
    expect(youngGenerationSetByNode(['--min-semi-space-size', '4'], '')).toBe(true);
    expect(youngGenerationSetByNode([], '--semi-space-growth-factor=1')).toBe(true);
    expect(youngGenerationSetByNode(['--enable-source-maps'], '--max-old-space-size=4096')).toBe(false);
    expect(youngGenerationSetByNode([], undefined)).toBe(false);
    expect(oldGenerationSetByNode([], '--heap-growing-percent=50')).toBe(true);
    expect(oldGenerationSetByNode(['--heap_growing_percent=50'], undefined)).toBe(true);
    expect(oldGenerationSetByNode(['--max-semi-space-size=32'], '--max-old-space-size=4096')).toBe(false);
  });
});
