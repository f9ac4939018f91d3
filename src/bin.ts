#!/usr/bin/env node
/**
 * Entry point of the `voxsim` command. It first checks the Node version (issue 34): on a
 * Node older than package.json's `engines` it prints one line and exits 2. ES modules link
 * their static imports before any of their code runs, so this file imports statically only
 * the check (bundled into dist/src/bin.js with it) and loads the rest dynamically after it;
 * it keeps to syntax that Node 14 parses, so even there the line is printed.
 *
 * Then it turns on Node's module compile cache before the command's modules load (as
 * command-line tools such as tsc do): each later run compiles them from the cache
 * (`voxsim serve` starts some 30 ms sooner; issue 29). The cache lives where
 * NODE_COMPILE_CACHE says, else in the system's temporary directory;
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off. The library entries leave it alone: they run
 * in the user's process. The command itself is src/cli/launch.ts.
 */
import { nodeVersionProblem } from './cli/node-version.js';

/** A failed start-up check (docs/server.md, Exit codes). */
const EXIT_OLD_NODE = 2;

const problem = nodeVersionProblem(process.versions.node);
if (problem === null) {
  void import('node:module').then((nodeModule) => {
    // Present on every Node that passes the check; another runtime may lack it.
    nodeModule.enableCompileCache?.();
    return import('./cli/launch.js');
  });
} else {
  process.stderr.write(`${problem}\n`);
  process.exitCode = EXIT_OLD_NODE;
}
