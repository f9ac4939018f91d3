/**
 * What the command declarations (src/cli/commands.ts) make: each command's flag parser
 * (`parseFlags`), its `--help` (`commandHelp`), the top-level usage (`usageText`), the one
 * line of a bad flag with the closest option (`usageMessage`), and the subcommand of a
 * command group. The main (src/cli/main.ts) and each command (src/cli/*.ts) share it; it
 * loads no command, so `voxsim --help` and `voxsim COMMAND --help` read only this and the
 * declarations.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { closest, didYouMean } from '../core/suggest.js';
import { COMMANDS, GROUPS, type CommandName, type CommandSpec, type FlagSpec, type GroupName } from './commands.js';

export { COMMANDS, GROUPS, type CommandName, type GroupName } from './commands.js';

/** Exit code of a usage error: an unknown command or option, a bad option value, a missing argument. */
export const EXIT_USAGE = 2;

/** A command or a command group: what `--help` and a usage error describe. */
export type HelpTopic = CommandName | GroupName;

/** Every command's `--help` flag, which the parsers never see (the main answers it first). */
const HELP_FLAG = { type: 'boolean', help: 'print this help and exit' } as const satisfies FlagSpec;

/** The values a command's flags parse to: a string (its default when absent, else undefined), a switch's boolean, a repeatable flag's list. */
export type FlagValues<F> = {
  -readonly [K in keyof F]: F[K] extends { type: 'boolean' } ? boolean : F[K] extends { multiple: true } ? string[] : F[K] extends { default: string } ? string : string | undefined;
};

/** The parsed command line of `name`: its flags by their first name, and its arguments. */
export interface ParsedFlags<N extends CommandName> {
  values: FlagValues<(typeof COMMANDS)[N]['flags']>;
  positionals: string[];
}

/**
 * Parses a command's flags as its declaration says (strict: an unknown flag, a missing
 * value, an argument to a command that takes none throw); a flag given by another name
 * (`--server` for `--url`) is read under its declared name. Throws an Error whose message is the
 * usage error's line (`usageMessage` adds the closest option to an unknown one).
 * @example parseFlags('sandbox list', ['--server', 'http://h/api']).values.url // 'http://h/api'
 */
export function parseFlags<N extends CommandName>(name: N, args: readonly string[]): ParsedFlags<N> {
  const spec: CommandSpec = COMMANDS[name];
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [flag, f] of Object.entries(spec.flags)) {
    for (const each of [flag, ...(f.also ?? [])]) options[each] = { type: f.type, ...(f.multiple && { multiple: true }) };
  }
  const { values, positionals } = parseArgs({ args: [...args], options, strict: true, allowPositionals: spec.args !== undefined });
  const read: Record<string, unknown> = {};
  for (const [flag, f] of Object.entries(spec.flags)) {
    const given = [flag, ...(f.also ?? [])].filter((each) => values[each] !== undefined);
    if (given.length > 1) throw new Error(`--${given[0]} and --${given[1]} are one option; give it once`);
    const value = given.length === 1 ? values[given[0]!] : undefined;
    read[flag] = value ?? (f.type === 'boolean' ? false : f.multiple ? [] : f.default);
  }
  return { values: read as ParsedFlags<N>['values'], positionals };
}

/** A command's flags with its `--help`, in the order of its help. */
function flagsOf(name: CommandName): [string, FlagSpec][] {
  return [...Object.entries(COMMANDS[name].flags as Record<string, FlagSpec>), ['help', HELP_FLAG]];
}

/** Every name a topic's flags answer to (their other names included), without the dashes. */
export function flagNames(topic: HelpTopic): string[] {
  if (Object.hasOwn(GROUPS, topic)) return ['help'];
  return flagsOf(topic as CommandName).flatMap(([flag, f]) => [flag, ...(f.also ?? [])]);
}

/** The usage line of a command: `voxsim NAME ARGS --required VALUE [options]`. */
function usageLine(name: CommandName): string {
  const spec: CommandSpec = COMMANDS[name];
  const required = Object.entries(spec.flags).filter(([, f]) => f.required).map(([flag, f]) => `--${flag} ${f.value}`);
  return ['voxsim', name, ...(spec.args === undefined ? [] : [spec.args]), ...required, '[options]'].join(' ');
}

/** Lines of two columns, the second aligned two spaces after the widest first one. */
function columns(rows: (readonly [string, string])[], indent = '  '): string[] {
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return rows.map(([left, right]) => `${indent}${left.padEnd(width)}${right}`);
}

/**
 * The `--help` text of a command or a command group: its usage, what it does and each
 * option on one line (a group: each of its commands on one line).
 * @example commandHelp('serve').split('\n')[0] // 'Usage: voxsim serve [options]'
 */
