/**
 * The catalog document (issue 27, docs/catalog.md): languages, voices, models per type and
 * the two provider tables, with the fields the catalog routes answer and the few a route
 * only implies (a voice's engine modes, the languages a provider speaks, a language's
 * default providers). One document form serves the built-in catalogs
 * (fixtures/live-catalog.json), `createSimulator({ catalog })`, `voxsim serve --catalog`,
 * a scenario's `given.catalog`, `PUT /__sim/catalog` and `voxsim catalog pull`.
 */
import * as z from 'zod';
import { type FieldErrors } from '../../core/errors.js';
import { int, oneOf, ruleMessage, str } from '../../core/validation.js';
import { MODEL_TYPES, MODES, type CatalogTables, type Language, type Model, type ModelType, type Provider, type Voice } from './data.js';
import { lazySchema } from '../../core/lazy-schema.js';

const entryId = () => int(1, 2_147_483_647);
const text = () => str(255).min(1);
/** A text field the routes answer that the live platform leaves null for some entries (a voice's accent). */
const optionalText = () => str(2048).nullable();

export const CatalogLanguage = lazySchema(() => z.strictObject({
  id: entryId(),
  name: text(),
  iso_2: str(16).min(1),
  /** The provider a new assistant of this language gets when it names none; default: the first provider of the table that speaks it. */
  default_synthesizer_provider_id: entryId().nullable().optional(),
  default_transcriber_provider_id: entryId().nullable().optional(),
}));
export const CatalogVoice = lazySchema(() => z.strictObject({
  id: entryId(),
  name: text(),
  language_id: entryId(),
  gender: text(),
  preview_url: optionalText(),
  accent: optionalText(),
  age: optionalText(),
  synthesizer_provider_id: entryId().nullable(),
  /** The engine modes the voice suits; default (live-platform G.1, corrected): every mode. */
  modes: z.array(oneOf(MODES)).min(1).optional(),
}));
export const CatalogModel = lazySchema(() => z.strictObject({ id: entryId(), name: text(), code: str(255).min(1).optional() }));
export const CatalogProvider = lazySchema(() => z.strictObject({
  id: entryId(),
  name: text(),
  code: str(255).min(1),
  /** The languages it speaks (the routes' `language_id` filter); default: every language of the catalog. */
  language_ids: z.array(entryId()).optional(),
}));

/**
 * A catalog document. `merge: replace` (the default): each table given replaces the wire's
 * table whole, a table left out stays the wire's; `merge: extend`: each entry given
 * replaces the wire's entry of the same id or is added, in id order.
 */
export const CatalogDocument = lazySchema(() => z
  .strictObject({
    merge: oneOf(['replace', 'extend']).optional(),
    languages: z.array(CatalogLanguage).optional(),
    voices: z.array(CatalogVoice).optional(),
    models: z.strictObject({ llm: z.array(CatalogModel).optional(), multimodal: z.array(CatalogModel).optional(), dualplex: z.array(CatalogModel).optional() }).optional(),
    synthesizer_providers: z.array(CatalogProvider).optional(),
    transcriber_providers: z.array(CatalogProvider).optional(),
  }));
/** A catalog document as written (the input of `createSimulator({ catalog })`, `PUT /__sim/catalog`, `given.catalog`). */
export type CatalogDocumentInput = z.input<typeof CatalogDocument>;
export type CatalogDocument = z.output<typeof CatalogDocument>;

type Entry = { id: number };
/** A whole catalog in document form: every table present. */
export type FullCatalogDocument = Required<Omit<CatalogDocument, 'merge' | 'models'>> & {
  models: Record<ModelType, z.output<typeof CatalogModel>[]>;
};

