/**
 * Knowledge bases and their documents (live-platform C.1): CRUD, the status derived
 * from the documents, and the document lifecycle on the clock.
 */
import { shapeA } from '../../core/errors.js';
import { ErrorBag, ruleMessage } from '../../core/validation.js';
import type { AccountCtx } from '../context.js';
import {
  MAX_FILE_BYTES,
  RELATIVE_LINKS,
  isUpload,
  type CreateDocumentInput,
  type CreateKnowledgebaseInput,
  type DocumentStatus,
  type Knowledgebase,
  type KnowledgebaseDocument,
  type KnowledgebaseStatus,
  type KnowledgebaseView,
  type UpdateDocumentInput,
  type UpdateKnowledgebaseInput,
} from './schema.js';

export const KNOWLEDGEBASE_MESSAGES = {
  created: 'Knowledgebase created successfully.',
  updated: 'Knowledgebase updated successfully.',
  deleted: 'Knowledgebase deleted successfully.',
  documentCreated: 'Document created successfully. Processing will begin shortly.',
  documentUpdated: 'Document updated successfully.',
  documentDeleted: 'Document deleted successfully.',
  notFound: 'Knowledge base not found.',
  notFoundLive: 'Knowledgebase not found.',
  documentNotFound: 'Document not found.',
  fileRequired: 'A file is required for this document type.',
  fileTooLarge: `The file may not be greater than ${MAX_FILE_BYTES / 1024} kilobytes.`,
  requiredWithout: (other: string) => `The :attribute field is required when ${other} is not present.`,
} as const;

/** live-platform Rule 2, C.1: the 404s, spec wire shape A, live wire shape C. */
export const knowledgebaseErrors = {
  notFound: () => shapeA(404, KNOWLEDGEBASE_MESSAGES.notFound).withLive({ error: KNOWLEDGEBASE_MESSAGES.notFoundLive }),
  documentNotFound: () => shapeA(404, KNOWLEDGEBASE_MESSAGES.documentNotFound).withLive({ error: KNOWLEDGEBASE_MESSAGES.documentNotFound }),
};

/** The clock event that ends a document's processing (live-platform C.1 Lifecycle). */
export const DOCUMENT_PROCESSED_EVENT = 'knowledgebase.document_processed';
/** How long a document is processing (live-platform C.1 Lifecycle, decision). */
export const PROCESSING_MS = 60_000;

export interface DocumentProcessedPayload {
  account_id: number;
  document_id: number;
}

/**
 * Derives a knowledge base's status: none → empty; any processing → processing; else any failed → failed; else active.
 * @example statusOf([{ status: 'active' }, { status: 'failed' }] as KnowledgebaseDocument[]) // 'failed'
 */
export function statusOf(documents: readonly KnowledgebaseDocument[]): KnowledgebaseStatus {
  if (documents.length === 0) return 'empty';
  if (documents.some((d) => d.status === 'processing')) return 'processing';
  return documents.some((d) => d.status === 'failed') ? 'failed' : 'active';
}

function documentsOf(ctx: AccountCtx, kb: Knowledgebase): KnowledgebaseDocument[] {
  return ctx.documents.where('knowledgebase', kb.id);
}

/** A knowledge base with its derived status and counts. */
export function viewKnowledgebase(ctx: AccountCtx, kb: Knowledgebase): KnowledgebaseView {
  const documents = documentsOf(ctx, kb);
  return { kb, status: statusOf(documents), documents_count: documents.length, assistants_count: ctx.assistants.where('knowledgebase', kb.id).length };
}

export function listKnowledgebases(ctx: AccountCtx): Knowledgebase[] {
  return ctx.knowledgebases.list();
}

/** An own knowledge base, else the family 404 (a foreign id looks missing). */
export function findKnowledgebase(ctx: AccountCtx, id: number): Knowledgebase {
  const kb = ctx.knowledgebases.get(id);
  if (!kb) throw knowledgebaseErrors.notFound();
  return kb;
}

