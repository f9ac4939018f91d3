/**
 * The `voxsim` command once src/bin.ts has checked the Node version and turned the compile
 * cache on: it loads only on a Node that runs voxsim, so it may import what an older Node
 * cannot link.
 *
 * `voxsim serve --state-file FILE` starts reading FILE first, on a thread of Node's pool,
 * so that the read runs while the modules load (src/state/read-ahead.ts).
 */
import { serveStateFile } from './options.js';
import { readAhead } from '../state/read-ahead.js';

const argv = process.argv.slice(2);
const stateFile = serveStateFile(argv);
if (stateFile !== undefined) readAhead(stateFile);
// The main alone (not src/cli.ts, which gathers every command for tests): it loads the chosen command's module.
const { main } = await import('./main.js');
// A server runs for long: its heap is kept small (src/cli/server-heap.ts). This process's own:
// `serve()` and `main()` also run inside the user's (and the tests') processes, whose heap is theirs.
const setup = {
  serve: async () => {
    (await import('./server-heap.js')).tuneServerHeap();
  },
};
main(argv, console, setup).then(
  (code) => {
    if (code !== 0) process.exit(code);
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
