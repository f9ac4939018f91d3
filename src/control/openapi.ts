/**
 * The OpenAPI 3.1 description of everything the simulator serves, platform API (spec and
 * live spellings) and control API alike, generated from the route table and the zod
 * schemas the routes validate with: nothing is written twice, so a new route or field
 * appears here by itself. Served at `{base_url}/__sim/openapi.json`, printed by
 * `voxsim openapi`.
 *
 * What the table knows is what the document says: method, path and path parameters, who
 * may call (bearer key, optional key, none, admin token), the request body and query as
 * the schemas read them (`z.toJSONSchema`, input side), and the error shapes of the
 * specification (Errors: A-E, and R for rate limits), and each success answer by its
 * status and the output schema the route names (`responses`, core/answers.ts): records are
 * `components/schemas` (their zod `id`), referenced from every answer that carries them;
 * an answer that differs per wire is `anyOf` the spec and the live schema *(ours)*.
 */
import * as z from 'zod';
import { inputDoc } from '../core/documented.js';
import type { RouteDef } from '../core/http.js';
import { VERSION } from '../version.js';
import { WEBHOOK_BODIES } from './schema.js';

/** A JSON Schema, as OpenAPI 3.1 takes it. */
type Schema = Record<string, unknown>;

/** The server URL of the document when none is given: the default `voxsim serve`. */
export const DEFAULT_SERVER_URL = 'http://127.0.0.1:4010/api';

/** The error shapes of the specification (spec: Errors), each allowing the extra members some answers carry. */
const ERROR_SHAPES: Record<string, Schema> = {
  ShapeA: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
  ShapeB: {
    type: 'object',
    required: ['message', 'errors'],
    properties: { message: { type: 'string' }, errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } } },
  },
  ShapeC: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } },
  ShapeD: {
    type: 'object',
    required: ['success', 'error', 'error_code'],
    properties: { success: { const: false }, error: { type: 'string' }, error_code: { type: 'string' } },
  },
  ShapeE: { type: 'object', required: ['status', 'error'], properties: { status: { const: false }, error: { type: 'string' } } },
  ShapeR: { type: 'object', required: ['message', 'retry_after'], properties: { message: { type: 'string' }, retry_after: { type: 'integer' } } },
};

const ERROR: Schema = { anyOf: Object.keys(ERROR_SHAPES).map((name) => ({ $ref: `#/components/schemas/${name}` })) };

/**
 * A zod schema as JSON Schema, input side (what a client sends); types JSON cannot state
 * (a custom check) are left open. A field marked with what it really takes
 * (core/documented.ts: an id as integer or string) shows that, as a JSON body or a
 * `multipart/form-data` body (`media`) takes it.
 */
function jsonSchema(schema: z.ZodType, media: 'json' | 'form' = 'json'): Schema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12', override: takes(media) }) as Schema;
  return rest;
}

/** Replaces the JSON Schema zod wrote for a marked field with what the field takes. */
function takes(media: 'json' | 'form') {
  return ({ zodSchema, jsonSchema }: { zodSchema: unknown; jsonSchema: Schema }): void => {
    const doc = inputDoc(zodSchema as z.ZodType);
    const shown = (media === 'form' ? doc?.form : undefined) ?? doc?.json;
    if (shown === undefined) return;
    for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
    Object.assign(jsonSchema, structuredClone(shown));
  };
}

/** Where a record's schema lives in the document: zod's `$defs` become the document's components. */
const COMPONENTS = '#/components/schemas/';

/**
 * A success answer's schema as JSON Schema, output side (what a server sends: objects are
 * closed, `additionalProperties: false`). The records it carries (schemas with an `id`)
 * move to `components` and are referenced; two records of one name must be one schema.
 */
function answerSchema(schema: z.ZodType, components: Record<string, Schema>): Schema {
  const json = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any', target: 'draft-2020-12', override: withoutSafeBounds }) as Schema;
  const { $schema: _dialect, $defs: defs = {}, ...rest } = JSON.parse(JSON.stringify(json).replaceAll('"#/$defs/', `"${COMPONENTS}`)) as Schema & { $defs?: Record<string, Schema> };
  for (const [name, def] of Object.entries(defs)) {
    const known = components[name];
    if (known !== undefined && JSON.stringify(known) !== JSON.stringify(def)) throw new Error(`OpenAPI: two different schemas are both named ${name}`);
    components[name] = def;
  }
  return rest;
}

