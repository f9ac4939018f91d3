/**
 * Folder and label operations (live-platform C.3): every operation under both path
 * spellings, the docs' singular and the MCP server's plural, as one operation.
 */
import { alias, ok, type RouteDef } from '../../core/http.js';
import { paginate } from '../../core/pagination.js';
import { pathId } from '../ids.js';
import { userRoute, type RouteCtx } from '../routing.js';
import { CreateGroupingBody, GroupingListQuery, UpdateGroupingBody, listBody, serialiseGrouping, type Grouping, type GroupingKind } from './schema.js';
import { GROUPING_MESSAGES, assistantsOf, createGrouping, deleteGrouping, listGroupings, updateGrouping } from './service.js';
import type { AccountCtx } from '../context.js';

function record(ctx: AccountCtx, kind: GroupingKind) {
  return (g: Grouping) => serialiseGrouping(g, assistantsOf(ctx, kind, g.id).length);
}

/** The four operations of one kind, first under `/user/<kind>` then aliased under `/user/<kind>s`. */
function groupingRoutes(kind: GroupingKind): RouteDef<RouteCtx>[] {
  const one = `/user/${kind}`;
  const many = `/user/${kind}s`;
  const texts = GROUPING_MESSAGES[kind];
  const list = userRoute({
    method: 'GET', path: many, query: GroupingListQuery,
    handle: ({ ctx, query }) => ok(listBody(paginate(listGroupings(ctx, kind), query.page, query.per_page, record(ctx, kind)), ctx.wire)),
  });
  const create = userRoute({
    method: 'POST', path: one, body: CreateGroupingBody,
    handle: ({ ctx, body }) => ok({ message: texts.created, data: record(ctx, kind)(createGrouping(ctx, kind, body)) }, 201),
  });
  const update = userRoute({
    method: 'PUT', path: `${one}/:id`, body: UpdateGroupingBody,
    handle: ({ ctx, body, params }) => ok({ message: texts.updated, data: record(ctx, kind)(updateGrouping(ctx, kind, pathId(params.id), body)) }),
  });
  const remove = userRoute({
    method: 'DELETE', path: `${one}/:id`,
    handle: ({ ctx, params }) => (deleteGrouping(ctx, kind, pathId(params.id)), ok({ message: texts.deleted })),
  });
  return [
    list, alias(list, 'GET', one),
    create, alias(create, 'POST', many),
    update, alias(update, 'PUT', `${many}/:id`),
    remove, alias(remove, 'DELETE', `${many}/:id`),
  ];
}

export const folderRoutes = groupingRoutes('folder');
export const labelRoutes = groupingRoutes('label');
