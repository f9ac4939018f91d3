import { defineConfig } from 'vitest/config';

/**
 * Files that change what other files in the same worker would see: msw 2 swapped in for
 * msw by `vi.mock`, MSW servers of their own per test (the vitest fixture), node:fs mocked
 * under the HAR writer. They run
 * isolated, each in a fresh module graph.
 */
const ISOLATED = [
  'test/contract/msw2-part*.test.ts',
  'test/contract/msw2-example.test.ts',
  'test/vitest-fixture.test.ts',
  'examples/vitest.test.ts',
  // Counts the bytes the HAR writer writes through a vi.mock of node:fs: the writer must load with the mock.
  'test/recording/har-append.test.ts',
  // Watches the atomic write's calls (temp, flush, rename, directory flush) through a vi.mock of node:fs.
  'test/state/atomic.test.ts',
];

export default defineConfig({
  // The README's examples import the package by name; in this repository that is the source.
  resolve: {
    alias: [
      { find: /^voxsim\/vitest$/, replacement: new URL('./src/adapters/vitest.ts', import.meta.url).pathname },
      { find: /^voxsim\/express$/, replacement: new URL('./src/adapters/express.ts', import.meta.url).pathname },
      { find: /^voxsim\/msw$/, replacement: new URL('./src/adapters/msw.ts', import.meta.url).pathname },
      { find: /^voxsim$/, replacement: new URL('./src/index.ts', import.meta.url).pathname },
    ],
  },
  test: {
    environment: 'node',
    // Child processes, not worker threads: many files spawn `voxsim` (about 90 children a run),
    // and a spawn from the one process holding every worker thread's heap costs tens of ms of
    // CPU each; the threads also fought over that process. On the 2-core machines the suite
    // took 222 s with threads x 3, 186-190 s with forks x 3 and 170 s with forks x 2: the
    // suite is CPU-bound (the files that wait on children still make them busy), so a third
    // worker only adds contention. forks need the deep-body texts written out, not stringified
    // (a child's main thread has a smaller stack than a worker thread's).
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 20_000,
    // Per-file cleanup of spawned servers (test/support/setup.ts): runs before each file in both projects.
    setupFiles: ['test/support/setup.ts'],
    // Temporary directories on tmpfs where there is one (test/support/global-tmp.ts).
    globalSetup: ['test/support/global-tmp.ts'],
    projects: [
      {
        // Every other file shares its worker's module graph: importing the simulator once
        // per worker instead of once per file takes about a third off the suite's CPU time.
        // Each file builds its own simulators, servers and MSW servers, and closes them.
        test: { name: 'shared', include: ['test/**/*.test.ts', 'examples/**/*.test.ts'], exclude: ISOLATED, isolate: false },
      },
      { test: { name: 'isolated', include: ISOLATED, isolate: true } },
    ],
  },
});