export function createKnowledgebase(ctx: AccountCtx, input: CreateKnowledgebaseInput): Knowledgebase {
  const now = ctx.now();
  return ctx.knowledgebases.insert({ name: input.name, description: input.description ?? null, created_at: now, updated_at: now });
}

/** Renames or re-describes a knowledge base; its documents and status stay. */
export function updateKnowledgebase(ctx: AccountCtx, id: number, input: UpdateKnowledgebaseInput): Knowledgebase {
  findKnowledgebase(ctx, id);
  return ctx.knowledgebases.update(id, {
    ...(input.name !== undefined && { name: input.name }),
    ...(input.description !== undefined && { description: input.description }),
    updated_at: ctx.now(),
  });
}

/**
 * Deletes a knowledge base with its documents and their timers; assistants that used it
 * keep working without one (`knowledgebase_id` null) (live-platform C.1).
 */
export function deleteKnowledgebase(ctx: AccountCtx, id: number): void {
  const kb = findKnowledgebase(ctx, id);
  for (const document of documentsOf(ctx, kb)) removeDocument(ctx, document);
  for (const assistant of ctx.assistants.where('knowledgebase', kb.id)) ctx.assistants.update(assistant.id, { knowledgebase_id: null });
  ctx.knowledgebases.delete(kb.id);
}

export function listDocuments(ctx: AccountCtx, knowledgebaseId: number): KnowledgebaseDocument[] {
  return documentsOf(ctx, findKnowledgebase(ctx, knowledgebaseId));
}

/** A document of an own knowledge base; the knowledge base's 404 first, then the document's. */
export function findDocument(ctx: AccountCtx, knowledgebaseId: number, documentId: number): KnowledgebaseDocument {
  const kb = findKnowledgebase(ctx, knowledgebaseId);
  const document = ctx.documents.get(documentId);
  if (!document || document.knowledgebase_id !== kb.id) throw knowledgebaseErrors.documentNotFound();
  return document;
}

/** The rules zod cannot see: which source each type needs, and the file's size (live-platform C.1). */
function checkSource(input: CreateDocumentInput): void {
  const bag = new ErrorBag();
  if (input.type === 'website') {
    if (input.url === undefined && input.links === undefined) {
      bag.add('url', ruleMessage(KNOWLEDGEBASE_MESSAGES.requiredWithout('links'), 'url'));
      bag.add('links', ruleMessage(KNOWLEDGEBASE_MESSAGES.requiredWithout('url'), 'links'));
    }
  } else if (!isUpload(input.file)) {
    bag.add('file', KNOWLEDGEBASE_MESSAGES.fileRequired);
  } else if (input.file.size > MAX_FILE_BYTES) {
    bag.add('file', KNOWLEDGEBASE_MESSAGES.fileTooLarge);
  }
  bag.throwIfAny();
}

/** Stamps a knowledge base: a document create, delete or status change touches it (live-platform C.1, decision). */
function touch(ctx: AccountCtx, knowledgebaseId: number): void {
  ctx.knowledgebases.update(knowledgebaseId, { updated_at: ctx.now() });
}

/** Adds a document, `processing` until its clock event 60 s later (live-platform C.1 Lifecycle). */
export function createDocument(ctx: AccountCtx, knowledgebaseId: number, input: CreateDocumentInput): KnowledgebaseDocument {
  checkSource(input);
  const kb = findKnowledgebase(ctx, knowledgebaseId);
  const now = ctx.now();
  const website = input.type === 'website';
  const file = !website && isUpload(input.file) ? input.file : undefined;
  const document = ctx.documents.insert({
    knowledgebase_id: kb.id,
    name: input.name,
    description: input.description ?? null,
    type: input.type,
    status: 'processing',
    url: website ? (input.url ?? null) : null,
    links: website && input.links ? input.links.map((l) => l.link) : null,
    relative_links_limit: website ? (input.relative_links_limit ?? RELATIVE_LINKS.default) : null,
    file_name: file?.filename ?? null,
    file_size: file?.size ?? null,
    processed_event_id: null,
    created_at: now,
    updated_at: now,
  });
  const eventId = ctx.schedule<DocumentProcessedPayload>(now + PROCESSING_MS, DOCUMENT_PROCESSED_EVENT, { account_id: ctx.account.id, document_id: document.id });
  touch(ctx, kb.id);
  ctx.emit('document.status', { knowledgebase_id: kb.id, document_id: document.id, status: document.status });
  return ctx.documents.update(document.id, { processed_event_id: eventId });
}