/** zod bounds every integer by the safe range; a JSON integer says nothing so obvious (it only clutters the document). */
function withoutSafeBounds({ jsonSchema }: { jsonSchema: Schema }): void {
  if (jsonSchema.type === 'integer' && jsonSchema.minimum === Number.MIN_SAFE_INTEGER && jsonSchema.maximum === Number.MAX_SAFE_INTEGER) {
    delete jsonSchema.minimum;
    delete jsonSchema.maximum;
  }
}

const STATUS_TEXTS: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content' };

/** `/user/assistant/:id` -> `/user/assistant/{id}`, with its path parameters. */
function openApiPath(path: string): { path: string; params: string[] } {
  const params: string[] = [];
  const converted = path.replace(/:([A-Za-z_]\w*)/g, (_all, name: string) => {
    params.push(name);
    return `{${name}}`;
  });
  return { path: converted, params };
}

/** `POST /user/campaigns/update-status` -> `post_user_campaigns_update_status`: unique, as method plus path is. */
function operationId(method: string, path: string): string {
  return `${method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+/g, '_').replace(/_+$/, '')}`;
}

/**
 * Who may call: the platform's bearer key; an optional key; the admin token when one is
 * set. A route open to anyone (the chat routes) takes a request with or without a bearer
 * key (decisions: Chat message endpoint credentials), so its key is optional too: a
 * security requirement of `{}` alone would tell a validator the header is none of its business,
 * and a generated client would have no way to send it.
 */
function security(auth: RouteDef<unknown>['auth']): Schema[] {
  switch (auth) {
    case 'bearer':
      return [{ apiKey: [] }];
    case 'control':
      return [{ adminToken: [] }, {}];
    default:
      return [{ apiKey: [] }, {}];
  }
}

function queryParameters(schema: z.ZodType | undefined): Schema[] {
  if (schema === undefined) return [];
  const json = jsonSchema(schema);
  const properties = (json.properties ?? {}) as Record<string, Schema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.has(name),
    schema: property,
  }));
}

export interface OpenApiOptions {
  /** The server URL the document names. Default `http://127.0.0.1:4010/api`. */
  serverUrl?: string;
}

/**
 * The OpenAPI 3.1 document of `routes`.
 * @example openApiDocument(ROUTES).paths['/user/me'].get.operationId // 'get_user_me'
 */
export function openApiDocument(routes: readonly RouteDef<never>[], options: OpenApiOptions = {}): Schema {
  const built = documents.get(routes) ?? buildDocument(routes);
  documents.set(routes, built);
  return { ...built, servers: [{ url: options.serverUrl ?? DEFAULT_SERVER_URL }] };
}

/**
 * What the platform sends to the integrator's URLs (spec: Events): one POST per kind, its
 * body a component like the records, with the headers every attempt carries.
 */
function webhooks(components: Record<string, Schema>): Schema {
  const header = (description: string) => ({ description, schema: { type: 'string' } });
  return Object.fromEntries(
    Object.entries(WEBHOOK_BODIES).map(([kind, body]) => [
      kind,
      {
        post: {
          operationId: `webhook_${kind}`,
          summary: `The ${kind.replace('_', '-')} webhook`,
          description:
            kind === 'read_receipt'
              ? 'Signed (x-signature-256: sha256= and the hex HMAC-SHA256 of the raw body with the sender\'s signing secret). Retried 30, 60 and 120 seconds of clock time after a 5xx, a 429, a timeout or a refused connection; another 4xx is not retried (live-platform H.4).'
              : 'Retried 30, 60 and 120 seconds of clock time after a non-2xx answer, a timeout or a refused connection (spec: Events > Retry).',
          parameters: [
            { name: 'x-voxsim-event', in: 'header', required: true, ...header(`The webhook's kind: ${kind}.`) },
            { name: 'x-voxsim-delivery', in: 'header', required: true, ...header('The delivery id (GET /__sim/webhooks/deliveries).') },
            { name: 'x-voxsim-attempt', in: 'header', required: true, ...header('1 for the first attempt, 2 to 4 for the retries.') },
            ...(kind === 'read_receipt' ? [{ name: 'x-signature-256', in: 'header', required: true, ...header('sha256= and the hex HMAC-SHA256 of the raw body with the sender\'s signing secret.') }] : []),
          ],
          requestBody: { required: true, content: { 'application/json': { schema: answerSchema(body, components) } } },
          responses: { '2XX': { description: 'Received: no further attempt.' } },
        },
      },
    ]),
  );
}

/** The document of each route table, built once (the table never changes). */
const documents = new WeakMap<readonly RouteDef<never>[], Schema>();

