/** Catalog queries (decisions: Voices, Languages, Models, providers, eligible numbers) and the catalog in force (issue 27). */
import type { FieldErrors } from '../../core/errors.js';
import { validationFailure } from '../../core/validation.js';
import type { Assistant } from '../assistants/schema.js';
import type { AccountCtx } from '../context.js';
import type { SimState } from '../state.js';
import { checkCatalogDocument } from './check.js';
import { CATALOG_MESSAGES } from './document.js';
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
 * The ids of `catalog`'s tables that assistants name and it lacks, as shape B's errors on
 * the table (`voices`: "The voice 13 is used by assistants 1, 4 and may not be removed.").
 * @example catalogInUse(db.assistants.all(), next) // {}
 */
export function catalogInUse(assistants: readonly Assistant[], catalog: Catalog): FieldErrors {
  const missing = new Map<string, { what: string; id: number; assistants: number[] }>();
  const need = (table: string, what: string, id: number | null | undefined, present: boolean, assistant: number) => {
    if (id === null || id === undefined || present) return;
    const key = `${table}\u0000${id}`;
    const entry = missing.get(key) ?? { what, id, assistants: [] };
    if (!entry.assistants.includes(assistant)) entry.assistants.push(assistant);
    missing.set(key, entry);
  };
  for (const a of assistants) {
    need('voices', 'voice', a.voice_id, catalog.voice(a.voice_id) !== undefined, a.id);
    for (const id of [a.language_id, ...a.secondary_language_ids]) need('languages', 'language', id, catalog.language(id) !== undefined, a.id);
    if (a.llm_model_id !== null) need('models.llm', 'llm model', a.llm_model_id, catalog.model('llm', a.llm_model_id) !== undefined, a.id);
    if (a.chat_llm_fallback_id !== null) need('models.llm', 'llm model', a.chat_llm_fallback_id, catalog.model('llm', a.chat_llm_fallback_id) !== undefined, a.id);
    if (a.multimodal_model_id !== null && a.mode !== 'pipeline') {
      need(`models.${a.mode}`, `${a.mode} model`, a.multimodal_model_id, catalog.model(a.mode, a.multimodal_model_id) !== undefined, a.id);
    }
    if (a.synthesizer_provider_id !== null) need('synthesizer_providers', 'synthesizer provider', a.synthesizer_provider_id, catalog.synthesizer(a.synthesizer_provider_id) !== undefined, a.id);
    if (a.transcriber_provider_id !== null) need('transcriber_providers', 'transcriber provider', a.transcriber_provider_id, catalog.transcriber(a.transcriber_provider_id) !== undefined, a.id);
  }
  const errors: FieldErrors = {};
  for (const [key, { what, id, assistants: ids }] of missing) (errors[key.split('\u0000')[0]!] ??= []).push(CATALOG_MESSAGES.inUse(what, id, ids));
  return errors;
}

/**
 * `PUT /__sim/catalog`: puts a catalog document in force after checking it whole and that
 * no id an assistant names disappears (422 shape B naming the assistants); answers the
 * catalog now in force under the simulator's wire.
 * @example setCatalog(state, { merge: 'extend', voices: [{ id: 9001, name: 'Mina', language_id: 5, ... }] })
 */
export function setCatalog(state: SimState, input: unknown): Catalog {
  const doc = checkCatalogDocument(input, state.wire);
  const next = catalogOf(doc, state.wire);
  const inUse = catalogInUse(state.db.assistants.all(), next);
  if (Object.keys(inUse).length > 0) throw validationFailure(inUse, 'control');
  state.catalogs.set(doc, state.wire, next);
  return next;
}
