import { defineConfig } from 'vitest/config';

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
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    environment: 'node',
    pool: 'threads',
    // A third worker: many files wait on child servers, a browser or sockets rather than the
    // CPU, so on the 2-core machines three workers finish the suite about a quarter sooner.
    maxWorkers: 3,
    testTimeout: 20_000,
  },
});
