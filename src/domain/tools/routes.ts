/** Custom mid-call tool operations (decisions: Custom mid-call tools; live-platform C.2). */
import * as z from 'zod';
import { MessageAnswer, perWire, withMessage } from '../../core/answers.js';
import { ok } from '../../core/http.js';
import { pathId } from '../ids.js';
import { userRoute } from '../routing.js';
import { CreateToolBody, LiveToolRecord, ToolRecord, UpdateToolBody, serialiseTool } from './schema.js';

/** A tool in the wire's record. */
const ToolAnswer = lazySchema(() => perWire(ToolRecord, LiveToolRecord));
import { TOOL_MESSAGES, checkToolLimit, createTool, deleteTool, findTool, listTools, updateTool } from './service.js';
import { lazySchema } from '../../core/lazy-schema.js';

export const toolRoutes = [
  userRoute({
    method: 'GET', path: '/user/tools', responses: () => ({ 200: z.array(ToolAnswer) }),
    handle: ({ ctx }) => ok(listTools(ctx).map((t) => serialiseTool(t, ctx.wire))),
  }),
  userRoute({
    method: 'GET', path: '/user/tools/:id', responses: () => ({ 200: ToolAnswer }),
    handle: ({ ctx, params }) => ok(serialiseTool(findTool(ctx, pathId(params.id)), ctx.wire)),
  }),
  userRoute({
    // live-platform C.2: the plan's limit answers before validation.
    method: 'POST', path: '/user/tools', body: CreateToolBody, guard: checkToolLimit, responses: () => ({ 201: withMessage(ToolAnswer) }),
    handle: ({ ctx, body }) => ok({ message: TOOL_MESSAGES.created, data: serialiseTool(createTool(ctx, body), ctx.wire) }, 201),
  }),
  userRoute({
    method: 'PUT', path: '/user/tools/:id', body: UpdateToolBody, responses: () => ({ 200: withMessage(ToolAnswer) }),
    handle: ({ ctx, body, params }) => ok({ message: TOOL_MESSAGES.updated, data: serialiseTool(updateTool(ctx, pathId(params.id), body), ctx.wire) }),
  }),
  userRoute({
    method: 'DELETE', path: '/user/tools/:id', responses: () => ({ 200: MessageAnswer }),
    handle: ({ ctx, params }) => {
      deleteTool(ctx, pathId(params.id));
      return ok({ message: TOOL_MESSAGES.deleted });
    },
  }),
];
