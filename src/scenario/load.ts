/**
 * Reading scenario files: YAML or JSON (YAML 1.2 reads both), validated by the zod
 * schema; a mistake is reported with the file, the line and the path inside it.
 */
import { LineCounter, parseDocument, isNode, type Document } from 'yaml';
import { z } from 'zod';
import { issuesToFieldErrors, laravelMessage } from '../core/validation.js';
import { Scenario, STEP_KINDS, STEP_SCHEMAS, type StepKind } from './schema.js';

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

/**
 * Validates a scenario given as text (YAML or JSON) or as an object.
 * @example loadScenarioText(readFileSync('scenarios/voicemail-then-human.yaml', 'utf8'), 'voicemail-then-human.yaml')
 */
export function loadScenario(source: string | Record<string, unknown>, file = '<scenario>'): LoadedScenario {
  let data: unknown = source;
  let lineOf = locator(undefined, undefined);
  if (typeof source === 'string') {
    const counter = new LineCounter();
    const doc = parseDocument(source, { lineCounter: counter, prettyErrors: false });
    if (doc.errors.length > 0) {
      const error = doc.errors[0]!;
      throw new ScenarioError(error.message.split('\n')[0]!, file, counter.linePos(error.pos[0]).line, '');
    }
    data = doc.toJS({ maxAliasCount: 100 });
    lineOf = locator(doc, counter);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new ScenarioError('A scenario is a mapping with at least a name.', file, 1, '');
  const fail = (issues: readonly z.core.$ZodIssue[], prefix: (string | number)[] = []) => {
    const issue = issues[0]!;
    // An unknown key is reported at its own line.
    const extra = issue.code === 'unrecognized_keys' ? issue.keys.slice(0, 1) : [];
    const path = [...prefix, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)), ...extra];
    const message = Object.values(issuesToFieldErrors([{ ...issue, path: path.slice(0, path.length - extra.length) }]))[0]![0]!;
    throw new ScenarioError(message, file, lineOf(path), path.join('.'));
  };
  const parsed = Scenario.safeParse(data, { error: laravelMessage });
  if (!parsed.success) fail(parsed.error.issues);
  const scenario = parsed.data!;
  const steps = scenario.steps.map((step, index): ParsedStep => {
    const kinds = Object.keys(step).filter((k) => (STEP_KINDS as string[]).includes(k));
    if (kinds.length !== 1) {
      const message = kinds.length === 0 ? `A step needs one of: ${STEP_KINDS.join(', ')}.` : `A step takes one action; this one has ${kinds.join(' and ')}.`;
      throw new ScenarioError(message, file, lineOf(['steps', index]), `steps.${index}`);
    }
    const kind = kinds[0] as StepKind;
    const result = STEP_SCHEMAS[kind].strict().safeParse(step, { error: laravelMessage });
    if (!result.success) fail(result.error.issues, ['steps', index]);
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
