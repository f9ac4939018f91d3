/** Catalog queries (decisions: Voices, Languages, Models, providers, eligible numbers) and the catalog in force (issue 27). */
import type { FieldErrors } from '../../core/errors.js';
import { validationFailure } from '../../core/validation.js';
import type { Assistant } from '../assistants/schema.js';
import type { AccountCtx } from '../context.js';
import type { SimState } from '../state.js';
import { checkCatalogDocument } from './check.js';
import { CATALOG_MESSAGES, type CatalogDocument } from './document.js';
import { catalogOf } from './setting.js';
import type { PhoneNumber } from '../phone-numbers/schema.js';
import { isUsable } from '../phone-numbers/service.js';
import type { Catalog, Mode, ModelType, Provider } from './data.js';

/** Voices, optionally only those that suit an engine mode and those of a language. */
export function listVoices(ctx: AccountCtx, filter: { mode?: Mode; language_id?: number }) {
  return ctx.catalog.voices.filter(
    (v) => (filter.mode === undefined || v.modes.includes(filter.mode)) && (filter.language_id === undefined || v.language_id === filter.language_id),
  );
}

export function listModels(ctx: AccountCtx, type: ModelType) {
  return ctx.catalog.models.filter((m) => m.type === type);
}

/** Providers, optionally only those that support a language. */
export function listProviders(providers: readonly Provider[], languageId?: number) {
  return providers.filter((p) => languageId === undefined || p.language_ids.includes(languageId));
}

/**
 * Numbers an assistant may use (decisions: Numbers eligible for an assistant): inbound
 * excludes caller-ID numbers and numbers held by an inbound assistant; a released number
 * waiting for its period to end is no longer offered.
 */
export function listEligibleNumbers(ctx: AccountCtx, type?: 'inbound' | 'outbound'): { number: PhoneNumber; available: boolean }[] {
  const held = (n: PhoneNumber) => ctx.assistants.where('inbound_number', n.id).length > 0;
  return ctx.phoneNumbers
    .list()
    .filter((n) => isUsable(n) && (type !== 'inbound' || (n.type !== 'caller_id' && !held(n))))
    .map((number) => ({ number, available: ctx.assistants.where('phone_number', number.id).length === 0 }));
}

/**
 * What `catalog` would leave of the assistants that use it, as shape B's errors: each id an
 * assistant names that it lacks, on the table (`voices`: "The voice 13 is used by assistants
 * 1, 4 and may not be removed."), and each entry it keeps that no longer fits an assistant
 * as an update checks it (assistants/service.ts checkSettings: a voice suits the assistant's
 * mode, its synthesizer, and in pipeline mode its transcriber, speak its primary language;
 * secondary languages only have to exist), on the entry's field where `doc` gives the entry
 * (`synthesizer_providers.0.language_ids`), else on the table. Every account's assistants.
 * @example catalogInUse(db.assistants.all(), next, doc) // {}
 */