/** Renames or re-describes a document; its type and content are fixed. */
export function updateDocument(ctx: AccountCtx, knowledgebaseId: number, documentId: number, input: UpdateDocumentInput): KnowledgebaseDocument {
  const document = findDocument(ctx, knowledgebaseId, documentId);
  return ctx.documents.update(document.id, {
    ...(input.name !== undefined && { name: input.name }),
    ...(input.description !== undefined && { description: input.description }),
    updated_at: ctx.now(),
  });
}

/** Deletes a document and its timer; the last one gone leaves the knowledge base `empty`. */
export function deleteDocument(ctx: AccountCtx, knowledgebaseId: number, documentId: number): void {
  const document = findDocument(ctx, knowledgebaseId, documentId);
  removeDocument(ctx, document);
  touch(ctx, document.knowledgebase_id);
}

function removeDocument(ctx: AccountCtx, document: KnowledgebaseDocument): void {
  if (document.processed_event_id !== null) ctx.cancel(document.processed_event_id);
  ctx.documents.delete(document.id);
}

/** Whether a URL's host is under the reserved `.invalid` top-level domain (RFC 2606), which no crawl can reach. */
function unreachable(address: string): boolean {
  try {
    return new URL(address).hostname.replace(/\.$/, '').endsWith('.invalid');
  } catch {
    return true;
  }
}

/** What processing makes of a document: failed for an unreachable URL or an empty file, else active (live-platform C.1, decision). */
function processedStatus(document: KnowledgebaseDocument): DocumentStatus {
  const urls = [...(document.url === null ? [] : [document.url]), ...(document.links ?? [])];
  if (urls.some(unreachable)) return 'failed';
  return document.file_size === 0 ? 'failed' : 'active';
}

/** The clock event 60 s after a create: the document becomes active or failed. */
export function finishProcessing(ctx: AccountCtx, payload: DocumentProcessedPayload): void {
  const document = ctx.documents.get(payload.document_id);
  if (!document || document.status !== 'processing') return;
  const status = processedStatus(document);
  ctx.documents.update(document.id, { status, processed_event_id: null, updated_at: ctx.now() });
  touch(ctx, document.knowledgebase_id);
  ctx.emit('document.status', { knowledgebase_id: document.knowledgebase_id, document_id: document.id, status });
}

/**
 * Copies the fixture knowledge bases into a new account, each with `documents_count`
 * website documents named `<name> page <n>` in the fixture's state (`ready` → active).
 * Fixture documents have no timer and never change by themselves (live-platform C.1 Fixtures).
 * `now` is the account's creation time (the fixtures may be written later: db.ts `fixtures`).
 */
export function provisionKnowledgebases(ctx: AccountCtx, now: number): void {
  for (const template of ctx.catalog.knowledgebaseTemplates) {
    const kb = ctx.knowledgebases.insert({ name: template.name, description: template.description, created_at: now, updated_at: now });
    const status: DocumentStatus = template.status === 'ready' ? 'active' : 'processing';
    for (let n = 1; n <= template.documents_count; n++) {
      ctx.documents.insert({
        knowledgebase_id: kb.id,
        name: `${template.name} page ${n}`,
        description: null,
        type: 'website',
        status,
        url: `https://docs.example.test/knowledgebases/${kb.id}/page-${n}`,
        links: null,
        relative_links_limit: RELATIVE_LINKS.default,
        file_name: null,
        file_size: null,
        processed_event_id: null,
        created_at: now,
        updated_at: now,
      });
    }
  }
}
