/**
 * Reading catalog files (`voxsim serve --catalog FILE`, issue 27): a catalog document as
 * YAML or JSON, checked as `PUT /__sim/catalog` checks a body; a mistake is reported with
 * the file, the line and the path inside it.
 */
import type * as z from 'zod';
import { laravelMessage, ruleMessage } from '../core/validation.js';
import type { Wire } from '../core/wire.js';
import { builtinCatalogDocument } from '../domain/catalog/builtin.js';
import { CatalogDocument, documentProblems } from '../domain/catalog/document.js';
import { didYouMean } from '../core/suggest.js';
import { LocatedFileError, locator } from './load.js';
import { yaml } from './yaml.js';
import { knownKeysAt, quoted } from './shapes.js';

/** A catalog file that cannot be used, located in it: `catalog.yaml:12: voices.3.language_id: The selected ...`. */
export class CatalogFileError extends LocatedFileError {}

const pathOf = (key: string) => key.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part));

/**
 * A catalog document from YAML or JSON text, checked whole against the wire's catalog it
 * replaces or extends.
 * @example loadCatalogText(readFileSync('catalog.yaml', 'utf8'), 'catalog.yaml', 'live')
 */
export function loadCatalogText(text: string, file: string, wire: Wire): CatalogDocument {
  const { LineCounter, parseDocument } = yaml();
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false });
  if (doc.errors.length > 0) {
    const error = doc.errors[0]!;
    throw new CatalogFileError(error.message.split('\n')[0]!, file, counter.linePos(error.pos[0]).line, '');
  }
  const data: unknown = doc.toJS({ maxAliasCount: 100 });
  const lineOf = locator(doc, counter);
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new CatalogFileError('A catalog is a mapping of tables (languages, voices, models, synthesizer_providers, transcriber_providers).', file, 1, '');
  const parsed = CatalogDocument.safeParse(data, { error: laravelMessage });
  if (!parsed.success) {
    // A misspelt key explains the required key missing beside it: report the key first.
    const issue: z.core.$ZodIssue = parsed.error.issues.find((i) => i.code === 'unrecognized_keys') ?? parsed.error.issues[0]!;
    const path = [...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)), ...(issue.code === 'unrecognized_keys' ? [issue.keys[0]!] : [])];
    const message =
      issue.code === 'unrecognized_keys'
        ? `The ${issue.keys[0]} field is not allowed${didYouMean(issue.keys[0]!, knownKeysAt(CatalogDocument, issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))), quoted) || '.'}`
        : issue.message.includes(':attribute')
          ? ruleMessage(issue.message, path)
          : issue.message;
    throw new CatalogFileError(message, file, lineOf(path), path.join('.'));
  }
  const problems = Object.entries(documentProblems(builtinCatalogDocument(wire), parsed.data));
  if (problems.length > 0) {
    const [key, messages] = problems[0]!;
    throw new CatalogFileError(messages[0]!, file, lineOf(pathOf(key)), key);
  }
  return parsed.data;
}

/**
 * Reads a catalog file (`.yaml`, `.yml` or `.json`; YAML 1.2 reads both).
 * @example const catalog = await readCatalogFile('catalog.yaml', 'spec')
 */
export async function readCatalogFile(file: string, wire: Wire): Promise<CatalogDocument> {
  const { readFile } = await import('node:fs/promises');
  return loadCatalogText(await readFile(file, 'utf8'), file, wire);
}
