/**
 * Reading scenario files: YAML or JSON (YAML 1.2 reads both), validated by the zod
 * schema; a mistake is reported with the file, the line and the path inside it.
 */
import { LineCounter, parseDocument, isMap, isNode, isScalar, type Document } from 'yaml';
import { z } from 'zod';
import { issuesToFieldErrors, laravelMessage } from '../core/validation.js';
import { Scenario, STEP_KINDS, STEP_SCHEMAS, type StepKind } from './schema.js';
import { closest } from './suggest.js';

/** A scenario that cannot be read or run, located in its file. */
export class ScenarioError extends Error {
  constructor(
    message: string,
    readonly file: string,
    readonly line: number | null,
    readonly path: string,
  ) {
    super(`${file}${line === null ? '' : `:${line}`}: ${path ? `${path}: ` : ''}${message}`);
  }
}

export interface ParsedStep {
  kind: StepKind;
  value: Record<string, unknown>;
  line: number | null;
  index: number;
}

export interface LoadedScenario {
  file: string;
  scenario: Scenario;
  steps: ParsedStep[];
  /** The line of a path (`given.campaigns.0`), for errors met while running. */
  lineOf(path: (string | number)[]): number | null;
}

/**
 * `; did you mean \`word\`?` when a known word is close to `key`, else nothing.
 * @example didYouMean('outcome', ['name', 'outcomes']) // '; did you mean `outcomes`?'
 */
export function didYouMean(key: string, known: Iterable<string>): string {
  const near = closest(key, known);
  return near === undefined ? '' : `; did you mean \`${near}\`?`;
}

type Def = { type: string; shape?: Record<string, z.ZodType>; innerType?: z.ZodType; element?: z.ZodType; options?: z.ZodType[]; left?: z.ZodType; right?: z.ZodType; in?: z.ZodType; valueType?: z.ZodType };
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The schemas a value at `path` inside `schema` may have to match (unions give several). */
function schemasAt(schema: z.ZodType, path: (string | number)[]): z.ZodType[] {
  const def = defOf(schema);
  if (def.innerType) return schemasAt(def.innerType, path);
  if (def.type === 'pipe' && def.in) return schemasAt(def.in, path);
  if (def.options) return def.options.flatMap((option) => schemasAt(option, path));
  if (def.left && def.right) return [...schemasAt(def.left, path), ...schemasAt(def.right, path)];
  if (path.length === 0) return [schema];
  const [head, ...rest] = path;
  if (def.type === 'array' && def.element && typeof head === 'number') return schemasAt(def.element, rest);
  if (def.type === 'object' && def.shape && typeof head === 'string' && def.shape[head]) return schemasAt(def.shape[head], rest);
  if (def.type === 'record' && def.valueType) return schemasAt(def.valueType, rest);
  return [];
}

/** The keys the mapping at `path` inside `schema` knows. */
function knownKeysAt(schema: z.ZodType, path: (string | number)[]): string[] {
  return [...new Set(schemasAt(schema, path).flatMap((s) => Object.keys(defOf(s).shape ?? {})))];
}

function locator(doc: Document | undefined, counter: LineCounter | undefined) {
  return (path: (string | number)[]): number | null => {
    if (!doc || !counter) return null;
    for (let i = path.length; i >= 0; i--) {
      const node = doc.getIn(path.slice(0, i), true);
      if (isNode(node) && node.range) return counter.linePos(node.range[0]).line;
    }
    return null;
  };
}

/** The line of a mapping's key itself (its value may start on a later line). */
function keyLocator(doc: Document, counter: LineCounter) {
  return (path: (string | number)[]): number | null => {
    const map = doc.getIn(path.slice(0, -1), true);
    if (!isMap(map)) return null;
    const pair = map.items.find((item) => isScalar(item.key) && item.key.value === path.at(-1));
    return isScalar(pair?.key) && pair.key.range ? counter.linePos(pair.key.range[0]).line : null;
  };
}

/**
 * Validates a scenario given as text (YAML or JSON) or as an object.
 * @example loadScenarioText(readFileSync('scenarios/voicemail-then-human.yaml', 'utf8'), 'voicemail-then-human.yaml')
 */