export function commandHelp(topic: HelpTopic): string {
  const flagRows = (name: CommandName | undefined) =>
    columns(
      (name === undefined ? [['help', HELP_FLAG] as [string, FlagSpec]] : flagsOf(name)).map(([flag, f]) => {
        const others = (f.also ?? []).map((other) => `--${other}`);
        const description = others.length === 0 || f.help.includes(others[0]!) ? f.help : `${f.help} (also ${others.join(', ')})`;
        return [`${flag === 'help' ? '-h, ' : ''}--${flag}${f.value ? ` ${f.value}` : ''}`, description] as const;
      }),
    );
  if (Object.hasOwn(GROUPS, topic)) {
    const group = GROUPS[topic as GroupName];
    const subs = group.subcommands.map((sub) => {
      const spec: CommandSpec = COMMANDS[`${topic} ${sub}` as CommandName];
      return [spec.args === undefined ? sub : `${sub} ${spec.args}`, spec.summary] as const;
    });
    const about = [`${group.about} Commands:`, ...columns(subs)].join('\n');
    return [`Usage: voxsim ${topic} ${group.subcommands.join('|')} [options]`, '', about, '', 'Options:', ...flagRows(undefined)].join('\n');
  }
  const name = topic as CommandName;
  return [`Usage: ${usageLine(name)}`, '', COMMANDS[name].about, '', 'Options:', ...flagRows(name)].join('\n');
}

/** Where the top-level usage wraps a command's flags. */
const USAGE_WIDTH = 112;
/** The column of a command's summary in the top-level usage. */
const SUMMARY_COLUMN = 34;

/** A flag in the top-level usage: `[--port 4010]` (its default), `[--start ISO-8601]`, `[--quiet]`, `[--type PREFIX]...`, `--from URL` (required). */
function synopsisFlag(flag: string, f: FlagSpec): string {
  const text = `--${flag}${f.type === 'string' ? ` ${f.default ?? f.value}` : ''}`;
  return f.required ? text : `[${text}]${f.multiple ? '...' : ''}`;
}

/**
 * The top-level usage (`voxsim --help`): each command with every flag of its declaration
 * (required ones first, then the others), wrapped, and its summary.
 * @example usageText('0.1.0').split('\n')[0] // 'voxsim 0.1.0: a local simulator of the Voice and Chat Assistant Platform API'
 */
export function usageText(version: string): string {
  const lines: string[] = [];
  for (const [name, spec] of Object.entries(COMMANDS) as [CommandName, CommandSpec][]) {
    const head = `  voxsim ${name}${spec.args === undefined ? '' : ` ${spec.args}`}`;
    const flags = Object.entries(spec.flags).sort(([, a], [, b]) => Number(b.required ?? false) - Number(a.required ?? false));
    const words = flags.map(([flag, f]) => synopsisFlag(flag, f));
    const synopsis = [head];
    for (const word of words) {
      if (synopsis.at(-1)!.length + 1 + word.length > USAGE_WIDTH) synopsis.push(' '.repeat(head.length));
      synopsis[synopsis.length - 1] += ` ${word}`;
    }
    // The summary goes beside a synopsis of one short line, else under it.
    if (synopsis.length === 1 && synopsis[0]!.length < SUMMARY_COLUMN - 1) lines.push(`${synopsis[0]!.padEnd(SUMMARY_COLUMN)}${spec.summary}`);
    else lines.push(...synopsis, `${' '.repeat(SUMMARY_COLUMN)}${spec.summary}`);
  }
  return [
    `voxsim ${version}: a local simulator of the Voice and Chat Assistant Platform API`,
    '',
    'Usage:',
    ...lines,
    `${'  voxsim COMMAND --help'.padEnd(SUMMARY_COLUMN)}describe a command and its options`,
    '  voxsim --help | --version',
    '',
    'Exit codes: 0 done, 1 a failed scenario, a drift, a stopped stream or a receiver that failed a trigger, 2 a usage error, a file that cannot be used or a failed start-up check.',
    '',
  ].join('\n');
}

/**
 * The message of a usage error from `parseFlags`: an unknown option becomes
 * `unknown option --prot; did you mean --port?` (when one is close); others keep their text.
 * @example usageMessage(error, 'serve') // 'unknown option --prot; did you mean --port?'
 */
export function usageMessage(error: Error, topic: HelpTopic): string {
  const unknown = (error as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /Unknown option '([^']+)'/.exec(error.message) : null;
  if (!unknown) return error.message;
  const option = unknown[1]!;
  return `unknown option ${option}${didYouMean(option.replace(/^-+/, ''), flagNames(topic), (name) => `--${name}`)}`;
}

/** Whether the arguments ask for the command's help (`--help` or `-h` anywhere). */
export const wantsHelp = (args: readonly string[]) => args.some((arg) => arg === '--help' || arg === '-h');

/** A usage error: the message, a blank line, the command's help; exit 2. */
export function usageError(out: Pick<Console, 'error'>, message: string, topic: HelpTopic): number {
  out.error(`${message}\n\n${commandHelp(topic)}`);
  return EXIT_USAGE;
}

/**
 * The command a group's arguments name (`voxsim catalog pull ...` is `catalog pull`) with
 * the arguments after it, or the exit code once the group's help, or a usage error for a
 * missing or unknown subcommand (with the closest one), has been printed.
 */
export function subcommand(group: GroupName, args: readonly string[], out: Pick<Console, 'log' | 'error'>): number | { command: CommandName; rest: string[] } {
  const [sub, ...rest] = args;
  const subs: readonly string[] = GROUPS[group].subcommands;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    if (sub === undefined) return usageError(out, `No ${group} command given.`, group);
    out.log(commandHelp(group));
    return 0;
  }
  if (!subs.includes(sub)) {
    const near = closest(sub, subs);
    return usageError(out, `Unknown ${group} command "${sub}".${near === undefined ? '' : ` Did you mean ${near}?`}`, group);
  }
  return { command: `${group} ${sub}` as CommandName, rest };
}
