/**
 * Mid-call tools called for real (live-platform H.10): the request a tool makes from its
 * record and a script's arguments, the call by name from a call or a chat, and the test
 * call with the reference's dummy values. The request itself goes through the webhook
 * engine (`ctx.callTool`, ARCHITECTURE §4), which journals it.
 */
import { fillPromptVariables, systemValues, type SystemValues } from '../../core/prompt-variables.js';
import type { OutboundRequest, ToolCall } from '../../engine/webhooks.js';
import type { Assistant } from '../assistants/schema.js';
import type { AccountCtx } from '../context.js';
import type { Tool } from './schema.js';

/** What a tool's texts are filled from (live-platform H.8): the system variables and the call's or chat's variables. */
export interface ToolFacts {
  system: SystemValues | (() => SystemValues);
  variables: Readonly<Record<string, unknown>>;
}

/** Who made the call: a call (its id), a chat (its conversation's uuid), or neither (a test call). */
export type ToolOrigin = { call_id: number } | { conversation_id: string } | Record<string, never>;

/** Methods that send the arguments as a JSON body; the others (GET, DELETE) send them as the query (live-platform H.10, decision). */
const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

export const TOOL_CALL_MESSAGES = {
  notAttached: (name: string) => `No tool named "${name}" is attached to the assistant: no request was made.`,
} as const;

const has = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);

/** An argument as text: a string as it is, anything else as JSON (`1`, `true`). */
function argumentText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? '';
}

/** A path placeholder `{name}`; a double-brace variable is matched first and left to the filler. */
const PATH_PARAMETER = /\{\{[^{}]*\}\}|\{([A-Za-z][A-Za-z0-9_]*)\}/g;

/**
 * The request a tool makes with `args` (live-platform H.10): the tool's method; its endpoint
 * with each `{param}` replaced by the URL-encoded argument and the prompt variables filled
 * (URL-encoded); GET and DELETE send the other arguments as the query, POST, PUT and PATCH
 * as a JSON body with `content-type: application/json`; the tool's headers with their
 * variables filled. Text arguments have their variables filled too (the static fields).
 * @example toolRequest(tool, { order_id: 'BST-1' }, facts) // { method: 'GET', url: 'https://shop.example/orders/BST-1', headers: {}, body: null }
 */
export function toolRequest(tool: Pick<Tool, 'endpoint' | 'method' | 'headers'>, args: Readonly<Record<string, unknown>>, facts: ToolFacts): OutboundRequest {
  let known: SystemValues | undefined;
  const system = () => (known ??= typeof facts.system === 'function' ? facts.system() : facts.system);
  const fill = (text: string) => fillPromptVariables(text, system, facts.variables);
  const values: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) values[name] = typeof value === 'string' ? fill(value) : value;
  const rest = { ...values };
  const pathed = tool.endpoint.replace(PATH_PARAMETER, (whole, name: string | undefined) => {
    if (name === undefined || !has(values, name)) return whole;
    delete rest[name];
    return encodeURIComponent(argumentText(values[name]));
  });
  // Values filled into a URL are URL-encoded, so a name with a space or an `&` stays one value.
  const encodedSystem = () => Object.fromEntries(Object.entries(system()).map(([k, v]) => [k, encodeURIComponent(v)])) as unknown as SystemValues;
  const encodedVariables = Object.fromEntries(Object.entries(facts.variables).map(([k, v]) => [k, v === undefined || v === null ? v : encodeURIComponent(argumentText(v))]));
  let url = fillPromptVariables(pathed, encodedSystem, encodedVariables);
  const method = tool.method.toUpperCase();
  const headers: Record<string, string> = {};
  const withBody = BODY_METHODS.has(method);
  const ownType = Object.keys(tool.headers).some((name) => name.toLowerCase() === 'content-type');
  if (withBody && !ownType) headers['content-type'] = 'application/json';
  for (const [name, value] of Object.entries(tool.headers)) headers[name] = fill(value);
  if (!withBody) {
    const query = Object.entries(rest).map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(argumentText(value))}`);
    if (query.length > 0) url += (url.includes('?') ? '&' : '?') + query.join('&');
  }
  return { method, url, headers, body: withBody ? JSON.stringify(rest) : null };
}

/**
 * Calls the tool named `name` among those attached to `assistant` (`tool_ids`) with `args`
 * and waits for its answer (live-platform H.10). A name no attached tool has makes no
 * request: the record says why.
 */
export function callToolByName(ctx: AccountCtx, assistant: Assistant, name: string, args: Readonly<Record<string, unknown>>, facts: ToolFacts, origin: ToolOrigin): Promise<ToolCall> {
  const tool = assistant.tool_ids.map((id) => ctx.tools.get(id)).find((t) => t?.name === name);
  if (!tool) {
    const named = ctx.tools.list((t) => t.name === name)[0];
    return ctx.callTool({ tool_id: named?.id ?? null, tool: name, ...origin, request: null, timeoutMs: 0, error: TOOL_CALL_MESSAGES.notAttached(name) });
  }
  return ctx.callTool({ tool_id: tool.id, tool: tool.name, ...origin, request: toolRequest(tool, args, facts), timeoutMs: tool.timeout * 1000 });
}

/**
 * The reference's dummy arguments of a tool's parameters (live-platform H.10): `"test"`
 * for a string, 1 for a number, true for a boolean.
 * @example dummyArguments({ type: 'object', properties: { order_id: { type: 'string' } } }) // { order_id: 'test' }
 */
export function dummyArguments(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, { type?: unknown } | undefined>;
  const args: Record<string, unknown> = {};
  for (const [name, p] of Object.entries(properties)) {
    args[name] = p?.type === 'number' || p?.type === 'integer' ? 1 : p?.type === 'boolean' ? true : 'test';
  }
  return args;
}

/**
 * `POST /__sim/tools/{id}/test`: calls the tool with the dummy arguments, outside any call
 * or chat (live-platform H.10). The system variables have no call to come from: the
 * date and time are the account's now, the rest empty.
 */
export function testTool(ctx: AccountCtx, tool: Tool): Promise<ToolCall> {
  const facts: ToolFacts = {
    system: () => systemValues({ customer_phone: null, assistant_phone: null, assistant_uuid: '', assistant_name: '', at: ctx.now(), timezone: ctx.account.timezone }),
    variables: {},
  };
  return ctx.callTool({ tool_id: tool.id, tool: tool.name, request: toolRequest(tool, dummyArguments(tool.schema), facts), timeoutMs: tool.timeout * 1000 });
}
