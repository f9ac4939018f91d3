/** Wire shapes of knowledge bases and their documents (live-platform C.1, D.4, E). */
import * as z from 'zod';
import { integer, isoTimestamp } from '../../core/answers.js';
import { documentedAs } from '../../core/documented.js';
import { UploadedFile } from '../../core/multipart.js';
import { formatIsoUtc } from '../../core/time.js';
import { oneOf, queryInt, str, url } from '../../core/validation.js';
import type { Wire } from '../../core/wire.js';
import { lazySchema } from '../../core/lazy-schema.js';

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

export const CreateKnowledgebaseBody = lazySchema(() => z.object({ name: name(), description: description().optional() }));
export type CreateKnowledgebaseInput = z.infer<typeof CreateKnowledgebaseBody>;

export const UpdateKnowledgebaseBody = lazySchema(() => z.object({ name: name().optional(), description: description().optional() }));
export type UpdateKnowledgebaseInput = z.infer<typeof UpdateKnowledgebaseBody>;

/**
 * A document create, by JSON or by form (live-platform C.1): a form sends every field
 * as text, so the link limit also reads a digit string (Laravel's integer rule does);
 * `file` is a file only when a form carried one.
 */
export const CreateDocumentBody = lazySchema(() => z.object({
  name: name(),
  description: description().optional(),
  type: oneOf(DOCUMENT_TYPES),
  url: url().optional(),
  links: z.array(z.object({ link: url() })).min(1).optional(),
  relative_links_limit: documentedAs(
    queryInt().pipe(z.int().min(RELATIVE_LINKS.min, { error: 'The :attribute must be between 1 and 50.' }).max(RELATIVE_LINKS.max, { error: 'The :attribute must be between 1 and 50.' })),
    { json: { anyOf: [{ type: 'integer', minimum: RELATIVE_LINKS.min, maximum: RELATIVE_LINKS.max }, { type: 'string', pattern: '^\\s*-?\\d+\\s*$' }] } },
  ).optional(),
  // A form's file part; JSON has no file (a `file` key there is no upload: 422 on file for a file type).
  file: documentedAs(z.unknown(), { json: {}, form: { type: 'string', format: 'binary', description: `The file (pdf, txt or docx), at most ${MAX_FILE_BYTES} bytes.` } }).optional(),
}));
export type CreateDocumentInput = z.infer<typeof CreateDocumentBody>;

export const UpdateDocumentBody = lazySchema(() => z.object({ name: name().optional(), description: description().optional() }));
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

/** The status word of the spec wire: `active` is written `ready`, the fixtures' word (live-platform C.1, decision). */
function specStatus(status: KnowledgebaseStatus): Exclude<KnowledgebaseStatus, 'active'> | 'ready' {
  return status === 'active' ? 'ready' : status;
}

/** The knowledge base record (decisions: Knowledge bases; live-platform C.1: `status_label` on the live wire only). */
/** A knowledge base on the spec wire (live-platform C.1: `ready` for active). */
export const KnowledgebaseRecord = lazySchema(() => z
  .object({
    id: integer(),
    name: z.string(),
    description: z.string().nullable(),
    status: z.enum(['empty', 'processing', 'ready', 'failed']),
    documents_count: integer(),
    assistants_count: integer(),
    created_at: isoTimestamp(),
    updated_at: isoTimestamp(),
  })
  .meta({ id: 'Knowledgebase' }));
export type KnowledgebaseRecord = z.output<typeof KnowledgebaseRecord>;

/** A knowledge base on the live wire, with its status label (live-platform C.1). */
export const LiveKnowledgebaseRecord = lazySchema(() => KnowledgebaseRecord.unwrap().extend({ status: z.enum(['empty', 'processing', 'active', 'failed']), status_label: z.string() }).meta({
  id: 'LiveKnowledgebase',
}));
export type LiveKnowledgebaseRecord = z.output<typeof LiveKnowledgebaseRecord>;

/** A created knowledge base on the live wire: no counts (live-platform C.1). */
export const LiveCreatedKnowledgebaseRecord = lazySchema(() => LiveKnowledgebaseRecord.unwrap().omit({ documents_count: true, assistants_count: true }).meta({ id: 'LiveCreatedKnowledgebase' }));
/** An updated knowledge base on the live wire: no counts, no `created_at` (live-platform C.1). */
export const LiveUpdatedKnowledgebaseRecord = lazySchema(() => LiveCreatedKnowledgebaseRecord.unwrap().omit({ created_at: true }).meta({ id: 'LiveUpdatedKnowledgebase' }));

/** A document (live-platform C.1): a create answers it without `updated_at`, an update without `created_at`. */
export const DocumentRecord = lazySchema(() => z
  .object({
    id: integer(),
    name: z.string(),
    description: z.string().nullable(),
    type: z.enum(DOCUMENT_TYPES),
    type_label: z.string(),
    status: z.enum(DOCUMENT_STATUSES),
    status_label: z.string(),
    created_at: isoTimestamp().optional(),
    updated_at: isoTimestamp().optional(),
  })
  .meta({ id: 'KnowledgebaseDocument' }));
export type DocumentRecord = z.output<typeof DocumentRecord>;

/** A document with its stored source (`GET /__sim/documents`). */
export const StoredDocumentRecord = lazySchema(() => z
  .object({
    id: integer(),
    account_id: integer(),
    knowledgebase_id: integer(),
    name: z.string(),
    type: z.enum(DOCUMENT_TYPES),
    status: z.enum(DOCUMENT_STATUSES),
    url: z.string().nullable(),
    links: z.array(z.string()).nullable(),
    relative_links_limit: integer().nullable(),
    file_name: z.string().nullable(),
    file_size: integer().nullable(),
    created_at: isoTimestamp(),
    updated_at: isoTimestamp(),
  })
  .meta({ id: 'StoredDocument' }));
export type StoredDocumentRecord = z.output<typeof StoredDocumentRecord>;

export function serialiseKnowledgebase({ kb, status, documents_count, assistants_count }: KnowledgebaseView, wire: Wire): KnowledgebaseRecord | LiveKnowledgebaseRecord {
  const { id, name, description } = kb;
  const created_at = formatIsoUtc(kb.created_at);
  const updated_at = formatIsoUtc(kb.updated_at);
  // One literal per wire, so each is checked against its record's schema.
  if (wire === 'spec') return { id, name, description, status: specStatus(status), documents_count, assistants_count, created_at, updated_at };
  return { id, name, description, status, status_label: LABELS[status], documents_count, assistants_count, created_at, updated_at };
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
export function serialiseDocument(d: KnowledgebaseDocument, omit?: 'created_at' | 'updated_at'): DocumentRecord {
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
export function serialiseStoredDocument(d: KnowledgebaseDocument): StoredDocumentRecord {
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
