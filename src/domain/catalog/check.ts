/**
 * Checking a catalog document against a wire's catalog (issue 27, docs/catalog.md "Checks"):
 * the one check behind every way a document comes in (the `catalog` option, `--catalog`,
 * `given.catalog`, `PUT /__sim/catalog`, a restored snapshot) and behind serving it on
 * another wire than the one it was checked for.
 */
import { SimError, type FieldErrors } from '../../core/errors.js';
import { parseControlBody, validationFailure } from '../../core/validation.js';
import type { Wire } from '../../core/wire.js';
import { builtinCatalogDocument } from './builtin.js';
import { CATALOG_MESSAGES, CatalogDocument, documentProblems } from './document.js';

/** One problem of a refusal: its shape B key, that key as a path (array indexes as numbers) and its first message. */
export interface FirstError {
  field: string;
  path: (string | number)[];
  message: string;
}

/**
 * The problems of the catalog a well-formed document makes of `wire`'s catalog, as shape B's
 * field errors on the document's paths; none when every reference resolves.
 * @example catalogDocumentErrors({ merge: 'extend', voices: [{ id: 9001, language_id: 99, ... }] }, 'live') // { 'voices.0.language_id': [...] }
 */
export function catalogDocumentErrors(doc: CatalogDocument, wire: Wire): FieldErrors {
  return documentProblems(builtinCatalogDocument(wire), doc);
}

/**
 * The first problem of shape B's field errors, or undefined when there is none.
 * @example firstError({ 'voices.0.language_id': ['The selected ...'] }) // { field: 'voices.0.language_id', path: ['voices', 0, 'language_id'], message: 'The selected ...' }
 */
export function firstError(errors: FieldErrors): FirstError | undefined {
  const first = Object.entries(errors)[0];
  if (!first) return undefined;
  const [field, messages] = first;
  return { field, path: field.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part)), message: messages[0]! };
}

/**
 * The first problem of a refused catalog document (the shape B of checkCatalogDocument or of
 * `PUT /__sim/catalog`), for the ways in that report one problem: the message of the `catalog`
 * (and `accounts`) option's SimError, `given.catalog`'s line. Any other error is rethrown.
 * @example try { checkCatalogDocument(input, 'spec') } catch (error) { const { field, message } = catalogRefusal(error) }
 */
export function catalogRefusal(error: unknown): FirstError {
  if (!(error instanceof SimError)) throw error;
  return firstError((error.body as { errors: FieldErrors }).errors)!;
}

/**
 * A catalog document checked whole (issue 27): its fields and closed mappings, then the
 * catalog it makes of the wire's; 422 shape B naming every problem's path, nothing changed.
 * @example checkCatalogDocument({ merge: 'extend', voices: [...] }, 'live')
 */
export function checkCatalogDocument(input: unknown, wire: Wire): CatalogDocument {
  // Closed at the top level by parseControlBody (with the closest key); the document's own strictness would name the key twice.
  const doc = parseControlBody(CatalogDocument.unwrap().strip(), input);
  const problems = catalogDocumentErrors(doc, wire);
  if (Object.keys(problems).length > 0) throw validationFailure(problems, 'control');
  return doc;
}

/**
 * Refuses a document checked for one wire where it is to be served on `wire` and the catalog
 * it makes there names entries that catalog lacks (docs/catalog.md "One document, two wires":
 * a catalog whose references do not resolve is never served): 422 shape B on `wire`.
 * @example checkCatalogOnWire(doc, 'live') // throws: The catalog document does not fit the live wire's catalog: voices.0.language_id: ...
 */
export function checkCatalogOnWire(doc: CatalogDocument, wire: Wire): void {
  const first = firstError(catalogDocumentErrors(doc, wire));
  if (first) throw validationFailure({ wire: [CATALOG_MESSAGES.otherWire(wire, first.field, first.message)] }, 'control');
}
