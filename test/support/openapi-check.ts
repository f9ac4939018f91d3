/**
 * Every exchange the contract suites and the sandbox registry's tests make is checked
 * against the OpenAPI document a server serves (src/control/openapi.ts of SERVER_ROUTES:
 * the simulator's operations and the registry's), both ways:
 * - every answer: the operation of its method and path, the response of its status
 *   class, the schema of that response;
 * - every request the server accepted (a 2xx answer), as a validating proxy in front of
 *   the server would read it: the credentials against the operation's `security`, the
 *   path and query parameters against `parameters` (text read by the schema's type, as
 *   validators coerce it; `ids[]=` and repeated keys as arrays; a query key the document
 *   does not name is refused), the body against the `requestBody` content of its media
 *   type (JSON, or `multipart/form-data` with its file parts as `format: binary`); a body
 *   sent to an operation without a `requestBody` is refused.
 * A drift between the document and what the routes take or answer fails the test that saw it.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { parse as parseYaml } from 'yaml';
import { openApiDocument } from '../../src/control/openapi.js';
import { SERVER_ROUTES } from '../../src/sandboxes/host.js';
import { foldQuery } from '../../src/core/http.js';
import { trimInput, trimQuery } from '../../src/core/input.js';
import type { Wire } from '../../src/core/wire.js';

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema: object;
}

interface Operation {
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: object }> };
  responses: Record<string, { content?: { 'application/json'?: { schema: object } } }>;
}

interface SecurityScheme {
  type: string;
  scheme?: string;
}

// The document a server serves: the simulator's operations and the sandbox registry's (src/sandboxes/host.ts).
const document = openApiDocument(SERVER_ROUTES) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, object>; securitySchemes: Record<string, SecurityScheme> };
};
const ajv = new Ajv2020({ strict: false, allErrors: false, inlineRefs: false });
// Parameters and a form's fields travel as text: a validator reads them by the schema's type (ajv's coercion, as
// express-openapi-validator and openapi-backend do), one value of an array parameter being an array of one.
const coercing = new Ajv2020({ strict: false, allErrors: false, coerceTypes: 'array', inlineRefs: false });
// A file part is bytes, never read as JSON (OpenAPI 3.1: `format: binary`).
for (const instance of [ajv, coercing]) instance.addFormat('binary', true);

/** Each documented path as a pattern over the request path (`{id}` matches one segment, captured by its name). */
const templates = Object.entries(document.paths).map(([path, operations]) => ({
  pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{([^}]+?)\\?\}/g, '(?<$1>[^/]+)')}$`),
  operations,
}));

// Each of the document's shapes is a schema of its own, compiled once per instance when first referenced: the
// operations' schemas point at them ('#/components/schemas/X' becomes SHAPES + 'X'), instead of carrying every
// component along and compiling again each one they reference (some 40% of the compiling time went to that).
const SHAPES = 'https://voxsim.test/openapi/components/schemas/';

/** `schema` with its references to the document's shapes pointing at their own schemas. */
function rebased(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebased);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/') ? `${SHAPES}${value.slice('#/components/schemas/'.length)}` : rebased(value),
    ]),
  );
}
for (const instance of [ajv, coercing]) {
  for (const [name, shape] of Object.entries(document.components.schemas)) instance.addSchema({ ...(rebased(shape) as object), $id: `${SHAPES}${name}` });
}

const compiled = new Map<Ajv2020, Map<object, ValidateFunction>>([
  [ajv, new Map()],
  [coercing, new Map()],
]);
function validator(schema: object, by: Ajv2020 = ajv): ValidateFunction {
  const cache = compiled.get(by)!;
  let validate = cache.get(schema);
  if (!validate) {
    validate = by.compile(rebased(schema) as object);
    cache.set(schema, validate);
  }
  return validate;
}

/** The operation of `method path` (path relative to the base URL, without its query) and its path parameters as sent. */
function operationOf(method: string, path: string): { operation?: Operation; params: Record<string, string> } {
  const verb = method.toLowerCase();
  // A template and a literal path may both match (`/user/phone-numbers/{id}` and `/user/phone-numbers/search`): the one with this method is the operation.
  const matches = templates.flatMap((t) => {
    const match = t.pattern.exec(path);
    return match ? [{ operations: t.operations, params: { ...match.groups } }] : [];
  });
  const chosen = matches.find((m) => m.operations[verb]) ?? matches[0];
  return { operation: chosen?.operations[verb], params: chosen?.params ?? {} };
}

/** The documented schema of `method path` answering `status`, or undefined when the path is not a route (a 404/405 of the router). */
function documented(method: string, path: string, status: number): object | undefined {
  const responses = operationOf(method, path).operation?.responses ?? document.paths['/__sim/health']!.get!.responses;
  // A success is documented by its exact status; an error by its class (4XX, 5XX).
  return (responses[String(status)] ?? (status >= 400 ? responses[`${Math.floor(status / 100)}XX`] : undefined))?.content?.['application/json']?.schema;
}

/**
 * Throws when `body`, answered with `status` to `method path` (path relative to the
 * base URL, without its query), is not what the document says.
 */
export function checkAgainstOpenApi(method: string, path: string, status: number, body: unknown): void {
  if (body === undefined) return;
  const schema = documented(method, path, status);
  if (schema === undefined) throw new Error(`OpenAPI: no response ${status} documented for ${method} ${path}`);
  const validate = validator(schema);
  if (!validate(body)) {
    throw new Error(`OpenAPI: ${method} ${path} answered ${status} with a body the document does not allow: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
  }
}

