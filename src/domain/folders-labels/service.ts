/**
 * Folders and labels (live-platform C.3): one implementation for both kinds. Names are
 * unique per account and kind, compared case-insensitively (decision); deleting one
 * lets go of its assistants, which stay.
 */
import { shapeA } from '../../core/errors.js';
import { ErrorBag } from '../../core/validation.js';
import type { Assistant } from '../assistants/schema.js';
import type { AccountCtx, Scoped } from '../context.js';
import type { CreateGroupingInput, Grouping, GroupingKind, UpdateGroupingInput } from './schema.js';

export const GROUPING_MESSAGES = {
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

export const groupingErrors = {
  /** The family 404, the same on both wires (live-platform C.3). */
  notFound: (kind: GroupingKind) => shapeA(404, GROUPING_MESSAGES[kind].notFound),
};

function table(ctx: AccountCtx, kind: GroupingKind): Scoped<Grouping> {
  return kind === 'folder' ? ctx.folders : ctx.labels;
}

/** The account's assistants filed in a folder or carrying a label. */
export function assistantsOf(ctx: AccountCtx, kind: GroupingKind, id: number): Assistant[] {
  return kind === 'folder' ? ctx.assistants.where('folder', id) : ctx.assistants.list((a) => (a.label_ids ?? []).includes(id));
}

/** Refuses a name another record of the kind holds in any letter case (decision: a clash is 422 B on `name`). */
function checkName(ctx: AccountCtx, kind: GroupingKind, name: string, selfId?: number): void {
  const wanted = name.toLowerCase();
  if (table(ctx, kind).list((g) => g.id !== selfId && g.name.toLowerCase() === wanted).length > 0) {
    new ErrorBag().add('name', GROUPING_MESSAGES.nameTaken).throwIfAny();
  }
}

/** The account's folders or labels, in id order. */
export function listGroupings(ctx: AccountCtx, kind: GroupingKind): Grouping[] {
  return table(ctx, kind).list();
}

/** The record, or the kind's 404 when it is missing or another account's. */
export function findGrouping(ctx: AccountCtx, kind: GroupingKind, id: number): Grouping {
  const found = table(ctx, kind).get(id);
  if (!found) throw groupingErrors.notFound(kind);
  return found;
}

/**
 * Creates a folder or label; `color` defaults to null.
 * @example createGrouping(ctx, 'folder', { name: 'Sales', color: 'blue' })
 */
export function createGrouping(ctx: AccountCtx, kind: GroupingKind, input: CreateGroupingInput): Grouping {
  checkName(ctx, kind, input.name);
  const now = ctx.now();
  return table(ctx, kind).insert({ name: input.name, color: input.color ?? null, created_at: now, updated_at: now });
}

/** Renames or recolours; omitted fields keep their values, `color: null` clears. The 404 comes before the name check. */
export function updateGrouping(ctx: AccountCtx, kind: GroupingKind, id: number, input: UpdateGroupingInput): Grouping {
  const found = findGrouping(ctx, kind, id);
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
export function deleteGrouping(ctx: AccountCtx, kind: GroupingKind, id: number): void {
  const found = findGrouping(ctx, kind, id);
  const now = ctx.now();
  for (const assistant of assistantsOf(ctx, kind, found.id)) {
    const patch = kind === 'folder' ? { folder_id: null } : { label_ids: (assistant.label_ids ?? []).filter((l) => l !== found.id) };
    ctx.assistants.update(assistant.id, { ...patch, updated_at: now });
  }
  table(ctx, kind).delete(found.id);
}
