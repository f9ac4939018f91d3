/**
 * The `voxsim` command line: `voxsim serve` starts the standalone server (with its event
 * stream and dashboard); `voxsim events` follows a server's event stream;
 * `voxsim scenario run` plays scenario files; `voxsim scenario schema` prints the
 * scenario format's JSON Schema; `voxsim record`, `voxsim drift` and
 * `voxsim scenario from-har` record a session with the real platform and replay it
 * (src/cli/recording.ts); `voxsim sandbox` makes, lists and deletes a server's sandboxes.
 *
 * This is the main: the top-level usage and the dispatch to each command's module under
 * src/cli/ (serve.ts, events.ts, scenario.ts, openapi.ts, catalog.ts, recording.ts; help.ts
 * their `--help` texts and usage errors). It re-exports what the commands offer to tests
 * and scripts, which import it from here.
 */
import { closest } from './core/suggest.js';
import { VERSION } from './version.js';
import { catalogCommand } from './cli/catalog.js';
import { eventsCommand } from './cli/events.js';
import { commandHelp, EXIT_USAGE, usageError, usageMessage, wantsHelp } from './cli/help.js';
import { openApiCommand } from './cli/openapi.js';
import { driftCommand, parseDriftArgs, parseRecordArgs, recordCommand } from './cli/recording.js';
import { scenarioCommand } from './cli/scenario.js';
import { sandboxCommand } from './cli/sandbox.js';
import { serveCommand } from './cli/serve.js';

export { COMMAND_HELP, commandHelp, EXIT_USAGE, usageMessage, type CommandName } from './cli/help.js';
export { followEvents, parseEventsArgs, type EventsOptions } from './cli/events.js';
export { listScenarios, packageRoot, runScenarios, shippedScenarios } from './cli/scenario.js';
export { parseServeArgs, parseSize, type ServeOptions } from './cli/serve-options.js';
export { EXIT_STARTUP, StartupError, STARTUP_MESSAGES } from './cli/serve-startup.js';
export { banner, liveLines, PROGRESS_EVERY, serve, type RunningServer } from './cli/serve.js';

export const USAGE = `voxsim ${VERSION}: a local simulator of the Voice and Chat Assistant Platform API

Usage:
  voxsim serve [--port 4010] [--host 127.0.0.1] [--seed 1] [--base-path /api] [--start ISO-8601]
               [--speed N] [--state-file FILE] [--compact-after SIZE] [--scenario FILE] [--admin-token TOKEN]
               [--wire spec|live] [--catalog FILE] [--quiet] [--stream-buffer 4mb]
               [--max-sandboxes 100] [--sandbox-ttl 24h] [--open-sandboxes] [--shard NAME]
  voxsim events [--url http://127.0.0.1:4010/api] [--admin-token TOKEN] [--type PREFIX]...
                [--account ID] [--since SEQ] [--json] [--no-color]
                                  follow a server's events, one line each (--json: raw JSON lines)
  voxsim scenario run FILE|NAME...
                                  play scenario files (or shipped scenarios by name), exit 1 on a failure
  voxsim scenario list            list the shipped scenarios
  voxsim scenario schema          print the JSON Schema of scenario files
  voxsim scenario from-har FILE.har [--wire spec|live] [--out FILE.yaml]
                                  write a scenario that reproduces a recorded session
  voxsim record --upstream URL --out FILE.har [--port 4011] [--base-path /api]
                                  record a session with the real platform through a local proxy
  voxsim drift FILE.har [--wire spec|live] [--catalog FILE] [--given SCENARIO] [--json] [--html FILE]
                                  replay a recording on a fresh simulator, report where the answers differ (exit 1)
  voxsim openapi [--server URL]   print the OpenAPI 3.1 document of the platform and control API
  voxsim catalog pull --from URL --key KEY [--out FILE]
                                  write the catalog of a running platform as a catalog document
  voxsim catalog schema           print the JSON Schema of catalog documents
  voxsim sandbox create [--server URL] [--admin-token TOKEN] [--seed N] [--wire spec|live] [--json]
                                  make a sandbox on a running server, print its key
  voxsim sandbox list [--server URL] [--admin-token TOKEN] [--json]
                                  list a server's sandboxes
  voxsim sandbox delete ID | --key KEY [--server URL] [--admin-token TOKEN]
                                  delete a sandbox
  voxsim COMMAND --help           describe a command and its options
  voxsim --help | --version

Exit codes: 0 done, 1 a failed scenario, a drift or a stopped stream, 2 a usage error, a file that cannot be used or a failed start-up check.
`;

/** `voxsim record` and `voxsim drift` (src/cli/recording.ts): their help, their flags, then the command. */
function recordingCommand(command: 'record' | 'drift', rest: string[], out: Pick<Console, 'log' | 'error'>): number | Promise<number> {
  if (wantsHelp(rest)) {
    out.log(commandHelp(command));
    return 0;
  }
  try {
    if (command === 'drift') {
      const options = parseDriftArgs(rest);
      return driftCommand(options, out);
    }
    const options = parseRecordArgs(rest);
    return recordCommand(options, out);
  } catch (error) {
    return usageError(out, usageMessage(error as Error, command), command);
  }
}

/** Each command by name: its arguments after the name in, the exit code out (the order is that of a suggestion for a mistyped one). */
const COMMANDS: Record<string, (args: string[], out: Pick<Console, 'log' | 'error'>) => number | Promise<number>> = {
  serve: serveCommand,
  events: eventsCommand,
  scenario: scenarioCommand,
  catalog: catalogCommand,
  record: (args, out) => recordingCommand('record', args, out),
  drift: (args, out) => recordingCommand('drift', args, out),
  openapi: openApiCommand,
  sandbox: (args, out) => sandboxCommand(args, out),
};

/** Runs the command line; resolves to the exit code (a running server keeps the process alive). */
export async function main(argv: string[], out: Pick<Console, 'log' | 'error'> = console): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) {
    out.error(USAGE);
    return EXIT_USAGE;
  }
  if (command === '--help' || command === '-h' || command === 'help') {
    // `voxsim help serve` is `voxsim serve --help`.
    if (command === 'help' && rest.length > 0) return main([...rest, '--help'], out);
    out.log(USAGE);
    return 0;
  }
  if (command === '--version' || command === '-v') {
    out.log(VERSION);
    return 0;
  }
  // Own names only: `voxsim toString` is an unknown command, not an object's method.
  if (Object.hasOwn(COMMANDS, command)) return COMMANDS[command]!(rest, out);
  const near = closest(command, [...Object.keys(COMMANDS), 'help', '--help', '--version']);
  // A usage error: the message, a blank line, the usage; exit 2.
  out.error(`Unknown command "${command}".${near === undefined ? '' : ` Did you mean ${near}?`}\n\n${USAGE}`);
  return EXIT_USAGE;
}