/** A request as a client sent it. */
export interface SentRequest {
  method: string;
  /** The path relative to the base URL, with its query string when it has one. */
  target: string;
  headers: Record<string, string>;
  /** The body as sent: JSON (or YAML) text, or a form. */
  body?: string | FormData;
}

/**
 * Throws when `request`, which the server accepted (`status` 2xx), is not one the
 * document allows: a validating proxy would have refused what the server takes. On the
 * live wire the request is checked as the server reads it (live-platform G.3 item 3, as
 * docs/types-and-openapi.md says): its strings trimmed, an empty one null, an empty query
 * parameter left out.
 */
export function checkRequestAgainstOpenApi(request: SentRequest, status: number, wire: Wire = 'spec'): void {
  if (status < 200 || status > 299) return;
  const problems = requestProblems(wire === 'live' ? asLiveWireReads(request) : request);
  if (problems.length > 0) {
    throw new Error(`OpenAPI: ${request.method} ${request.target} was accepted (${status}), but the document does not allow the request: ${problems.join('; ')}`);
  }
}

/** A request as the live wire reads it: its query and JSON body trimmed (core/input.ts). */
function asLiveWireReads(request: SentRequest): SentRequest {
  const at = request.target.indexOf('?');
  const query = at < 0 ? '' : new URLSearchParams(Object.entries(trimQuery(foldQuery(new URLSearchParams(request.target.slice(at + 1))))).flatMap(([k, v]) => (v === undefined ? [] : Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]]))).toString();
  const target = `${at < 0 ? request.target : request.target.slice(0, at)}${query ? `?${query}` : ''}`;
  let body = request.body;
  if (typeof body === 'string' && body.trim().startsWith('{')) {
    try {
      body = JSON.stringify(trimInput(JSON.parse(body)));
    } catch {
      // Not JSON after all (a YAML scenario): checked as sent.
    }
  }
  return { ...request, target, ...(body !== undefined && { body }) };
}

/**
 * What a validating proxy finds wrong with `request` by the document; empty when nothing.
 * @example requestProblems({ method: 'GET', target: '/user/me', headers: {} }) // ['no credentials its security takes (apiKey)']
 */
export function requestProblems(request: SentRequest): string[] {
  const at = request.target.indexOf('?');
  const path = at < 0 ? request.target : request.target.slice(0, at);
  const { operation, params } = operationOf(request.method, path);
  if (operation === undefined) return [`no operation ${request.method} ${path} in the document`];
  return [
    ...securityProblems(operation, headerOf(request.headers, 'authorization')),
    ...parameterProblems(operation, params, new URLSearchParams(at < 0 ? '' : request.target.slice(at + 1)), request.headers),
    ...bodyProblems(operation, request),
  ];
}

function headerOf(headers: Record<string, string>, name: string): string | undefined {
  return Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
}

