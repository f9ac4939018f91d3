/**
 * `voxsim scenario run|list|schema`: plays scenario files (or the shipped ones by name),
 * lists the shipped scenarios, prints the scenario format's JSON Schema; `from-har` is
 * src/cli/recording.ts. Their `--help` is the main's (src/cli/main.ts). The simulator and
 * the scenario runner load when `run` plays, the schema when `schema` prints it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { didYouMean } from '../core/suggest.js';
import { formatSqlUtc } from '../core/time.js';
import { ScenarioError, loadScenario } from '../scenario/load.js';
import { parseFlags, usageError, usageMessage, type CommandName } from './help.js';

type Out = Pick<Console, 'log' | 'error'>;

/** The arguments of a scenario command with its flags checked, or the exit code of a usage error. */
function positionalsOf(command: CommandName, args: string[], out: Out): string[] | number {
  try {
    return parseFlags(command, args).positionals;
  } catch (error) {
    return usageError(out, usageMessage(error as Error, command), command);
  }
}

/** `voxsim scenario run FILE|NAME...`. */
export async function scenarioRunCommand(args: string[], out: Out): Promise<number> {
  const files = positionalsOf('scenario run', args, out);
  return typeof files === 'number' ? files : runScenarios(files, out, { progress: process.stderr.isTTY === true });
}

/** `voxsim scenario list`. */
export function scenarioListCommand(args: string[], out: Out): number {
  const none = positionalsOf('scenario list', args, out);
  return typeof none === 'number' ? none : listScenarios(out);
}

/** `voxsim scenario schema`. */
export async function scenarioSchemaCommand(args: string[], out: Out): Promise<number> {
  const none = positionalsOf('scenario schema', args, out);
  if (typeof none === 'number') return none;
  const { scenarioJsonSchema } = await import('../scenario/schema.js');
  out.log(JSON.stringify(scenarioJsonSchema(), null, 2));
  return 0;
}

/**
 * The package's own folder (where `scenarios/` is), found from this file in src/ or dist/src/, not from the cwd.
 * @example join(packageRoot(), 'scenarios')
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!(existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'scenarios')))) {
    if (dirname(dir) === dir) throw new Error('the voxsim package folder (with scenarios/) cannot be found');
    dir = dirname(dir);
  }
  return dir;
}

/**
 * The shipped scenarios: name (file name without .yaml) and file, sorted by name.
 * @example shippedScenarios().find((s) => s.name === 'voicemail-then-human')?.file
 */
export function shippedScenarios(): { name: string; file: string }[] {
  const dir = join(packageRoot(), 'scenarios');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .map((file) => ({ name: file.slice(0, -'.yaml'.length), file: join(dir, file) }));
}

/**
 * `voxsim scenario list`: each shipped scenario's name, then its title and description, indented.
 * @example listScenarios(console) // 0
 */
export function listScenarios(out: Pick<Console, 'log'>): number {
  for (const { name, file } of shippedScenarios()) {
    const { scenario } = loadScenario(readFileSync(file, 'utf8'), file);
    out.log(name);
    out.log(`    ${scenario.name}${scenario.description ? `: ${scenario.description.replace(/\s+/g, ' ').trim()}` : ''}`);
  }
  return 0;
}

/** A `scenario run` argument: an existing file, else a shipped scenario's name (`voicemail-then-human`). */
function scenarioFile(arg: string): string {
  if (existsSync(arg)) return arg;
  if (/[\\/]|\.(ya?ml|json)$/i.test(arg)) throw new Error(`no such scenario file: ${arg}`);
  const shipped = shippedScenarios();
  const found = shipped.find((s) => s.name === arg);
  if (found) return found.file;
  throw new Error(`no file and no shipped scenario is named "${arg}"${didYouMean(arg, shipped.map((s) => s.name))} (voxsim scenario list shows them)`);
}

/**
 * `voxsim scenario run FILE|NAME...`: each file (or shipped scenario) on a fresh
 * simulator; answers the exit code. With `progress` (a terminal), a line per file says
 * which one is playing.
 */
export async function runScenarios(files: string[], out: Pick<Console, 'log' | 'error'>, options: { progress?: boolean } = {}): Promise<number> {
  if (files.length === 0) return usageError(out, 'No scenario file given.', 'scenario run');
  // An argument that names no file and no shipped scenario is a usage error: nothing runs (exit 2).
  const resolved: string[] = [];
  for (const arg of files) {
    try {
      resolved.push(scenarioFile(arg));
    } catch (error) {
      return usageError(out, (error as Error).message, 'scenario run');
    }
  }
  const [{ createSimulator }, { formatStep, playScenario }] = await Promise.all([import('../simulator.js'), import('../scenario/runner.js')]);
  let failed = 0;
  for (const [index, file] of resolved.entries()) {
    if (options.progress) out.error(`[${index + 1}/${files.length}] ${files[index]}`);
    try {
      const loaded = loadScenario(readFileSync(file, 'utf8'), file);
      out.log(`${loaded.scenario.name}  (${file})`);
      const sim = createSimulator();
      const run = await playScenario(sim, loaded, { onStep: (r) => out.log(formatStep(r)), onProgress: (m) => out.error(`  ${m}`) });
      sim.dispose();
      const checks = run.steps.filter((s) => s.expectation);
      const passedChecks = checks.filter((s) => s.ok).length;
      out.log(`${run.passed ? 'PASS' : 'FAIL'}  ${passedChecks}/${checks.length} expectations, clock at ${formatSqlUtc(sim.clock.now())}\n`);
      if (!run.passed) failed++;
    } catch (error) {
      failed++;
      out.log(`ERROR  ${error instanceof ScenarioError ? error.message : `${file}: ${(error as Error).message}`}\n`);
    }
  }
  out.log(`${files.length - failed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}
