/**
 * The help of the `voxsim` commands and their usage errors: each command's `--help` text
 * (`COMMAND_HELP`), the one line of a bad flag with the closest option, and the
 * subcommands of a command group (`voxsim scenario run`, `voxsim catalog pull`). The
 * commands (src/cli/*.ts) and the main (src/cli.ts) share it; the top-level usage is the
 * main's.
 */
import { DEFAULT_SERVER_URL } from '../control/openapi.js';
import { closest, didYouMean } from '../core/suggest.js';
import { HELP_OPTION, type OptionHelp } from './options.js';
import { RECORDING_HELP } from './recording.js';
import { SERVE_HELP } from './serve-options.js';

/** Exit code of a usage error: an unknown command or option, a bad option value, a missing argument. */
export const EXIT_USAGE = 2;

/** Each of events' options, which the help and a usage error's suggestion list. */
const EVENTS_HELP: Record<string, OptionHelp> = {
  url: { value: 'URL', description: "the server's API base URL (default $VOXSIM_URL or http://127.0.0.1:4010/api)" },
  'admin-token': { value: 'TOKEN', description: "the server's admin token (default $VOXSIM_ADMIN_TOKEN)" },
  type: { value: 'PREFIX', description: 'only events whose type starts with PREFIX (repeatable, or comma-separated)' },
  account: { value: 'ID', description: "only this account's events" },
  since: { value: 'SEQ', description: 'replay the events after SEQ first' },
  json: { description: 'print raw JSON lines' },
  'no-color': { description: 'no colours (also NO_COLOR)' },
  ...HELP_OPTION,
};

/** The server options every sandbox command takes. */
const SANDBOX_SERVER_HELP: Record<string, OptionHelp> = {
  server: { value: 'URL', description: "the server's API base URL (default $VOXSIM_URL or http://127.0.0.1:4010/api)" },
  'admin-token': { value: 'TOKEN', description: "the server's admin token (default $VOXSIM_ADMIN_TOKEN)" },
};

/** The help of each command: usage line, what it does, its options. */
export const COMMAND_HELP = {
  serve: { usage: 'voxsim serve [options]', about: 'Starts the standalone server (API, control API, event stream and dashboard).', options: SERVE_HELP },
  events: { usage: 'voxsim events [options]', about: "Follows a server's events, one line each, until Ctrl-C or the server stops.", options: EVENTS_HELP },
  scenario: {
    usage: 'voxsim scenario run|list|schema|from-har [options]',
    about:
      'Scenario files. Commands:\n  run FILE|NAME...  play scenario files or shipped scenarios by name; exit 1 on a failure\n  list              list the shipped scenarios\n  schema            print the JSON Schema of scenario files\n  from-har FILE     write a scenario that reproduces a recorded session',
    options: HELP_OPTION,
  },
  'scenario run': {
    usage: 'voxsim scenario run FILE|NAME... [options]',
    about: 'Plays each scenario on a fresh simulator and prints its timeline; a NAME is a shipped scenario (voxsim scenario list).',
    options: HELP_OPTION,
  },
  'scenario list': { usage: 'voxsim scenario list [options]', about: 'Lists the shipped scenarios: the name to run them by, their name and description.', options: HELP_OPTION },
  openapi: {
    usage: 'voxsim openapi [options]',
    about: 'Prints the OpenAPI 3.1 document of the platform API (spec and live routes) and the control API, as a server serves it at {base_url}/__sim/openapi.json.',
    options: { server: { value: 'URL', description: `the server URL the document names (default ${DEFAULT_SERVER_URL})` }, ...HELP_OPTION },
  },
  'scenario schema': { usage: 'voxsim scenario schema [options]', about: 'Prints the JSON Schema of scenario files (scenario.schema.json).', options: HELP_OPTION },
  catalog: {
    usage: 'voxsim catalog pull|schema [options]',
    about: 'Catalog documents (docs/catalog.md). Commands:\n  pull    read the catalog routes of a running platform and write a catalog document\n  schema  print the JSON Schema of catalog documents',
    options: HELP_OPTION,
  },
  'catalog pull': {
    usage: 'voxsim catalog pull --from URL --key KEY [--out FILE] [options]',
    about: "Reads the catalog routes of a running platform (the live one, or another voxsim) with KEY and writes a catalog document that voxsim serve --catalog takes (to stdout without --out). A refusal or a network error is one line and exit 2.",
    options: {
      from: { value: 'URL', description: "the platform's API base URL, such as http://127.0.0.1:4010/api" },
      key: { value: 'KEY', description: 'an API key of an account on that platform' },
      out: { value: 'FILE', description: 'write the document to FILE instead of stdout' },
      ...HELP_OPTION,
    },
  },
  'catalog schema': { usage: 'voxsim catalog schema [options]', about: 'Prints the JSON Schema of catalog documents (catalog.schema.json).', options: HELP_OPTION },
  sandbox: {
    usage: 'voxsim sandbox create|list|delete [options]',
    about:
      "A running server's sandboxes (docs/sandboxes.md). Commands:\n  create  make a sandbox and print its key (--json: the whole sandbox)\n  list    list the server's sandboxes (the admin's)\n  delete  delete a sandbox by its id (the admin's) or by its own --key",
    options: HELP_OPTION,
  },
  'sandbox create': {
    usage: 'voxsim sandbox create [--server URL] [--admin-token TOKEN] [--seed N] [--wire spec|live] [options]',
    about: 'Makes a sandbox on a running server and prints its API key alone, for export FAMULOR_API_KEY=$(voxsim sandbox create ...). A refusal or a server it cannot reach is one line and exit 2.',
    options: {
      ...SANDBOX_SERVER_HELP,
      seed: { value: 'N', description: 'seed of its generated data, 0 to 2147483647 (default 1)' },
      wire: { value: 'spec|live', description: "wire format of its answers (default the server's)" },
      name: { value: 'NAME', description: 'a name to tell it by in the list' },
      start: { value: 'ISO-8601', description: "time its clock starts at (default the server's --start, else now)" },
      ttl: { value: 'DURATION', description: "how long it may stay idle before it is removed, 1m to 365d (default the server's --sandbox-ttl)" },
      json: { description: 'print the whole sandbox as JSON' },
      ...HELP_OPTION,
    },
  },
  'sandbox list': {
    usage: 'voxsim sandbox list [--server URL] [--admin-token TOKEN] [--json]',
    about: "Lists a running server's sandboxes, oldest first (the admin's).",
    options: { ...SANDBOX_SERVER_HELP, json: { description: 'print them as JSON' }, ...HELP_OPTION },
  },
  'sandbox delete': {
    usage: 'voxsim sandbox delete ID [--server URL] [--admin-token TOKEN] | voxsim sandbox delete --key KEY [--server URL]',
    about: 'Deletes a sandbox: by its id with the admin token, or by its own key. Its keys answer 401 from then on.',
    options: { ...SANDBOX_SERVER_HELP, key: { value: 'KEY', description: "the sandbox's own key (no id needed)" }, json: { description: 'print the answer as JSON' }, ...HELP_OPTION },
  },
  ...RECORDING_HELP,
} as const;
export type CommandName = keyof typeof COMMAND_HELP;

