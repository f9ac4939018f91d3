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
    pool: 'threads',
    // A third worker: many files wait on child servers, a browser or sockets rather than the
    // CPU, so on the 2-core machines three workers finish the suite about a quarter sooner.
    maxWorkers: 3,
    testTimeout: 20_000,
    // Per-file cleanup of spawned servers (test/support/setup.ts): runs before each file in both projects.
    setupFiles: ['test/support/setup.ts'],
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
