/**
 * Folder and label operations (live-platform C.3): every operation under both path
 * spellings, the docs' singular and the MCP server's plural, as one operation.
 */
import { MessageAnswer, withMessage } from '../../core/answers.js';
import { alias, ok, type RouteDef } from '../../core/http.js';
import { paginate } from '../../core/pagination.js';
import { pathId } from '../ids.js';
import { userRoute, type RouteCtx } from '../routing.js';
import { CreateFolderLabelBody, FolderLabelList, FolderLabelListQuery, FolderLabelRecord, UpdateFolderLabelBody, listBody, serialiseFolderLabel, type FolderOrLabel, type FolderLabelKind } from './schema.js';
import { FOLDER_LABEL_MESSAGES, assistantsOf, createFolderOrLabel, deleteFolderOrLabel, listFoldersOrLabels, updateFolderOrLabel } from './service.js';
import type { AccountCtx } from '../context.js';

function record(ctx: AccountCtx, kind: FolderLabelKind) {
  return (g: FolderOrLabel) => serialiseFolderLabel(g, assistantsOf(ctx, kind, g.id).length);
}

/** The four operations of one kind, first under `/user/<kind>` then aliased under `/user/<kind>s`. */
function folderLabelRoutes(kind: FolderLabelKind): RouteDef<RouteCtx>[] {
  const one = `/user/${kind}`;
  const many = `/user/${kind}s`;
  const texts = FOLDER_LABEL_MESSAGES[kind];
  const list = userRoute({
    method: 'GET', path: many, query: FolderLabelListQuery, responses: () => ({ 200: FolderLabelList }),
    handle: ({ ctx, query }) => ok(listBody(paginate(listFoldersOrLabels(ctx, kind), query.page, query.per_page, record(ctx, kind)), ctx.wire)),
  });
  const create = userRoute({
    method: 'POST', path: one, body: CreateFolderLabelBody, responses: () => ({ 201: withMessage(FolderLabelRecord) }),
    handle: ({ ctx, body }) => ok({ message: texts.created, data: record(ctx, kind)(createFolderOrLabel(ctx, kind, body)) }, 201),
  });
  const update = userRoute({
    method: 'PUT', path: `${one}/:id`, body: UpdateFolderLabelBody, responses: () => ({ 200: withMessage(FolderLabelRecord) }),
    handle: ({ ctx, body, params }) => ok({ message: texts.updated, data: record(ctx, kind)(updateFolderOrLabel(ctx, kind, pathId(params.id), body)) }),
  });
  const remove = userRoute({
    method: 'DELETE', path: `${one}/:id`, responses: () => ({ 200: MessageAnswer }),
    handle: ({ ctx, params }) => (deleteFolderOrLabel(ctx, kind, pathId(params.id)), ok({ message: texts.deleted })),
  });
  return [
    list, alias(list, 'GET', one),
    create, alias(create, 'POST', many),
    update, alias(update, 'PUT', `${many}/:id`),
    remove, alias(remove, 'DELETE', `${many}/:id`),
  ];
}

export const folderRoutes = folderLabelRoutes('folder');
export const labelRoutes = folderLabelRoutes('label');
