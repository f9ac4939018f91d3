#!/usr/bin/env node
/**
 * Entry point of the `voxsim` command. It turns on Node's module compile cache before the
 * command's modules load (as command-line tools such as tsc do): each later run compiles
 * them from the cache (`voxsim serve` starts some 30 ms sooner; issue 29). The cache lives
 * where NODE_COMPILE_CACHE says, else in the system's temporary directory;
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off. The library entries leave it alone: they run
 * in the user's process.
 *
 * `voxsim serve --state-file FILE` starts reading FILE first, on a thread of Node's pool,
 * so that the read runs while the modules load (src/state/read-ahead.ts).
 */
import { enableCompileCache } from 'node:module';
import { serveStateFile } from './cli/options.js';
import { readAhead } from './state/read-ahead.js';

enableCompileCache?.();
const argv = process.argv.slice(2);
const stateFile = serveStateFile(argv);
if (stateFile !== undefined) readAhead(stateFile);
const { main } = await import('./cli.js');
main(argv).then(
  (code) => {
    if (code !== 0) process.exit(code);
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
