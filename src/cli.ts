/**
 * The `voxsim` command line: `voxsim serve` starts the standalone server (with its event
 * stream and dashboard); `voxsim events` follows a server's event stream;
 * `voxsim scenario run` plays scenario files; `voxsim scenario schema` prints the
 * scenario format's JSON Schema; `voxsim record`, `voxsim drift` and
 * `voxsim scenario from-har` record a session with the real platform and replay it
 * (src/cli/recording.ts); `voxsim sandbox` makes, lists and deletes a server's sandboxes.
 *
 * What the commands offer to tests and scripts, which import it from here. The command
 * itself does not: src/cli/launch.ts runs the main (src/cli/main.ts), which loads only
 * the module of the command it runs. Every command's flags and help are declared once in
 * src/cli/commands.ts.
 */
export { main, USAGE } from './cli/main.js';
export { COMMANDS, commandHelp, EXIT_USAGE, parseFlags, usageMessage, type CommandName } from './cli/help.js';
export { followEvents, parseEventsArgs, type EventsOptions } from './cli/events.js';
export { listScenarios, packageRoot, runScenarios, shippedScenarios } from './cli/scenario.js';
export { parseServeArgs, parseSize, type ServeOptions } from './cli/serve-options.js';
export { EXIT_STARTUP, StartupError, STARTUP_MESSAGES } from './cli/serve-startup.js';
export { banner, liveLines, PROGRESS_EVERY, serve, type RunningServer } from './cli/serve.js';