/** One of the operation's security requirements is met: `{}` by anything, an http bearer scheme by a Bearer token. */
function securityProblems(operation: Operation, authorization: string | undefined): string[] {
  const requirements = operation.security ?? [{}];
  const bearer = authorization !== undefined && /^Bearer\s+\S+/i.test(authorization);
  const met = requirements.some((requirement) =>
    Object.keys(requirement).every((name) => {
      const scheme = document.components.securitySchemes[name];
      return scheme?.type === 'http' && scheme.scheme === 'bearer' && bearer;
    }),
  );
  return met ? [] : [`no credentials its security takes (${requirements.map((r) => Object.keys(r).join('+') || 'none').join(' or ')})`];
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function parameterProblems(operation: Operation, params: Record<string, string>, search: URLSearchParams, headers: Record<string, string>): string[] {
  const declared = operation.parameters ?? [];
  const problems: string[] = [];
  // The query as a form-style, exploded reading takes it (OpenAPI's default for query parameters): a repeated key
  // is an array, and `name[]` (qs and PHP's spelling) is `name` when the document has no parameter called `name[]`.
  const query = new Map<string, string[]>();
  for (const [key, value] of search) {
    const name = key.endsWith('[]') && !declared.some((p) => p.in === 'query' && p.name === key) ? key.slice(0, -2) : key;
    query.set(name, [...(query.get(name) ?? []), value]);
  }
  for (const name of query.keys()) {
    if (!declared.some((p) => p.in === 'query' && p.name === name)) problems.push(`query parameter ${name} is not in the document`);
  }
  for (const parameter of declared) {
    const values = parameter.in === 'path' ? [decoded(params[parameter.name] ?? '')] : parameter.in === 'query' ? query.get(parameter.name) : parameter.in === 'header' ? [headerOf(headers, parameter.name.toLowerCase())].filter((v) => v !== undefined) : undefined;
    if (values === undefined || values.length === 0) {
      if (parameter.required) problems.push(`${parameter.in} parameter ${parameter.name} is required`);
      continue;
    }
    // Wrapped in an object, so ajv's coercion has a place to put the value it reads.
    const validate = validator(parameterSchema(parameter), coercing);
    if (!validate({ value: values.length === 1 ? values[0] : values })) {
      problems.push(`${parameter.in} parameter ${parameter.name}=${values.join(',')}: ${coercing.errorsText(validate.errors?.map((e) => ({ ...e, instancePath: e.instancePath.replace(/^\/value/, '') })), { dataVar: parameter.name })}`);
    }
  }
  return problems;
}

const wrapped = new WeakMap<Parameter, object>();
function parameterSchema(parameter: Parameter): object {
  let schema = wrapped.get(parameter);
  if (!schema) wrapped.set(parameter, (schema = { type: 'object', properties: { value: parameter.schema } }));
  return schema;
}

function bodyProblems(operation: Operation, request: SentRequest): string[] {
  const content = operation.requestBody?.content;
  const { body } = request;
  if (body instanceof FormData) {
    const media = content?.['multipart/form-data'];
    if (media === undefined) return ['a multipart/form-data body, which the operation does not take'];
    const validate = validator(media.schema, coercing);
    return validate(formFields(body)) ? [] : [`form body: ${coercing.errorsText(validate.errors, { dataVar: 'body' })}`];
  }
  if (body === undefined || body.trim() === '') return operation.requestBody?.required ? ['no body, which the operation requires'] : [];
  // A body to an operation the document gives no requestBody: a validating proxy refuses it, and a document that
  // lost an operation's body (a schema dropped from its route) must not pass for one whose body is never read.
  if (content === undefined) return ['a body, which the operation does not take (it has no requestBody)'];
  const type = (headerOf(request.headers, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const media = content[type];
  if (media === undefined) return [`a ${type || 'untyped'} body, which the operation does not take (${Object.keys(content).join(', ')})`];
  let parsed: unknown;
  try {
    // YAML (a scenario) is read as YAML, anything else as JSON (the media types the document names).
    parsed = type.endsWith('yaml') ? parseYaml(body) : JSON.parse(body);
  } catch {
    return [`a body that is not ${type}`];
  }
  const validate = validator(media.schema);
  return validate(parsed) ? [] : [`body: ${ajv.errorsText(validate.errors, { dataVar: 'body' })}`];
}

/** A form's fields as a validator reads them: text as text, a file as its (binary) content, a repeated name as an array. */
function formFields(form: FormData): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [name, value] of form) {
    const field = typeof value === 'string' ? value : '';
    const prior = fields[name];
    fields[name] = prior === undefined ? field : [...(Array.isArray(prior) ? prior : [prior]), field];
  }
  return fields;
}
