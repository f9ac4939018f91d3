/** Catalog queries (decisions: Voices, Languages, Models, providers, eligible numbers, knowledge bases, tools). */
import { copyJson } from '../../core/json.js';
import { shapeA } from '../../core/errors.js';
import { texts } from '../../core/wire.js';
import type { AccountCtx } from '../context.js';
import type { PhoneNumber } from '../phone-numbers/schema.js';
import { isUsable } from '../phone-numbers/service.js';
import type { Mode, ModelType, Provider } from './data.js';
import type { Knowledgebase, Tool } from './schema.js';

export const CATALOG_MESSAGES = {
  knowledgebaseNotFound: 'Knowledge base not found.',
  toolNotFound: 'Tool not found.',
} as const;

/** live-platform Rule 2, C.1, C.2: the family 404s of the live wire. */
export const catalogErrors = {
  // The live platform answers a missing knowledge base in shape C.
  knowledgebaseNotFound: () => shapeA(404, CATALOG_MESSAGES.knowledgebaseNotFound).withLive({ error: 'Knowledgebase not found.' }),
  toolNotFound: () => shapeA(404, texts(CATALOG_MESSAGES.toolNotFound, 'Tool not found')),
};

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

export function listKnowledgebases(ctx: AccountCtx): Knowledgebase[] {
  return ctx.knowledgebases.list();
}

export function findKnowledgebase(ctx: AccountCtx, id: number): Knowledgebase {
  const kb = ctx.knowledgebases.get(id);
  if (!kb) throw catalogErrors.knowledgebaseNotFound();
  return kb;
}

/** How many of the account's assistants use a knowledge base. */
export function knowledgebaseUsage(ctx: AccountCtx, kb: Knowledgebase): number {
  return ctx.assistants.where('knowledgebase', kb.id).length;
}

export function listTools(ctx: AccountCtx): Tool[] {
  return ctx.tools.list();
}

export function findTool(ctx: AccountCtx, id: number): Tool {
  const tool = ctx.tools.get(id);
  if (!tool) throw catalogErrors.toolNotFound();
  return tool;
}

/** Copies the fixture knowledge bases and tools into a new account (decisions: Fixtures for every account). */
export function provisionCatalog(ctx: AccountCtx): void {
  const now = ctx.now();
  for (const kb of ctx.catalog.knowledgebaseTemplates) ctx.knowledgebases.insert({ ...copyJson(kb), created_at: now, updated_at: now });
  for (const tool of ctx.catalog.toolTemplates) ctx.tools.insert({ ...copyJson(tool), created_at: now, updated_at: now });
}
