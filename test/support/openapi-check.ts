/**
 * Every answer the contract suites see is checked against the OpenAPI document
 * (src/control/openapi.ts): the operation of its method and path, the response of its
 * status class, the schema of that response. A drift between the document and what
 * the routes answer fails the test that saw it.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { openApiDocument } from '../../src/control/openapi.js';
import { ROUTES } from '../../src/simulator.js';

interface Operation {
  responses: Record<string, { content?: { 'application/json'?: { schema: object } } }>;
}

const document = openApiDocument(ROUTES) as { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, object> } };
const ajv = new Ajv2020({ strict: false, allErrors: false });

/** Each documented path as a pattern over the request path (`{id}` matches one segment). */
const templates = Object.entries(document.paths).map(([path, operations]) => ({
  pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`),
  operations,
}));

const compiled = new Map<object, ValidateFunction>();
function validator(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    // The shapes are referenced as '#/components/schemas/X': the components travel with the schema so the pointers resolve.
    validate = ajv.compile({ ...schema, components: document.components });
    compiled.set(schema, validate);
  }
  return validate;
}

/** The documented schema of `method path` answering `status`, or undefined when the path is not a route (a 404/405 of the router). */
function documented(method: string, path: string, status: number): object | undefined {
  // A template and a literal path may both match (`/user/phone-numbers/{id}` and `/user/phone-numbers/search`): the one with this method is the operation.
  const matches = templates.filter((t) => t.pattern.test(path));
  const operation = (matches.find((t) => t.operations[method.toLowerCase()]) ?? matches[0])?.operations[method.toLowerCase()];
  const responses = operation?.responses ?? document.paths['/__sim/health']!.get!.responses;
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
