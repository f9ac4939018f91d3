/**
 * Reading scenario files: YAML or JSON (YAML 1.2 reads both), validated by the zod
 * schema; a mistake is reported with the file, the line and the path inside it.
 */
import type { Document, LineCounter } from 'yaml';
import { yaml } from './yaml.js';
import * as z from 'zod';
import { COMMON_MESSAGES } from '../core/errors.js';
import { laravelMessage, RULE_MESSAGES, tooDeepAt } from '../core/validation.js';
import { collectionTooDeep, flowTooDeep } from './depth.js';
import { EXPECTATION_SCHEMAS, firstUnknownInExpectation } from './expectations.js';
import { firstUnknownInGiven, Scenario, STEP_KINDS, STEP_SCHEMAS, type ScenarioInput, type StepKind } from './schema.js';
import { knownKeysAt, quoted, type UnknownKey, type UnknownWord } from './shapes.js';
import { didYouMean } from '../core/suggest.js';

/** A problem of a file, located in it: `file:line: path: message` (a line or path may be unknown). */
export class LocatedFileError extends Error {
  constructor(
    message: string,
    readonly file: string,
    readonly line: number | null,
    readonly path: string,
  ) {
    super(`${file}${line === null ? '' : `:${line}`}: ${path ? `${path}: ` : ''}${message}`);
  }
}

/** A scenario that cannot be read or run, located in its file. */
export class ScenarioError extends LocatedFileError {}

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
  /** The line of a path (`given.campaigns.0`, a key's own line), for errors met while running. */
  lineOf(path: (string | number)[]): number | null;
}

/** The line of a path inside a file (null: unknown, or an object given without lines). */
export type LineOf = (path: (string | number)[]) => number | null;

/** The line of a path: a key's own line (its value may start on a later one), else the line of the nearest node above it (scenario and catalog files). */
function locator(doc: Document, counter: LineCounter): LineOf {
  return (path) => {
    const map = doc.getIn(path.slice(0, -1), true);
    const { isMap, isNode, isScalar } = yaml();
    const pair = isMap(map) ? map.items.find((item) => isScalar(item.key) && item.key.value === path.at(-1)) : undefined;
    if (isScalar(pair?.key) && pair.key.range) return counter.linePos(pair.key.range[0]).line;
    for (let i = path.length; i >= 0; i--) {
      const node = doc.getIn(path.slice(0, i), true);
      if (isNode(node) && node.range) return counter.linePos(node.range[0]).line;
    }
    return null;
  };
}

/**
 * A key as a message names it: as the file writes it, from the last key of its path on
 * (`advance_to`, `outcomes.1`), where Laravel's messages would spell out the whole path in
 * words (`steps.3.advance to`), which no file contains.
 */
function attributeOf(path: readonly (string | number)[]): string {
  const last = path.findLastIndex((part) => typeof part === 'string');
  return path.slice(Math.max(last, 0)).join('.');
}

/**
 * Laravel's message for a zod issue, its attribute left as `:attribute` for the loader to
 * fill in with attributeOf. A missing key whose schema is a union (`campaign: spring` or an
 * id) is required, not invalid.
 */
export const keepAttribute = (issue: z.core.$ZodRawIssue): string =>
  issue.code === 'invalid_union' && issue.input === undefined ? RULE_MESSAGES.required : laravelMessage({ ...issue, path: [':attribute'] });

/** The value at `path` inside parsed data. */
export function valueAt(data: unknown, path: readonly (string | number)[]): unknown {
  return path.reduce<unknown>((value, key) => (typeof value === 'object' && value !== null ? (value as Record<string | number, unknown>)[key] : undefined), data);
}

/** The class of a file's located errors (ScenarioError, the catalog's CatalogFileError). */
export type LocatedError = new (message: string, file: string, line: number | null, path: string) => LocatedFileError;

