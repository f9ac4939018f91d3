/**
 * Folders and labels (live-platform C.3): two kinds of one record, `{id, name, color,
 * assistants_count}`, with the same rules. An assistant sits in at most one folder and
 * carries any number of labels.
 */
import * as z from 'zod';
import { integer } from '../../core/answers.js';
import { pageQuery, pageSchema, type Page } from '../../core/pagination.js';
import { oneOf, str } from '../../core/validation.js';
import type { Wire } from '../../core/wire.js';
import { lazySchema } from '../../core/lazy-schema.js';

/** The colours a folder or label may take (live-platform C.3). */
export const FOLDER_LABEL_COLORS = ['gray', 'slate', 'red', 'orange', 'amber', 'green', 'teal', 'blue', 'purple', 'pink'] as const;
export type FolderLabelColor = (typeof FOLDER_LABEL_COLORS)[number];

/** The two kinds, named as the platform's words. */
export const FOLDER_LABEL_KINDS = ['folder', 'label'] as const;
export type FolderLabelKind = (typeof FOLDER_LABEL_KINDS)[number];

/** A stored folder or label. */
export interface FolderOrLabel {
  id: number;
  account_id: number;
  name: string;
  color: FolderLabelColor | null;
  created_at: number;
  updated_at: number;
}
export type Folder = FolderOrLabel;
export type Label = FolderOrLabel;

const name = () => str(255).min(1);
const color = () => oneOf(FOLDER_LABEL_COLORS).nullable();

/** Create: `name` required (≤255), `color` optional (null or one of the colours). */
export const CreateFolderLabelBody = lazySchema(() => z.object({ name: name(), color: color().optional() }));
export type CreateFolderLabelInput = z.infer<typeof CreateFolderLabelBody>;

/** Update: both optional; `color: null` clears it. */
export const UpdateFolderLabelBody = lazySchema(() => z.object({ name: name().optional(), color: color().optional() }));
export type UpdateFolderLabelInput = z.infer<typeof UpdateFolderLabelBody>;

/** List: `page` ≥1, `per_page` 1-100, default 15 (live-platform C.3). */
export const FolderLabelListQuery = lazySchema(() => pageQuery(15));

/** The record of both wires. */
/** A folder or a label (live-platform C.3): `{id, name, color, assistants_count}`. */
export const FolderLabelRecord = lazySchema(() => z
  .object({ id: integer(), name: z.string(), color: z.enum(FOLDER_LABEL_COLORS).nullable(), assistants_count: integer() })
  .meta({ id: 'Folder' }));
export type FolderLabelRecord = z.output<typeof FolderLabelRecord>;

/** The list: the spec's page, or on the live wire its four keys (live-platform C.3). */
export const FolderLabelList = lazySchema(() => z.union([
  pageSchema(FolderLabelRecord),
  z.object({ data: z.array(FolderLabelRecord), current_page: integer(), per_page: integer(), total: integer() }),
]));

export function serialiseFolderLabel(g: FolderOrLabel, assistantsCount: number): FolderLabelRecord {
  return { id: g.id, name: g.name, color: g.color, assistants_count: assistantsCount };
}

/**
 * The list body: the spec's page form, or on the live wire exactly the four keys the
 * live docs show (live-platform C.3, decision).
 * @example listBody(page, 'live') // { data, current_page, per_page, total }
 */
export function listBody<T>(page: Page<T>, wire: Wire) {
  if (wire === 'spec') return page;
  return { data: page.data, current_page: page.current_page, per_page: page.per_page, total: page.total };
}
