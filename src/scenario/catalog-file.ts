/**
 * Reading catalog files (`voxsim serve --catalog FILE`, issue 27): a catalog document as
 * YAML or JSON, checked as `PUT /__sim/catalog` checks a body; a mistake is reported with
 * the file, the line and the path inside it, as the scenario loader reports its own.
 */
import { attributeName } from '../core/validation.js';
import type { Wire } from '../core/wire.js';
import { catalogDocumentErrors, firstError } from '../domain/catalog/check.js';
import { CatalogDocument } from '../domain/catalog/document.js';
import { issueError, keepAttribute, LocatedFileError, parseLocatedText, refuseTooDeep, type FileReport } from './load.js';

/** A catalog file that cannot be used, located in it: `catalog.yaml:12: voices.3.language_id: The selected ...`. */
export class CatalogFileError extends LocatedFileError {}

/**
 * A catalog document from YAML or JSON text, checked whole against the wire's catalog it
 * replaces or extends.
 * @example loadCatalogText(readFileSync('catalog.yaml', 'utf8'), 'catalog.yaml', 'live')
 */
export function loadCatalogText(text: string, file: string, wire: Wire): CatalogDocument {
  const { data, lineOf } = parseLocatedText(text, file, 'catalog', CatalogFileError);
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new CatalogFileError('A catalog is a mapping of tables (languages, voices, models, synthesizer_providers, transcriber_providers).', file, 1, '');
  // Worded as PUT /__sim/catalog words a body's problems (its fields named as the API names them, no word suggested for an enum).
  const report: FileReport = { file, data, lineOf, Failure: CatalogFileError, attribute: attributeName, suggestWords: false };
  refuseTooDeep(report);
  const parsed = CatalogDocument.safeParse(data, { error: keepAttribute });
  if (!parsed.success) throw issueError(report, CatalogDocument, parsed.error.issues);
  const problem = firstError(catalogDocumentErrors(parsed.data, wire));
  if (problem) throw new CatalogFileError(problem.message, file, lineOf(problem.path), problem.field);
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