/**
 * YAML or JSON text (YAML 1.2 reads both) as data with the line of each path (scenario and
 * catalog files). Text nested far deeper than a request body may be (MAX_TEXT_DEPTH) is
 * refused before the composer recurses into it: flow nesting before the text is tokenized,
 * any nesting once it is; `what` names the file in its message (`The scenario may not nest
 * more than 64 levels deep.`). Nesting between the two limits is refused by refuseTooDeep,
 * with its path.
 * @example const { data, lineOf } = parseLocatedText(text, 'catalog.yaml', 'catalog', CatalogFileError)
 */
export function parseLocatedText(text: string, file: string, what: string, Failure: LocatedError): { data: unknown; lineOf: LineOf } {
  const deepAt = flowTooDeep(text);
  if (deepAt >= 0) throw new Failure(COMMON_MESSAGES.tooDeep(what), file, text.slice(0, deepAt).split('\n').length, '');
  const { Composer, LineCounter, Parser, YAMLParseError } = yaml();
  const counter = new LineCounter();
  const tokens = [...new Parser(counter.addNewLine).parse(text)];
  const nestedAt = collectionTooDeep(tokens);
  if (nestedAt >= 0) throw new Failure(COMMON_MESSAGES.tooDeep(what), file, counter.linePos(nestedAt).line, '');
  // As yaml's parseDocument composes its tokens: the first document (compose(…, true) yields one at the latest at the end), and a second one is an error.
  const documents = new Composer({}).compose(tokens, true, text.length);
  const doc = documents.next().value as Document.Parsed;
  const second = documents.next();
  if (!second.done) doc.errors.push(new YAMLParseError([second.value.range[0], second.value.range[1]], 'MULTIPLE_DOCS', 'Source contains multiple documents; please use YAML.parseAllDocuments()'));
  const error = doc.errors[0];
  if (error) throw new Failure(error.message.split('\n')[0]!, file, counter.linePos(error.pos[0]).line, '');
  return { data: doc.toJS({ maxAliasCount: 100 }), lineOf: locator(doc, counter) };
}

/** A request body's depth limit on a file's mapping (the mapping itself is the first level), checked before a schema walks it; named by the top-level key it is under, as the file's messages name a field. */
export function refuseTooDeep({ data, file, lineOf, Failure, attribute }: FileReport): void {
  const deep = tooDeepAt(data);
  if (deep) throw new Failure(COMMON_MESSAGES.tooDeep(attribute(deep.slice(0, 1))), file, lineOf(deep), String(deep[0]));
}

/** A file's data with where its problems are reported, and how its messages word them. */
export interface FileReport {
  file: string;
  data: unknown;
  lineOf: LineOf;
  Failure: LocatedError;
  /** A field as messages name it: the scenario by its key as written (attributeOf), the catalog as the API does (`voices.0.language id`). */
  attribute: (path: readonly (string | number)[]) => string;
  /** A text that is no word of its enum gets the closest word (the scenario's); else the API's "The selected … is invalid." (the catalog's, as `PUT /__sim/catalog`). */
  suggestWords: boolean;
}

/** An unknown key at its own line with the known key closest to it; a text that is no word of its enum with the closest word. */
function unknownError(report: FileReport, found: UnknownKey | UnknownWord): LocatedFileError {
  const { file, lineOf, Failure } = report;
  if (found.kind === 'key') {
    const path = [...found.path, found.key];
    return new Failure(`The ${found.key} field is not allowed${didYouMean(found.key, found.known, quoted) || '.'}`, file, lineOf(path), path.join('.'));
  }
  return new Failure(`The selected ${report.attribute(found.path)} is invalid${didYouMean(found.word, found.known, quoted) || '.'}`, file, lineOf(found.path), found.path.join('.'));
}

/**
 * The error of the first of a schema's issues with a file's data (parsed with keepAttribute),
 * at `prefix` + the issue's path.
 * @example throw issueError(report, Scenario, parsed.error.issues)
 */
