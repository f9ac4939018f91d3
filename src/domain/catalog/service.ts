/** Catalog queries (decisions: Voices, Languages, Models, providers, eligible numbers). */
import type { AccountCtx } from '../context.js';
import type { PhoneNumber } from '../phone-numbers/schema.js';
import { isUsable } from '../phone-numbers/service.js';
import type { Mode, ModelType, Provider } from './data.js';

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
