/** Wire shapes of the catalog routes (decisions: Routes the specification names without a path). */
import { z } from 'zod';
import { formatIsoUtc } from '../../core/time.js';
import { int, oneOf, queryInt } from '../../core/validation.js';
import { say, type Wire } from '../../core/wire.js';
import { TYPE_LABELS, type PhoneNumber } from '../phone-numbers/schema.js';
import { MODEL_TYPES, MODES, type KnowledgebaseTemplate, type Language, type Model, type Provider, type ToolTemplate, type Voice } from './data.js';

interface OwnedRecord {
  id: number;
  account_id: number;
  created_at: number;
  updated_at: number;
}

/** A knowledge base of an account (copied from the fixtures when the account is created). */
export interface Knowledgebase extends KnowledgebaseTemplate, OwnedRecord {}

/** A custom mid-call tool of an account. */
export interface Tool extends ToolTemplate, OwnedRecord {}

export const VoicesQuery = z.object({ mode: oneOf(MODES).optional(), language_id: queryInt().pipe(int()).optional() });
export const ModelsQuery = z.object({ type: oneOf(MODEL_TYPES).default('llm') });
export const ProvidersQuery = z.object({ language_id: queryInt().pipe(int()).optional() });
export const EligibleNumbersQuery = z.object({ type: oneOf(['inbound', 'outbound']).optional() });

export function serialiseVoice(v: Voice) {
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

export function serialiseLanguage(l: Language) {
  return { id: l.id, name: l.name, iso_2: l.iso_2 };
}

/** `code` only on multimodal and dualplex models. */
export function serialiseModel(m: Model) {
  return m.code === undefined ? { id: m.id, name: m.name } : { id: m.id, name: m.name, code: m.code };
}

export function serialiseProvider(p: Provider) {
  return { id: p.id, name: p.name, code: p.code };
}

/** live-platform C.1, E: the live wire writes the fixtures' `ready` as `active`; other statuses keep their word. */
function liveKnowledgebaseStatus(status: string): string {
  return status === 'ready' ? 'active' : status;
}

export function serialiseKnowledgebase(kb: Knowledgebase, assistantsCount: number, wire: Wire) {
  const status = wire === 'live' ? liveKnowledgebaseStatus(kb.status) : kb.status;
  return {
    id: kb.id,
    name: kb.name,
    description: kb.description,
    status,
    // live-platform D.4: the live wire labels the status (`Active`, `Processing`, `Empty`, `Failed`).
    ...(wire === 'live' && { status_label: status.charAt(0).toUpperCase() + status.slice(1) }),
    documents_count: kb.documents_count,
    assistants_count: assistantsCount,
    created_at: formatIsoUtc(kb.created_at),
    updated_at: formatIsoUtc(kb.updated_at),
  };
}

export function serialiseTool(t: Tool) {
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    endpoint: t.endpoint,
    method: t.method,
    timeout: t.timeout,
    headers: { ...t.headers },
    schema: structuredClone(t.schema),
    created_at: formatIsoUtc(t.created_at),
    updated_at: formatIsoUtc(t.updated_at),
  };
}

/** A number an assistant may use; available when no assistant holds it. Its `type_label` is the wire's (live-platform E). */
export function serialiseEligibleNumber({ number, available }: { number: PhoneNumber; available: boolean }, wire: Wire) {
  return { id: number.id, phone_number: number.phone_number, country_code: number.country_code, type_label: say(wire, TYPE_LABELS[number.type]), is_available: available };
}