export function issueError(report: FileReport, schema: z.ZodType, issues: readonly z.core.$ZodIssue[], prefix: (string | number)[] = []): LocatedFileError {
  // A misspelt key explains the required key missing beside it: report the key first.
  let issue = issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0]!;
  let inner = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
  // A mapping with an unknown key inside a union (`run_until_idle: {max_event: 3}`): name the key, not the union.
  if (issue.code === 'invalid_union') {
    const unknownKey = issue.errors.flat().find((i) => i.code === 'unrecognized_keys');
    if (unknownKey) {
      inner = [...inner, ...unknownKey.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
      issue = unknownKey;
    }
  }
  const path = [...prefix, ...inner];
  if (issue.code === 'unrecognized_keys') return unknownError(report, { kind: 'key', path, key: issue.keys[0]!, known: knownKeysAt(schema, inner) });
  const word = valueAt(report.data, path);
  if (report.suggestWords && issue.code === 'invalid_value' && typeof word === 'string') return unknownError(report, { kind: 'word', path, word, known: issue.values.map(String) });
  return new report.Failure(issue.message.replaceAll(':attribute', report.attribute(path)), report.file, report.lineOf(path), path.join('.'));
}

/**
 * Validates a scenario given as text (YAML or JSON) or as an object.
 * @example loadScenarioText(readFileSync('scenarios/voicemail-then-human.yaml', 'utf8'), 'voicemail-then-human.yaml')
 */
export function loadScenario(source: string | ScenarioInput, file = '<scenario>'): LoadedScenario {
  let data: unknown = source;
  // An object has no lines.
  let lineOf: LineOf = () => null;
  if (typeof source === 'string') ({ data, lineOf } = parseLocatedText(source, file, 'scenario', ScenarioError));
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new ScenarioError('A scenario is a mapping with at least a name.', file, 1, '');
  const report: FileReport = { file, data, lineOf, Failure: ScenarioError, attribute: attributeOf, suggestWords: true };
  refuseTooDeep(report);
  const parsed = Scenario.safeParse(data, { error: keepAttribute });
  if (!parsed.success) throw issueError(report, Scenario, parsed.error.issues);
  const scenario = parsed.data;
  const inGiven = firstUnknownInGiven(scenario.given);
  if (inGiven) throw unknownError(report, inGiven);
  const steps = scenario.steps.map((step, index): ParsedStep => {
    const kinds = Object.keys(step).filter((k) => (STEP_KINDS as string[]).includes(k));
    if (kinds.length !== 1) {
      const near = Object.keys(step).map((key) => didYouMean(key, STEP_KINDS, quoted)).find((suggestion) => suggestion !== '');
      const message =
        kinds.length === 0
          ? `A step needs one of: ${STEP_KINDS.join(', ')}${near ?? '.'}`
          : `A step takes one action; this one has ${kinds.join(' and ')}.`;
      throw new ScenarioError(message, file, lineOf(['steps', index]), `steps.${index}`);
    }
    const kind = kinds[0] as StepKind;
    const schema = STEP_SCHEMAS[kind];
    const result = schema.safeParse(step, { error: keepAttribute });
    if (!result.success) throw issueError(report, schema, result.error.issues, ['steps', index]);
    // An expectation is compared key by key in the order the file writes them, which zod's output would change to its schema's.
    const value = (kind in EXPECTATION_SCHEMAS ? step : result.data) as Record<string, unknown>;
    const inExpectation = firstUnknownInExpectation(kind, value[kind], ['steps', index, kind]);
    if (inExpectation) throw unknownError(report, inExpectation);
    return { kind, value, line: lineOf(['steps', index]), index };
  });
  return { file, scenario, steps, lineOf };
}

/**
 * Reads a scenario given as a file path (one line ending in .yaml, .yml or .json), as
 * YAML or JSON text, or as an object (`sim.loadScenario`, `voxsim scenario run`).
 * @example const loaded = await readScenario('scenarios/voicemail-then-human.yaml')
 */
export async function readScenario(source: string | ScenarioInput): Promise<LoadedScenario> {
  if (typeof source === 'string' && !source.includes('\n') && /\.(ya?ml|json)$/i.test(source.trim())) {
    const { readFile } = await import('node:fs/promises');
    const file = source.trim();
    return loadScenario(await readFile(file, 'utf8'), file);
  }
  return loadScenario(source, '<scenario>');
}