export function loadScenario(source: string | Record<string, unknown>, file = '<scenario>'): LoadedScenario {
  let data: unknown = source;
  let lineOf = locator(undefined, undefined);
  let keyLineOf = (_path: (string | number)[]): number | null => null;
  if (typeof source === 'string') {
    const counter = new LineCounter();
    const doc = parseDocument(source, { lineCounter: counter, prettyErrors: false });
    if (doc.errors.length > 0) {
      const error = doc.errors[0]!;
      throw new ScenarioError(error.message.split('\n')[0]!, file, counter.linePos(error.pos[0]).line, '');
    }
    data = doc.toJS({ maxAliasCount: 100 });
    lineOf = locator(doc, counter);
    keyLineOf = keyLocator(doc, counter);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new ScenarioError('A scenario is a mapping with at least a name.', file, 1, '');
  const fail = (schema: z.ZodType, issues: readonly z.core.$ZodIssue[], prefix: (string | number)[] = []) => {
    // A misspelt key explains the required key missing beside it: report the key first.
    let issue = issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0]!;
    let inner = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
    // A mapping with an unknown key inside a union (`run_until_idle: {max_event: 3}`): name the key, not the union.
    if (issue.code === 'invalid_union') {
      const unknown = issue.errors.flat().find((i) => i.code === 'unrecognized_keys');
      if (unknown) {
        inner = [...inner, ...unknown.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
        issue = unknown;
      }
    }
    if (issue.code === 'unrecognized_keys') {
      // An unknown key is reported at its own line, with the known key it is closest to.
      const key = issue.keys[0]!;
      const path = [...prefix, ...inner, key];
      const message = `The ${key} field is not allowed${didYouMean(key, knownKeysAt(schema, inner)) || '.'}`;
      throw new ScenarioError(message, file, keyLineOf(path) ?? lineOf(path), path.join('.'));
    }
    const path = [...prefix, ...inner];
    const message = Object.values(issuesToFieldErrors([{ ...issue, path }]))[0]![0]!;
    throw new ScenarioError(message, file, lineOf(path), path.join('.'));
  };
  const parsed = Scenario.safeParse(data, { error: laravelMessage });
  if (!parsed.success) fail(Scenario, parsed.error.issues);
  const scenario = parsed.data!;
  const steps = scenario.steps.map((step, index): ParsedStep => {
    const kinds = Object.keys(step).filter((k) => (STEP_KINDS as string[]).includes(k));
    if (kinds.length !== 1) {
      const near = Object.keys(step).map((key) => closest(key, STEP_KINDS)).find((kind) => kind !== undefined);
      const message =
        kinds.length === 0
          ? `A step needs one of: ${STEP_KINDS.join(', ')}${near === undefined ? '.' : `; did you mean \`${near}\`?`}`
          : `A step takes one action; this one has ${kinds.join(' and ')}.`;
      throw new ScenarioError(message, file, lineOf(['steps', index]), `steps.${index}`);
    }
    const kind = kinds[0] as StepKind;
    const schema = STEP_SCHEMAS[kind].strict();
    const result = schema.safeParse(step, { error: laravelMessage });
    if (!result.success) fail(schema, result.error.issues, ['steps', index]);
    return { kind, value: result.data as Record<string, unknown>, line: lineOf(['steps', index]), index };
  });
  return { file, scenario, steps, lineOf };
}

/**
 * Reads a scenario given as a file path (one line ending in .yaml, .yml or .json), as
 * YAML or JSON text, or as an object (`sim.loadScenario`, `voxsim scenario run`).
 * @example const loaded = await readScenario('scenarios/voicemail-then-human.yaml')
 */
export async function readScenario(source: string | Record<string, unknown>): Promise<LoadedScenario> {
  if (typeof source === 'string' && !source.includes('\n') && /\.(ya?ml|json)$/i.test(source.trim())) {
    const { readFile } = await import('node:fs/promises');
    const file = source.trim();
    return loadScenario(await readFile(file, 'utf8'), file);
  }
  return loadScenario(source, '<scenario>');
}
