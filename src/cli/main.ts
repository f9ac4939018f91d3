/**
 * The main of the `voxsim` command line: the top-level usage, `--version`, each command's
 * `--help` and flag syntax from the declarations (src/cli/commands.ts, through
 * src/cli/help.ts), then the chosen command's module, loaded then and not before (issue
 * 45): `voxsim --version` or `voxsim sandbox --help` loads no simulator, no server and no
 * other command.
 */
import { VERSION } from '../version.js';
import { closest } from '../core/suggest.js';
import { commandHelp, COMMANDS, EXIT_USAGE, GROUPS, parseFlags, subcommand, usageError, usageMessage, usageText, wantsHelp, type CommandName, type GroupName } from './help.js';

type Out = Pick<Console, 'log' | 'error'>;
/** A command's module entry: its arguments after the command's name in, the exit code out. */
type Run = (args: string[], out: Out) => number | Promise<number>;

/** The top-level usage (`voxsim --help`), made from the declarations. */
export const USAGE = usageText(VERSION);

/** Each command's module, imported when the command runs. */
const LOAD: Record<CommandName, () => Promise<Run>> = {
  serve: async () => (await import('./serve.js')).serveCommand,
  events: async () => (await import('./events.js')).eventsCommand,
  'scenario run': async () => (await import('./scenario.js')).scenarioRunCommand,
  'scenario list': async () => (await import('./scenario.js')).scenarioListCommand,
  'scenario schema': async () => (await import('./scenario.js')).scenarioSchemaCommand,
  'scenario from-har': async () => (await import('./recording.js')).fromHarMain,
  record: async () => (await import('./recording.js')).recordMain,
  drift: async () => (await import('./recording.js')).driftMain,
  trigger: async () => (await import('./trigger.js')).triggerCommand,
  openapi: async () => (await import('./openapi.js')).openApiCommand,
  'catalog pull': async () => (await import('./catalog.js')).catalogPullCommand,
  'catalog schema': async () => (await import('./catalog.js')).catalogSchemaCommand,
  'sandbox create': async () => (await import('./sandbox.js')).sandboxCreateCommand,
  'sandbox list': async () => (await import('./sandbox.js')).sandboxListCommand,
  'sandbox delete': async () => (await import('./sandbox.js')).sandboxDeleteCommand,
};

/** The first words of the commands (`serve`, `scenario`, ...), in the order of the usage. */
const FIRST_WORDS = [...new Set(Object.keys(COMMANDS).map((name) => name.split(' ')[0]!))];

/** What the `voxsim` process itself (src/cli/launch.ts) adds to a command, once its flags are known to be good. */
export interface ProcessSetup {
  /** Before `serve` runs (its heap kept small: src/cli/server-heap.ts). */
  serve?: () => Promise<void>;
}

/**
 * Runs the command line; resolves to the exit code (a running server keeps the process alive).
 * `setup` is the process's own (launch.ts): in-process callers (tests, the user's code) leave their process as it is.
 */
export async function main(argv: string[], out: Out = console, setup: ProcessSetup = {}): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    out.error(USAGE);
    return EXIT_USAGE;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    // `voxsim help serve` is `voxsim serve --help`.
    if (first === 'help' && rest.length > 0) return main([...rest, '--help'], out, setup);
    out.log(USAGE);
    return 0;
  }
  if (first === '--version' || first === '-v') {
    out.log(VERSION);
    return 0;
  }
  let command: CommandName;
  let args: string[];
  // Own names only: `voxsim toString` is an unknown command, not an object's method.
  if (Object.hasOwn(GROUPS, first)) {
    const chosen = subcommand(first as GroupName, rest, out);
    if (typeof chosen === 'number') return chosen;
    ({ command, rest: args } = chosen);
  } else if (Object.hasOwn(COMMANDS, first) && !first.includes(' ')) {
    command = first as CommandName;
    args = rest;
  } else {
    const near = closest(first, [...FIRST_WORDS, 'help', '--help', '--version']);
    // A usage error: the message, a blank line, the usage; exit 2.
    out.error(`Unknown command "${first}".${near === undefined ? '' : ` Did you mean ${near}?`}\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  if (wantsHelp(args)) {
    out.log(commandHelp(command));
    return 0;
  }
  // An unknown flag or a missing value is refused before the command's module loads; the module checks the values.
  try {
    parseFlags(command, args);
  } catch (error) {
    return usageError(out, usageMessage(error as Error, command), command);
  }
  const [run] = await Promise.all([LOAD[command](), command === 'serve' ? setup.serve?.() : undefined]);
  return run(args, out);
}