function buildDocument(routes: readonly RouteDef<never>[]): Schema {
  const paths: Record<string, Record<string, Schema>> = {};
  const records: Record<string, Schema> = {};
  // The first route of a handler is the operation; later ones with the same handler are its other spellings (core/http alias()).
  const firstOf = new Map<unknown, RouteDef<never>>();
  // OpenAPI 3.1 (Paths Object): templated paths that differ only in their parameters' names MUST NOT both exist.
  const templates = new Map<string, string>();
  for (const route of routes) {
    const { path, params } = openApiPath(route.path);
    const shape = path.replace(/\{[^}]*\}/g, '{}');
    const seen = templates.get(shape);
    if (seen !== undefined && seen !== path) throw new Error(`OpenAPI: ${seen} and ${path} are one path template with other parameter names; name the parameter alike in both routes`);
    templates.set(shape, path);
    const original = firstOf.get(route.handle);
    if (original === undefined) firstOf.set(route.handle, route);
    const body = route.doc?.body ?? route.body;
    const query = route.doc?.query ?? route.query;
    const parameters = [
      ...params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
      ...queryParameters(query),
    ];
    let bodySchema = body === undefined ? undefined : jsonSchema(body);
    // Control bodies refuse keys they do not have (core/validation unknownKeyErrors); a snapshot says what it holds itself (`additionalProperties: {}`).
    if (bodySchema !== undefined && route.auth === 'control' && bodySchema.type === 'object' && bodySchema.additionalProperties === undefined) {
      bodySchema = { ...bodySchema, additionalProperties: false };
    }
    const operation: Schema = {
      operationId: operationId(route.method, route.path),
      tags: [route.family],
      summary: `${route.method} ${route.path}`,
      ...(original !== undefined && { description: `The same operation as ${original.method} ${openApiPath(original.path).path} (the live platform's spelling).` }),
      security: security(route.auth),
      ...(parameters.length > 0 && { parameters }),
      ...(bodySchema !== undefined && {
        requestBody: {
          ...(inputDoc(body!)?.description !== undefined && { description: inputDoc(body!)!.description }),
          required: Array.isArray(bodySchema.required) && bodySchema.required.length > 0,
          content: {
            'application/json': { schema: bodySchema },
            // A body read as raw text (a scenario) also arrives as the other media types it names: the same data.
            ...Object.fromEntries((inputDoc(body!)?.media ?? []).map((type) => [type, { schema: bodySchema }])),
            // An upload route reads a form with the same fields (core/http readBody), a file part among them (live-platform C.1).
            ...(route.multipart && { 'multipart/form-data': { schema: jsonSchema(body!, 'form') } }),
          },
        },
      }),
      responses: {
        ...Object.fromEntries(
          Object.entries(route.responses?.() ?? {}).map(([status, schema]) => [
            status,
            {
              description: STATUS_TEXTS[Number(status)] ?? 'Success',
              // A file's answer (live-platform H.7) names the media types it is served as, each binary.
              content: inputDoc(schema)?.media
                ? Object.fromEntries(inputDoc(schema)!.media!.map((type) => [type, { schema: { type: 'string', format: 'binary' } }]))
                : { 'application/json': { schema: answerSchema(schema, records) } },
            },
          ]),
        ),
        '4XX': { description: 'Refused: one of the error shapes of the specification.', content: { 'application/json': { schema: ERROR } } },
        '5XX': { description: 'A forced fault or an unexpected failure: shape A.', content: { 'application/json': { schema: ERROR } } },
      },
    };
    (paths[path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'voxsim: Voice and Chat Assistant Platform API (simulated) and its control API',
      version: VERSION,
      description: 'Generated from the route table and the request schemas of voxsim. Control routes live under /__sim.',
    },
    tags: [
      { name: 'management', description: 'Platform API: accounts, assistants, catalog, numbers, campaigns, leads, calls, conversations.' },
      { name: 'chat', description: 'Platform API: the chat routes (error shape E).' },
      { name: 'messaging', description: 'Platform API: the messaging channel (error shape D).' },
      { name: 'control', description: 'The simulator’s control API.' },
    ],
    paths,
    webhooks: webhooks(records),
    components: {
      schemas: { ...Object.fromEntries(Object.entries(records).sort(([a], [b]) => a.localeCompare(b))), ...ERROR_SHAPES },
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An account API key (default sim_test_key).' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'The admin token, when the server has one (--admin-token).' },
      },
    },
  };
}
