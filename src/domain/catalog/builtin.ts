/**
 * The two built-in catalogs: the spec wire's (fixtures/languages.json, voices.json,
 * models.json and the provider files: today's catalog, byte for byte) and the live wire's
 * (fixtures/live-catalog.json, a catalog document: live-platform G.1).
 */
import languagesJson from '../../../fixtures/languages.json' with { type: 'json' };
import voicesJson from '../../../fixtures/voices.json' with { type: 'json' };
import modelsJson from '../../../fixtures/models.json' with { type: 'json' };
import synthesizersJson from '../../../fixtures/synthesizer-providers.json' with { type: 'json' };
import transcribersJson from '../../../fixtures/transcriber-providers.json' with { type: 'json' };
import liveCatalogJson from '../../../fixtures/live-catalog.json' with { type: 'json' };
import { once } from '../../core/lazy.js';
import type { Wire } from '../../core/wire.js';
import { Catalog, MODEL_TYPES, type CatalogTables, type Language, type Model, type Provider, type Voice } from './data.js';
import { CatalogDocument, catalogDocumentOf, catalogProblems, catalogTables, mergeCatalog, type FullCatalogDocument } from './document.js';

const SPEC_TABLES: CatalogTables = {
  languages: languagesJson as Language[],
  voices: voicesJson as Voice[],
  models: modelsJson as Model[],
  synthesizerProviders: synthesizersJson as Provider[],
  transcriberProviders: transcribersJson as Provider[],
};

const EMPTY: FullCatalogDocument = {
  languages: [],
  voices: [],
  models: Object.fromEntries(MODEL_TYPES.map((type) => [type, []])) as unknown as FullCatalogDocument['models'],
  synthesizer_providers: [],
  transcriber_providers: [],
};

/**
 * The live catalog's document as the fixture writes it, checked as every catalog document is:
 * a fixture that breaks a rule fails the live catalog's first use. Its implied fields stay
 * implied (a provider without `language_ids` speaks every language), so a language a document
 * adds is spoken by those providers and gets its default providers as docs/catalog.md says.
 */
function liveDocument(): FullCatalogDocument {
  const whole = mergeCatalog(EMPTY, CatalogDocument.parse(liveCatalogJson));
  const problems = catalogProblems(whole);
  if (problems.length > 0) throw new Error(`fixtures/live-catalog.json: ${JSON.stringify(problems)}`);
  return whole;
}

/** The spec catalog's tables as a whole document (every field is given: the fixtures imply none). */
function specDocument(): FullCatalogDocument {
  const { merge: _merge, ...doc } = catalogDocumentOf(SPEC_TABLES);
  return doc;
}

const DOCUMENTS: Record<Wire, () => FullCatalogDocument> = { spec: once(specDocument), live: once(liveDocument) };
const CATALOGS: Record<Wire, () => Catalog> = { spec: once(() => new Catalog(SPEC_TABLES)), live: once(() => new Catalog(catalogTables(DOCUMENTS.live()))) };

/**
 * A wire's built-in catalog as a whole document (what a catalog document replaces or
 * extends), made once: callers read it, never change it.
 * @example builtinCatalogDocument('live').voices.map((v) => v.id) // [1, 4, 8, 10, 11, 12, 13, 41, 1994]
 */
export function builtinCatalogDocument(wire: Wire): FullCatalogDocument {
  return DOCUMENTS[wire]();
}

/**
 * A wire's own catalog (live-platform G.1: the spec wire keeps today's, the live wire
 * answers the live platform's), built on its first use: checking the live document takes
 * some 7 ms, which importing voxsim and a spec-wire simulator need not pay (issue 29).
 */
export function builtinCatalog(wire: Wire): Catalog {
  return CATALOGS[wire]();
}
