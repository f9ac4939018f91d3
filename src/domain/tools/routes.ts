/** Custom mid-call tool operations (decisions: Custom mid-call tools; live-platform C.2). */
import { ok } from '../../core/http.js';
import { pathId } from '../ids.js';
import { userRoute } from '../routing.js';
import { CreateToolBody, UpdateToolBody, serialiseTool } from './schema.js';
import { TOOL_MESSAGES, checkToolLimit, createTool, deleteTool, findTool, listTools, updateTool } from './service.js';

export const toolRoutes = [
  userRoute({
    method: 'GET', path: '/user/tools',
    handle: ({ ctx }) => ok(listTools(ctx).map((t) => serialiseTool(t, ctx.wire))),
  }),
  userRoute({
    method: 'GET', path: '/user/tools/:id',
    handle: ({ ctx, params }) => ok(serialiseTool(findTool(ctx, pathId(params.id)), ctx.wire)),
  }),
  userRoute({
    // live-platform C.2: the plan's limit answers before validation.
    method: 'POST', path: '/user/tools', body: CreateToolBody, guard: checkToolLimit,
    handle: ({ ctx, body }) => ok({ message: TOOL_MESSAGES.created, data: serialiseTool(createTool(ctx, body), ctx.wire) }, 201),
  }),
  userRoute({
    method: 'PUT', path: '/user/tools/:id', body: UpdateToolBody,
    handle: ({ ctx, body, params }) => ok({ message: TOOL_MESSAGES.updated, data: serialiseTool(updateTool(ctx, pathId(params.id), body), ctx.wire) }),
  }),
  userRoute({
    method: 'DELETE', path: '/user/tools/:id',
    handle: ({ ctx, params }) => {
      deleteTool(ctx, pathId(params.id));
      return ok({ message: TOOL_MESSAGES.deleted });
    },
  }),
];