/** Texts of a catalog's own rules (beyond the field rules' Laravel texts). Tests reuse them. */
export const CATALOG_MESSAGES = {
  duplicate: 'The :attribute has the id of an entry before it (ids are unique in a table).',
  noLanguage: 'The selected :attribute is no language of the catalog.',
  noSynthesizer: 'The selected :attribute is no synthesizer provider of the catalog.',
  noTranscriber: 'The selected :attribute is no transcriber provider of the catalog.',
  providerLanguage: 'The :attribute does not speak the language.',
  keptBroken: (table: string, ids: readonly number[]) =>
    `The ${table.replace(/[._]/g, ' ')} ${ids.join(', ')} kept from the wire's catalog name entries this catalog lacks; give ${table} too.`,
  inUse: (what: string, id: number, assistants: readonly number[]) =>
    `The ${what} ${id} is used by assistant${assistants.length === 1 ? '' : 's'} ${assistants.join(', ')} and may not be removed.`,
  /** An entry kept that no longer fits the assistants that use it (the rules an assistant update checks). */
  unspoken: (what: string, id: number, assistants: readonly number[], language: number) =>
    `The ${what} ${id} is used by assistant${assistants.length === 1 ? '' : 's'} ${assistants.join(', ')} of language ${language} and must keep speaking it.`,
  unsuited: (id: number, assistants: readonly number[], mode: string) =>
    `The voice ${id} is used by assistant${assistants.length === 1 ? '' : 's'} ${assistants.join(', ')} in ${mode} mode and must keep suiting it.`,
  otherWire: (wire: string, field: string, message: string) => `The catalog document does not fit the ${wire} wire's catalog: ${field}: ${message}`,
} as const;