/**
 * The `--help` text of a command: its usage, what it does and each option on one line.
 * @example commandHelp('serve').split('\n')[0] // 'Usage: voxsim serve [options]'
 */
export function commandHelp(command: CommandName): string {
  const { usage, about, options } = COMMAND_HELP[command];
  const flags = Object.entries(options as Record<string, OptionHelp>).map(([name, o]) => [`${name === 'help' ? '-h, ' : ''}--${name}${o.value ? ` ${o.value}` : ''}`, o.description] as const);
  const width = Math.max(...flags.map(([flag]) => flag.length)) + 2;
  return [`Usage: ${usage}`, '', about, '', 'Options:', ...flags.map(([flag, description]) => `  ${flag.padEnd(width)}${description}`)].join('\n');
}

/**
 * The message of a usage error from `parseArgs`: an unknown option becomes
 * `unknown option --prot; did you mean --port?` (when one is close); others keep their text.
 * @example usageMessage(error, 'serve') // 'unknown option --prot; did you mean --port?'
 */
export function usageMessage(error: Error, command: CommandName): string {
  const unknown = (error as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /Unknown option '([^']+)'/.exec(error.message) : null;
  if (!unknown) return error.message;
  const option = unknown[1]!;
  return `unknown option ${option}${didYouMean(option.replace(/^-+/, ''), Object.keys(COMMAND_HELP[command].options), (name) => `--${name}`)}`;
}

/** Whether the arguments ask for the command's help (`--help` or `-h` anywhere). */
export const wantsHelp = (args: string[]) => args.some((arg) => arg === '--help' || arg === '-h');

/** A usage error: the message, a blank line, the command's usage; exit 2. */
export function usageError(out: Pick<Console, 'error'>, message: string, command: CommandName): number {
  out.error(`${message}\n\n${commandHelp(command)}`);
  return EXIT_USAGE;
}

/**
 * The subcommand of a command group (`voxsim catalog pull ...`) with the arguments after it,
 * or the exit code once the group's or the subcommand's help, or a usage error for a missing
 * or unknown subcommand (with the closest one), has been printed.
 */
export function subcommand<G extends 'catalog' | 'scenario' | 'sandbox', S extends string>(
  group: G,
  subs: readonly S[],
  args: string[],
  out: Pick<Console, 'log' | 'error'>,
): number | { sub: S; rest: string[]; command: `${G} ${S}` & CommandName } {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    if (sub === undefined) return usageError(out, `No ${group} command given.`, group);
    out.log(commandHelp(group));
    return 0;
  }
  if (!(subs as readonly string[]).includes(sub)) {
    const near = closest(sub, subs);
    return usageError(out, `Unknown ${group} command "${sub}".${near === undefined ? '' : ` Did you mean ${near}?`}`, group);
  }
  const command = `${group} ${sub}` as `${G} ${S}` & CommandName;
  if (wantsHelp(rest)) {
    out.log(commandHelp(command));
    return 0;
  }
  return { sub: sub as S, rest, command };
}