export function catalogInUse(assistants: readonly Assistant[], catalog: Catalog, doc?: CatalogDocument): FieldErrors {
  const found = new Map<string, { field: string; message: (assistants: readonly number[]) => string; assistants: number[] }>();
  const note = (field: string, what: string, message: (assistants: readonly number[]) => string, assistant: number) => {
    const key = `${field}\u0000${what}`;
    const entry = found.get(key) ?? { field, message, assistants: [] };
    // Assistants come one at a time: only the same assistant can name an entry twice in a row (a fallback that is its LLM).
    if (entry.assistants.at(-1) !== assistant) entry.assistants.push(assistant);
    found.set(key, entry);
  };
  const need = (table: string, what: string, id: number | null | undefined, present: boolean, assistant: number) => {
    if (id === null || id === undefined || present) return;
    note(table, `${what} ${id}`, (ids) => CATALOG_MESSAGES.inUse(what, id, ids), assistant);
  };
  /** The field of the entry of `table` with `id` where the document gives it, else the table. */
  const fieldOf = (table: 'voices' | 'synthesizer_providers' | 'transcriber_providers', id: number, field: string) => {
    const index = doc?.[table]?.findIndex((entry) => entry.id === id) ?? -1;
    return index < 0 ? table : `${table}.${index}.${field}`;
  };
  const speaks = (table: 'synthesizer_providers' | 'transcriber_providers', what: string, provider: Provider | undefined, a: Assistant) => {
    // checkSettings: a provider that exists must speak the assistant's language, when that language exists.
    if (!provider || !catalog.language(a.language_id) || provider.language_ids.includes(a.language_id)) return;
    note(fieldOf(table, provider.id, 'language_ids'), `${what} ${provider.id} language ${a.language_id}`, (ids) => CATALOG_MESSAGES.unspoken(what, provider.id, ids, a.language_id), a.id);
  };
  for (const a of assistants) {
    const voice = catalog.voice(a.voice_id);
    need('voices', 'voice', a.voice_id, voice !== undefined, a.id);
    if (voice && !voice.modes.includes(a.mode)) note(fieldOf('voices', voice.id, 'modes'), `voice ${voice.id} mode ${a.mode}`, (ids) => CATALOG_MESSAGES.unsuited(voice.id, ids, a.mode), a.id);
    for (const id of [a.language_id, ...a.secondary_language_ids]) need('languages', 'language', id, catalog.language(id) !== undefined, a.id);
    if (a.llm_model_id !== null) need('models.llm', 'llm model', a.llm_model_id, catalog.model('llm', a.llm_model_id) !== undefined, a.id);
    if (a.chat_llm_fallback_id !== null) need('models.llm', 'llm model', a.chat_llm_fallback_id, catalog.model('llm', a.chat_llm_fallback_id) !== undefined, a.id);
    if (a.multimodal_model_id !== null && a.mode !== 'pipeline') {
      need(`models.${a.mode}`, `${a.mode} model`, a.multimodal_model_id, catalog.model(a.mode, a.multimodal_model_id) !== undefined, a.id);
    }
    if (a.synthesizer_provider_id !== null) {
      const synthesizer = catalog.synthesizer(a.synthesizer_provider_id);
      need('synthesizer_providers', 'synthesizer provider', a.synthesizer_provider_id, synthesizer !== undefined, a.id);
      speaks('synthesizer_providers', 'synthesizer provider', synthesizer, a);
    }
    if (a.transcriber_provider_id !== null) {
      const transcriber = catalog.transcriber(a.transcriber_provider_id);
      need('transcriber_providers', 'transcriber provider', a.transcriber_provider_id, transcriber !== undefined, a.id);
      // checkSettings reads the transcriber in pipeline mode only.
      if (a.mode === 'pipeline') speaks('transcriber_providers', 'transcriber provider', transcriber, a);
    }
  }
  const errors: FieldErrors = {};
  for (const { field, message, assistants: ids } of found.values()) (errors[field] ??= []).push(message(ids));
  return errors;
}

/**
 * `PUT /__sim/catalog`: puts a catalog document in force after checking it whole and that
 * every assistant, on every account, still fits it as an update would check it: no id it
 * names disappears, no entry it uses stops suiting its mode or speaking its language (422
 * shape B naming the assistants, nothing changed); answers the catalog now in force under
 * the simulator's wire.
 * @example setCatalog(state, { merge: 'extend', voices: [{ id: 9001, name: 'Mina', language_id: 5, ... }] })
 */
export function setCatalog(state: SimState, input: unknown): Catalog {
  const doc = checkCatalogDocument(input, state.wire);
  const next = catalogOf(doc, state.wire);
  const inUse = catalogInUse(state.db.assistants.all(), next, doc);
  if (Object.keys(inUse).length > 0) throw validationFailure(inUse, 'control');
  state.catalogs.set(doc, state.wire, next);
  return next;
}
