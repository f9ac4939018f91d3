/** Wire shapes of knowledge bases and their documents (live-platform C.1, D.4, E). */
import { z } from 'zod';
import { UploadedFile } from '../../core/multipart.js';
import { formatIsoUtc } from '../../core/time.js';
import { oneOf, queryInt, str, url } from '../../core/validation.js';
import type { Wire } from '../../core/wire.js';

export const DOCUMENT_TYPES = ['website', 'pdf', 'txt', 'docx'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];
export const DOCUMENT_STATUSES = ['processing', 'active', 'failed'] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];
/** A knowledge base's status, derived from its documents (live-platform C.1). */
export type KnowledgebaseStatus = 'empty' | DocumentStatus;

/** Largest document file: 20 MiB (live-platform C.1). */
export const MAX_FILE_BYTES = 20_971_520;
/** How far a website document follows relative links, and its default (live-platform C.1). */
export const RELATIVE_LINKS = { min: 1, max: 50, default: 10 } as const;

/** A knowledge base of an account. Its status and counts are derived, never stored. */
export interface Knowledgebase {
  id: number;
  account_id: number;
  name: string;
  description: string | null;
  created_at: number;
  updated_at: number;
}

/**
 * A document of a knowledge base. The source (URL, links, link limit, file name and
 * size) is stored and never shown (live-platform C.1, decision).
 */
export interface KnowledgebaseDocument {
  id: number;
  account_id: number;
  knowledgebase_id: number;
  name: string;
  description: string | null;
  type: DocumentType;
  status: DocumentStatus;
  url: string | null;
  links: string[] | null;
  relative_links_limit: number | null;
  file_name: string | null;
  file_size: number | null;
  /** The clock event that ends processing; null once it ran, and for fixture documents, which never change. */
  processed_event_id: number | null;
  created_at: number;
  updated_at: number;
}

const name = () => str(255).min(1);
const description = () => str(255).nullable();

export const CreateKnowledgebaseBody = z.object({ name: name(), description: description().optional() });
export type CreateKnowledgebaseInput = z.infer<typeof CreateKnowledgebaseBody>;

export const UpdateKnowledgebaseBody = z.object({ name: name().optional(), description: description().optional() });
export type UpdateKnowledgebaseInput = z.infer<typeof UpdateKnowledgebaseBody>;

/**
 * A document create, by JSON or by form (live-platform C.1): a form sends every field
 * as text, so the link limit also reads a digit string (Laravel's integer rule does);
 * `file` is a file only when a form carried one.
 */
export const CreateDocumentBody = z.object({
  name: name(),
  description: description().optional(),
  type: oneOf(DOCUMENT_TYPES),
  url: url().optional(),
  links: z.array(z.object({ link: url() })).min(1).optional(),
  relative_links_limit: queryInt()
    .pipe(z.int().min(RELATIVE_LINKS.min, { error: 'The :attribute must be between 1 and 50.' }).max(RELATIVE_LINKS.max, { error: 'The :attribute must be between 1 and 50.' }))
    .optional(),
  file: z.unknown().optional(),
});
export type CreateDocumentInput = z.infer<typeof CreateDocumentBody>;

export const UpdateDocumentBody = z.object({ name: name().optional(), description: description().optional() });
export type UpdateDocumentInput = z.infer<typeof UpdateDocumentBody>;

/** Whether a value is a file a form carried. */
export function isUpload(value: unknown): value is UploadedFile {
  return value instanceof UploadedFile;
}

const LABELS: Record<KnowledgebaseStatus | DocumentType, string> = {
  empty: 'Empty',
  processing: 'Processing',
  active: 'Active',
  failed: 'Failed',
  website: 'Website',
  pdf: 'PDF',
  // live-platform C.1: the labels of the last two are a decision.
  txt: 'TXT',
  docx: 'DOCX',
};

/** A knowledge base with what is derived from its documents and assistants. */
export interface KnowledgebaseView {
  kb: Knowledgebase;
  status: KnowledgebaseStatus;
  documents_count: number;
  assistants_count: number;
}

/** The status word of the wire: the spec wire writes `active` as `ready`, the fixtures' word (live-platform C.1, decision). */
function statusOn(wire: Wire, status: KnowledgebaseStatus): string {
  return wire === 'spec' && status === 'active' ? 'ready' : status;
}

/** The knowledge base record (decisions: Knowledge bases; live-platform C.1: `status_label` on the live wire only). */
export function serialiseKnowledgebase({ kb, status, documents_count, assistants_count }: KnowledgebaseView, wire: Wire) {
  return {
    id: kb.id,
    name: kb.name,
    description: kb.description,
    status: statusOn(wire, status),
    ...(wire === 'live' && { status_label: LABELS[status] }),
    documents_count,
    assistants_count,
    created_at: formatIsoUtc(kb.created_at),
    updated_at: formatIsoUtc(kb.updated_at),
  };
}

/**
 * The `data` of a create or update answer: the full record on the spec wire; on the live
 * wire the record without its counts, and an update also without `created_at` (live-platform C.1).
 */
export function serialiseWrittenKnowledgebase(view: KnowledgebaseView, wire: Wire, write: 'create' | 'update') {
  const record = serialiseKnowledgebase(view, wire);
  if (wire === 'spec') return record;
  const { documents_count: _documents, assistants_count: _assistants, created_at, ...rest } = record;
  const { updated_at, ...head } = rest;
  return write === 'create' ? { ...head, created_at, updated_at } : { ...head, updated_at };
}

/** The document record, the same on both wires (live-platform C.1); `omit` drops a timestamp from write answers. */
export function serialiseDocument(d: KnowledgebaseDocument, omit?: 'created_at' | 'updated_at') {
  return {
    id: d.id,
    name: d.name,
    description: d.description,
    type: d.type,
    type_label: LABELS[d.type],
    status: d.status,
    status_label: LABELS[d.status],
    ...(omit !== 'created_at' && { created_at: formatIsoUtc(d.created_at) }),
    ...(omit !== 'updated_at' && { updated_at: formatIsoUtc(d.updated_at) }),
  };
}

/** A document with its stored source, for the control API (never on the platform's wire). */
export function serialiseStoredDocument(d: KnowledgebaseDocument) {
  return {
    id: d.id,
    account_id: d.account_id,
    knowledgebase_id: d.knowledgebase_id,
    name: d.name,
    type: d.type,
    status: d.status,
    url: d.url,
    links: d.links === null ? null : [...d.links],
    relative_links_limit: d.relative_links_limit,
    file_name: d.file_name,
    file_size: d.file_size,
    created_at: formatIsoUtc(d.created_at),
    updated_at: formatIsoUtc(d.updated_at),
  };
}
