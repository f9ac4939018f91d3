/** Custom mid-call tools (decisions: Custom mid-call tools; live-platform C.2): CRUD under the plan's limit. */
import { shapeA } from '../../core/errors.js';
import { copyJson } from '../../core/json.js';
import { texts } from '../../core/wire.js';
import type { AccountCtx } from '../context.js';
import { TOOL_TIMEOUT, headersFrom, schemaFrom, type CreateToolInput, type Tool, type UpdateToolInput } from './schema.js';

export const TOOL_MESSAGES = {
  created: 'Tool created successfully',
  updated: 'Tool updated successfully',
  deleted: 'Tool deleted successfully',
  notFound: texts('Tool not found.', 'Tool not found'),
  planLimit: (max: number) => `You have reached your plan limit of ${max} mid call tools. Please upgrade your plan to create more tools.`,
} as const;

export const toolErrors = {
  notFound: () => shapeA(404, TOOL_MESSAGES.notFound),
  planLimit: (max: number) => shapeA(422, TOOL_MESSAGES.planLimit(max)),
};

export function listTools(ctx: AccountCtx): Tool[] {
  return ctx.tools.list();
}

/** An own tool, else the family 404 (a foreign id looks missing). */
export function findTool(ctx: AccountCtx, id: number): Tool {
  const tool = ctx.tools.get(id);
  if (!tool) throw toolErrors.notFound();
  return tool;
}

/** live-platform C.2: an account holds at most `plan.max_tools` tools, the fixture tools included; checked before validation. */
export function checkToolLimit(ctx: AccountCtx): void {
  const max = ctx.account.plan.max_tools;
  if (ctx.tools.count() >= max) throw toolErrors.planLimit(max);
}

export function createTool(ctx: AccountCtx, input: CreateToolInput): Tool {
  const now = ctx.now();
  return ctx.tools.insert({
    name: input.name,
    description: input.description,
    endpoint: input.endpoint,
    method: input.method,
    timeout: input.timeout ?? TOOL_TIMEOUT.default,
    headers: headersFrom(input.headers ?? []),
    schema: schemaFrom(input.schema ?? []),
    created_at: now,
    updated_at: now,
  });
}

/** Changes the given fields; `headers` and `schema` replace the stored ones. */
export function updateTool(ctx: AccountCtx, id: number, input: UpdateToolInput): Tool {
  findTool(ctx, id);
  const { headers, schema, ...rest } = input;
  return ctx.tools.update(id, {
    ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)),
    ...(headers !== undefined && { headers: headersFrom(headers) }),
    ...(schema !== undefined && { schema: schemaFrom(schema) }),
    updated_at: ctx.now(),
  });
}

/** Deletes a tool and takes its id out of every assistant's `tool_ids` (live-platform C.2). */
export function deleteTool(ctx: AccountCtx, id: number): void {
  const tool = findTool(ctx, id);
  for (const assistant of ctx.assistants.list((a) => a.tool_ids.includes(tool.id))) {
    ctx.assistants.update(assistant.id, { tool_ids: assistant.tool_ids.filter((t) => t !== tool.id) });
  }
  ctx.tools.delete(tool.id);
}

/** Copies the fixture tools into a new account created at `now` (decisions: Fixtures for every account). */
export function provisionTools(ctx: AccountCtx, now: number): void {
  for (const tool of ctx.catalog.toolTemplates) ctx.tools.insert({ ...copyJson(tool), created_at: now, updated_at: now });
}
