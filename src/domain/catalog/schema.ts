/** Wire shapes of the catalog routes (decisions: Routes the specification names without a path). */
import * as z from 'zod';
import { integer } from '../../core/answers.js';
import { int, oneOf, queryInt } from '../../core/validation.js';
import { say, type Wire } from '../../core/wire.js';
import { TYPE_LABELS, type PhoneNumber } from '../phone-numbers/schema.js';
import { MODEL_TYPES, MODES, type Language, type Model, type Provider, type Voice } from './data.js';
import { lazySchema } from '../../core/lazy-schema.js';

export const VoicesQuery = lazySchema(() => z.object({ mode: oneOf(MODES).optional(), language_id: queryInt().pipe(int()).optional() }));
export const ModelsQuery = lazySchema(() => z.object({ type: oneOf(MODEL_TYPES).default('llm') }));
export const ProvidersQuery = lazySchema(() => z.object({ language_id: queryInt().pipe(int()).optional() }));
export const EligibleNumbersQuery = lazySchema(() => z.object({ type: oneOf(['inbound', 'outbound']).optional() }));

export const VoiceRecord = lazySchema(() => z
  .object({
    id: integer(),
    name: z.string(),
    language_id: integer(),
    gender: z.string(),
    // The live catalog leaves these null for some voices (live-platform G.1).
    preview_url: z.string().nullable(),
    accent: z.string().nullable(),
    age: z.string().nullable(),
    synthesizer_provider_id: integer().nullable(),
  })
  .meta({ id: 'Voice' }));
export type VoiceRecord = z.output<typeof VoiceRecord>;
export const LanguageRecord = lazySchema(() => z.object({ id: integer(), name: z.string(), iso_2: z.string() }).meta({ id: 'Language' }));
export type LanguageRecord = z.output<typeof LanguageRecord>;
export const ModelRecord = lazySchema(() => z.object({ id: integer(), name: z.string(), code: z.string().optional() }).meta({ id: 'Model' }));
export type ModelRecord = z.output<typeof ModelRecord>;
export const ProviderRecord = lazySchema(() => z.object({ id: integer(), name: z.string(), code: z.string() }).meta({ id: 'Provider' }));
export type ProviderRecord = z.output<typeof ProviderRecord>;
export const EligibleNumberRecord = lazySchema(() => z
  .object({ id: integer(), phone_number: z.string(), country_code: z.string(), type_label: z.string(), is_available: z.boolean() })
  .meta({ id: 'EligibleNumber' }));
export type EligibleNumberRecord = z.output<typeof EligibleNumberRecord>;

export function serialiseVoice(v: Voice): VoiceRecord {
  return {
    id: v.id,
    name: v.name,
    language_id: v.language_id,
    gender: v.gender,
    preview_url: v.preview_url,
    accent: v.accent,
    age: v.age,
    synthesizer_provider_id: v.synthesizer_provider_id,
  };
}

export function serialiseLanguage(l: Language): LanguageRecord {
  return { id: l.id, name: l.name, iso_2: l.iso_2 };
}

/** `code` only on multimodal and dualplex models. */
export function serialiseModel(m: Model): ModelRecord {
  return m.code === undefined ? { id: m.id, name: m.name } : { id: m.id, name: m.name, code: m.code };
}

export function serialiseProvider(p: Provider): ProviderRecord {
  return { id: p.id, name: p.name, code: p.code };
}

/** A number an assistant may use; available when no assistant holds it. Its `type_label` is the wire's (live-platform E). */
export function serialiseEligibleNumber({ number, available }: { number: PhoneNumber; available: boolean }, wire: Wire): EligibleNumberRecord {
  return { id: number.id, phone_number: number.phone_number, country_code: number.country_code, type_label: say(wire, TYPE_LABELS[number.type]), is_available: available };
}
