/**
 * Folders and labels (live-platform C.3): one implementation for both kinds. Names are
 * unique per account and kind, compared case-insensitively (decision); deleting one
 * lets go of its assistants, which stay.
 */
import { shapeA } from '../../core/errors.js';
import { ErrorBag } from '../../core/validation.js';
import type { Assistant } from '../assistants/schema.js';
import type { AccountCtx, Scoped } from '../context.js';
import type { CreateFolderLabelInput, FolderOrLabel, FolderLabelKind, UpdateFolderLabelInput } from './schema.js';

export const FOLDER_LABEL_MESSAGES = {
  folder: {
    created: 'Folder created successfully',
    updated: 'Folder updated successfully',
    deleted: 'Folder deleted successfully',
    notFound: 'Folder not found',
  },
  label: {
    created: 'Label created successfully',
    updated: 'Label updated successfully',
    deleted: 'Label deleted successfully',
    notFound: 'Label not found',
  },
  nameTaken: 'The name has already been taken.',
} as const;

export const folderLabelErrors = {
  /** The family 404, the same on both wires (live-platform C.3). */
  notFound: (kind: FolderLabelKind) => shapeA(404, FOLDER_LABEL_MESSAGES[kind].notFound),
};

function table(ctx: AccountCtx, kind: FolderLabelKind): Scoped<FolderOrLabel> {
  return kind === 'folder' ? ctx.folders : ctx.labels;
}

/** The account's assistants filed in a folder or carrying a label. */
export function assistantsOf(ctx: AccountCtx, kind: FolderLabelKind, id: number): Assistant[] {
  return kind === 'folder' ? ctx.assistants.where('folder', id) : ctx.assistants.list((a) => (a.label_ids ?? []).includes(id));
}

/** Refuses a name another record of the kind holds in any letter case (decision: a clash is 422 B on `name`). */
function checkName(ctx: AccountCtx, kind: FolderLabelKind, name: string, selfId?: number): void {
  const wanted = name.toLowerCase();
  if (table(ctx, kind).list((g) => g.id !== selfId && g.name.toLowerCase() === wanted).length > 0) {
    new ErrorBag().add('name', FOLDER_LABEL_MESSAGES.nameTaken).throwIfAny();
  }
}

/** The account's folders or labels, in id order. */
export function listFoldersOrLabels(ctx: AccountCtx, kind: FolderLabelKind): FolderOrLabel[] {
  return table(ctx, kind).list();
}

/** The record, or the kind's 404 when it is missing or another account's. */
export function findFolderOrLabel(ctx: AccountCtx, kind: FolderLabelKind, id: number): FolderOrLabel {
  const found = table(ctx, kind).get(id);
  if (!found) throw folderLabelErrors.notFound(kind);
  return found;
}

/**
 * Creates a folder or label; `color` defaults to null.
 * @example createFolderOrLabel(ctx, 'folder', { name: 'Sales', color: 'blue' })
 */
export function createFolderOrLabel(ctx: AccountCtx, kind: FolderLabelKind, input: CreateFolderLabelInput): FolderOrLabel {
  checkName(ctx, kind, input.name);
  const now = ctx.now();
  return table(ctx, kind).insert({ name: input.name, color: input.color ?? null, created_at: now, updated_at: now });
}

/** Renames or recolours; omitted fields keep their values, `color: null` clears. The 404 comes before the name check. */
export function updateFolderOrLabel(ctx: AccountCtx, kind: FolderLabelKind, id: number, input: UpdateFolderLabelInput): FolderOrLabel {
  const found = findFolderOrLabel(ctx, kind, id);
  if (input.name !== undefined) checkName(ctx, kind, input.name, found.id);
  return table(ctx, kind).update(found.id, {
    ...(input.name !== undefined && { name: input.name }),
    ...(input.color !== undefined && { color: input.color }),
    updated_at: ctx.now(),
  });
}

/**
 * Deletes a folder or label. Its assistants stay: a folder's become uncategorised
 * (`folder_id` null), a label leaves every assistant's `label_ids` (live-platform C.3).
 */
export function deleteFolderOrLabel(ctx: AccountCtx, kind: FolderLabelKind, id: number): void {
  const found = findFolderOrLabel(ctx, kind, id);
  const now = ctx.now();
  for (const assistant of assistantsOf(ctx, kind, found.id)) {
    const patch = kind === 'folder' ? { folder_id: null } : { label_ids: (assistant.label_ids ?? []).filter((l) => l !== found.id) };
    ctx.assistants.update(assistant.id, { ...patch, updated_at: now });
  }
  table(ctx, kind).delete(found.id);
}