function mergeTable<T extends Entry>(base: readonly T[], given: readonly T[] | undefined, extend: boolean): T[] {
  if (given === undefined) return [...base];
  if (!extend) return [...given];
  const byId = new Map<number, T>(base.map((e) => [e.id, e]));
  for (const entry of given) byId.set(entry.id, entry);
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

/**
 * The document `doc` makes of `base` (a whole catalog): its tables merged as `doc.merge` says.
 * @example mergeCatalog(liveBase, { merge: 'extend', voices: [{ id: 9001, name: 'Mina', ... }] })
 */
export function mergeCatalog(base: FullCatalogDocument, doc: CatalogDocument): FullCatalogDocument {
  const extend = doc.merge === 'extend';
  return {
    languages: mergeTable(base.languages, doc.languages, extend),
    voices: mergeTable(base.voices, doc.voices, extend),
    models: Object.fromEntries(MODEL_TYPES.map((type) => [type, mergeTable(base.models[type], doc.models?.[type], extend)])) as FullCatalogDocument['models'],
    synthesizer_providers: mergeTable(base.synthesizer_providers, doc.synthesizer_providers, extend),
    transcriber_providers: mergeTable(base.transcriber_providers, doc.transcriber_providers, extend),
  };
}

/** Where a catalog's problem is: a table's path (`voices`, `models.llm`), the entry's index in it and its field. */
export interface CatalogProblem {
  table: (string | number)[];
  index: number;
  field: (string | number)[];
  rule: string;
}

/** The indexes of the entries whose id an entry before them has. */
function repeatedIds(rows: readonly Entry[]): number[] {
  const seen = new Set<number>();
  return rows.flatMap((row, i) => (seen.has(row.id) ? [i] : (seen.add(row.id), [])));
}

/**
 * The problems of a whole catalog that no single field shows: an id twice in a table, a
 * voice of a language or provider the catalog lacks, a provider of a language it lacks, a
 * default provider that is missing or does not speak its language.
 * @example catalogProblems(mergeCatalog(base, doc)) // [{ table: ['voices'], index: 3, field: ['language_id'], rule: CATALOG_MESSAGES.noLanguage }]
 */
export function catalogProblems(doc: FullCatalogDocument): CatalogProblem[] {
  const problems: CatalogProblem[] = [];
  const add = (table: (string | number)[], index: number, field: (string | number)[], rule: string) => void problems.push({ table, index, field, rule });
  const ids = <T extends Entry>(rows: readonly T[], table: (string | number)[]) => {
    for (const i of repeatedIds(rows)) add(table, i, ['id'], CATALOG_MESSAGES.duplicate);
    return new Set(rows.map((row) => row.id));
  };
  const languages = ids(doc.languages, ['languages']);
  const synthesizers = ids(doc.synthesizer_providers, ['synthesizer_providers']);
  ids(doc.transcriber_providers, ['transcriber_providers']);
  ids(doc.voices, ['voices']);
  for (const type of MODEL_TYPES) ids(doc.models[type], ['models', type]);
  doc.voices.forEach((voice, i) => {
    if (!languages.has(voice.language_id)) add(['voices'], i, ['language_id'], CATALOG_MESSAGES.noLanguage);
    if (voice.synthesizer_provider_id !== null && !synthesizers.has(voice.synthesizer_provider_id)) add(['voices'], i, ['synthesizer_provider_id'], CATALOG_MESSAGES.noSynthesizer);
  });
  for (const table of ['synthesizer_providers', 'transcriber_providers'] as const) {
    doc[table].forEach((provider, i) =>
      provider.language_ids?.forEach((id, j) => {
        if (!languages.has(id)) add([table], i, ['language_ids', j], CATALOG_MESSAGES.noLanguage);
      }),
    );
  }
  doc.languages.forEach((language, i) => {
    const check = (field: 'default_synthesizer_provider_id' | 'default_transcriber_provider_id', table: readonly z.output<typeof CatalogProvider>[], missing: string) => {
      const id = language[field];
      if (id === null || id === undefined) return;
      const provider = table.find((p) => p.id === id);
      if (!provider) add(['languages'], i, [field], missing);
      else if (provider.language_ids && !provider.language_ids.includes(language.id)) add(['languages'], i, [field], CATALOG_MESSAGES.providerLanguage);
    };
    check('default_synthesizer_provider_id', doc.synthesizer_providers, CATALOG_MESSAGES.noSynthesizer);
    check('default_transcriber_provider_id', doc.transcriber_providers, CATALOG_MESSAGES.noTranscriber);
  });
  return problems;
}

/**
 * The problems of the catalog `doc` makes of `base`, as shape B's field errors on the
 * document's own paths (`voices.3.language_id`); entries `doc` did not give (the wire's,
 * kept) are named together on their table (`voices`: "The voices 3, 4 kept from ...").
 * @example documentProblems(builtinCatalogDocument('live'), { voices: [{ id: 7, language_id: 99, ... }] }) // { 'voices.0.language_id': [...] }
 */
export function documentProblems(base: FullCatalogDocument, doc: CatalogDocument): FieldErrors {
  const merged = mergeCatalog(base, doc);
  const errors: FieldErrors = {};
  const kept = new Map<string, Set<number>>();
  const tableOf = (d: CatalogDocument | FullCatalogDocument, table: (string | number)[]) =>
    (table.length === 2 ? (d.models as Record<string, Entry[] | undefined> | undefined)?.[table[1] as string] : (d as Record<string, unknown>)[table[0] as string]) as Entry[] | undefined;
  for (const problem of catalogProblems(merged)) {
    const entry = tableOf(merged, problem.table)![problem.index]!;
    const given = tableOf(doc, problem.table)?.indexOf(entry) ?? -1;
    if (given < 0) {
      // An entry kept from the wire's catalog: one message per table names them all.
      const key = problem.table.join('.');
      kept.set(key, (kept.get(key) ?? new Set()).add(entry.id));
      continue;
    }
    const path = [...problem.table, given, ...problem.field];
    (errors[path.join('.')] ??= []).push(ruleMessage(problem.rule, path));
  }
  for (const [key, ids] of kept) (errors[key] ??= []).push(CATALOG_MESSAGES.keptBroken(key, [...ids]));
  // Extending keeps one entry per id, so an id given twice would vanish in the merge: the document's own tables are checked for it.
  if (doc.merge === 'extend') {
    const tables: [(string | number)[], readonly Entry[] | undefined][] = [
      [['languages'], doc.languages],
      [['voices'], doc.voices],
      ...MODEL_TYPES.map((type): [(string | number)[], readonly Entry[] | undefined] => [['models', type], doc.models?.[type]]),
      [['synthesizer_providers'], doc.synthesizer_providers],
      [['transcriber_providers'], doc.transcriber_providers],
    ];
    for (const [table, rows] of tables) {
      for (const i of repeatedIds(rows ?? [])) {
        const path = [...table, i, 'id'];
        (errors[path.join('.')] ??= []).push(ruleMessage(CATALOG_MESSAGES.duplicate, path));
      }
    }
  }
  return errors;
}

/**
 * The tables of a whole, sound catalog document, with every implied field filled in
 * (the document's defaults: a voice's modes, a provider's languages, a language's default
 * providers).
 * @example new Catalog(catalogTables(mergeCatalog(base, doc)))
 */
export function catalogTables(doc: FullCatalogDocument): CatalogTables {
  const allLanguages = doc.languages.map((l) => l.id);
  const provider = (p: z.output<typeof CatalogProvider>): Provider => ({ id: p.id, name: p.name, code: p.code, language_ids: p.language_ids ?? allLanguages });
  const synthesizerProviders = doc.synthesizer_providers.map(provider);
  const transcriberProviders = doc.transcriber_providers.map(provider);
  const firstSpeaking = (table: Provider[], languageId: number) => table.find((p) => p.language_ids.includes(languageId))?.id ?? null;
  const languages = doc.languages.map(
    (l): Language => ({
      id: l.id,
      name: l.name,
      iso_2: l.iso_2,
      default_synthesizer_provider_id: l.default_synthesizer_provider_id ?? firstSpeaking(synthesizerProviders, l.id),
      default_transcriber_provider_id: l.default_transcriber_provider_id ?? firstSpeaking(transcriberProviders, l.id),
    }),
  );
  const voices = doc.voices.map(
    (v): Voice => ({
      ...v,
      // live-platform G.1 (corrected): a voice suits every mode unless its document restricts it.
      modes: v.modes ? [...new Set(v.modes)] : [...MODES],
    }),
  );
  const models = MODEL_TYPES.flatMap((type) => doc.models[type].map((m): Model => (m.code === undefined ? { id: m.id, name: m.name, type } : { id: m.id, name: m.name, type, code: m.code })));
  return { languages, voices, models, synthesizerProviders, transcriberProviders };
}

/**
 * A catalog's tables as a whole document with every implied field written out (`GET
 * /__sim/catalog`): `PUT` of it gives the same catalog.
 * @example catalogDocumentOf(sim.catalog.tables)
 */
export function catalogDocumentOf(tables: CatalogTables): FullCatalogDocument & { merge: 'replace' } {
  return {
    merge: 'replace',
    languages: tables.languages.map((l) => ({ ...l })),
    voices: tables.voices.map((v) => ({ ...v, modes: [...v.modes] })),
    models: Object.fromEntries(
      MODEL_TYPES.map((type) => [type, tables.models.filter((m) => m.type === type).map(({ type: _type, ...m }) => m)]),
    ) as FullCatalogDocument['models'],
    synthesizer_providers: tables.synthesizerProviders.map((p) => ({ ...p, language_ids: [...p.language_ids] })),
    transcriber_providers: tables.transcriberProviders.map((p) => ({ ...p, language_ids: [...p.language_ids] })),
  };
}

/**
 * The JSON Schema of catalog documents, for editors (`voxsim catalog schema`, catalog.schema.json).
 * @example JSON.stringify(catalogJsonSchema(), null, 2)
 */
export function catalogJsonSchema(): Record<string, unknown> {
  return { $id: 'urn:voxsim:catalog', title: 'voxsim catalog', ...z.toJSONSchema(CatalogDocument, { io: 'input', unrepresentable: 'any' }) };
}
