/**
 * The OpenAPI document (issue 15): a valid OpenAPI 3.1 document by a maintained
 * validator, generated from the route table (every route, nothing else), served at
 * `{base_url}/__sim/openapi.json` and printed by `voxsim openapi`. The contract suites
 * check every answer they see, and every request the server accepted, against it
 * (test/support/openapi-check.ts); issue 34: it takes what the server takes.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli.js';
import { DEFAULT_SERVER_URL, openApiDocument } from '../src/control/openapi.js';
import { ROUTES, createSimulator } from '../src/simulator.js';
import { SandboxHost, SERVER_ROUTES } from '../src/sandboxes/host.js';
import { checkAgainstOpenApi, checkRequestAgainstOpenApi, requestProblems } from './support/openapi-check.js';

type Doc = {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, any> };
};

/** The schema of `method path`'s `status` answer in the document. */
function answer(method: string, path: string, status: number): any {
  return doc.paths[path]![method]!.responses[String(status)]?.content['application/json'].schema;
}

const doc = openApiDocument(ROUTES) as Doc;

const ajv = new Ajv2020({ strict: false });
/** Whether `value` is what a field's `schema` (one without references) allows, by a JSON Schema 2020-12 validator. */
function allows(schema: object, value: unknown): boolean {
  return ajv.validate(schema, value);
}

const UUID = '6f1c2b9e-3d4a-4e5f-8a7b-9c0d1e2f3a4b';

describe('the OpenAPI document', () => {
  it("is valid OpenAPI 3.1 with the sandbox registry's operations, and a server hosting sandboxes serves it so", async () => {
    const server = openApiDocument(SERVER_ROUTES) as Doc;
    const result = await new Validator().validate(server as unknown as Parameters<Validator['validate']>[0]);
    expect(result.valid, JSON.stringify(result.errors)).toBe(true);
    expect(Object.keys(server.paths['/__sim/sandboxes']!)).toEqual(['post', 'get']);
    expect(server.paths['/__sim/sandboxes']!.post.requestBody.content['application/json'].schema.properties.ttl).toBeDefined();
    const host = new SandboxHost(createSimulator({ seed: 1 }));
    const served = await host.handle({ method: 'GET', path: '/__sim/openapi.json', headers: {}, url: 'http://127.0.0.1:4010/api/__sim/openapi.json' });
    expect(served.body).toEqual(openApiDocument(SERVER_ROUTES, { serverUrl: 'http://127.0.0.1:4010/api' }));
    host.dispose();
  });

  it('is valid OpenAPI 3.1', async () => {
    const result = await new Validator().validate(doc as unknown as Parameters<Validator["validate"]>[0]);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: DEFAULT_SERVER_URL }]);
  });

  it('has one operation per route of the table, at its path, and nothing else', () => {
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`));
    const routes = ROUTES.map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
    expect(operations.sort()).toEqual([...routes].sort());
    expect(new Set(operations).size).toBe(ROUTES.length);
    const ids = operations.map((o) => doc.paths[o.split(' ')[1]!]![o.split(' ')[0]!.toLowerCase()].operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('has no two path templates that differ only in their parameters’ names (OpenAPI 3.1, Paths Object)', () => {
    const shapes = Object.keys(doc.paths).map((path) => path.replace(/\{[^}]*\}/g, '{}'));
    expect(shapes.length - new Set(shapes).size).toBe(0);
    // The specification's DELETE /user/calls/{call} is one template with GET /user/calls/{id}.
    expect(Object.keys(doc.paths['/user/calls/{id}']!).sort()).toEqual(['delete', 'get']);
    const clash = [ROUTES.find((r) => r.path === '/user/calls/:id')!, { ...ROUTES.find((r) => r.path === '/user/calls/:id')!, method: 'PUT' as const, path: '/user/calls/:call' }];
    expect(() => openApiDocument(clash)).toThrow('OpenAPI: /user/calls/{id} and /user/calls/{call} are one path template with other parameter names; name the parameter alike in both routes');
  });

  it('documents the webhooks the platform sends, their bodies as components that a delivery’s payload references', () => {
    const webhooks = (doc as unknown as { webhooks: Record<string, { post: any }> }).webhooks;
    expect(Object.keys(webhooks).sort()).toEqual(['conversation_ended', 'post_call', 'read_receipt']);
    expect(webhooks.post_call!.post.requestBody.content['application/json'].schema).toEqual({
      anyOf: [{ $ref: '#/components/schemas/PostCallWebhook' }, { $ref: '#/components/schemas/LivePostCallWebhook' }],
    });
    expect(webhooks.conversation_ended!.post.requestBody.content['application/json'].schema).toEqual({
      anyOf: [{ $ref: '#/components/schemas/ConversationEndedWebhook' }, { $ref: '#/components/schemas/LiveConversationEndedWebhook' }],
    });
    expect(webhooks.read_receipt!.post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ReadReceiptWebhook' });
    expect(webhooks.post_call!.post.parameters.map((p: { name: string }) => p.name)).toEqual(['x-voxsim-event', 'x-voxsim-delivery', 'x-voxsim-attempt']);
    // live-platform H.4: the read receipts are signed, and retry only what a receiver may recover from.
    expect(webhooks.read_receipt!.post.parameters.map((p: { name: string }) => p.name)).toEqual(['x-voxsim-event', 'x-voxsim-delivery', 'x-voxsim-attempt', 'x-signature-256']);
    expect(webhooks.read_receipt!.post.description).toContain('another 4xx is not retried');
    const body = doc.components.schemas.PostCallWebhook;
    expect(body.additionalProperties).toBe(false);
    expect(body.required).toEqual(expect.arrayContaining(['id', 'customer_phone', 'transcript', 'lead', 'campaign', 'total_cost']));
    expect(body.required).not.toContain('recording_url');
    expect(doc.components.schemas.Delivery.properties.payload).toEqual({
      anyOf: [
        { anyOf: [{ $ref: '#/components/schemas/PostCallWebhook' }, { $ref: '#/components/schemas/LivePostCallWebhook' }] },
        { anyOf: [{ $ref: '#/components/schemas/ConversationEndedWebhook' }, { $ref: '#/components/schemas/LiveConversationEndedWebhook' }] },
        { $ref: '#/components/schemas/ReadReceiptWebhook' },
      ],
    });
    // live-platform H.2: a live post-call delivery carries the reference's body.
    const live = doc.components.schemas.LivePostCallWebhook;
    expect(Object.keys(live.properties)).toEqual(['id', 'customer_phone', 'assistant_phone', 'duration', 'status', 'extracted_variables', 'input_variables', 'transcript', 'recording_url', 'created_at', 'finished_at', 'lead', 'campaign']);
    expect(live.required).not.toContain('recording_url');
  });

  it('documents a body from its schema: required fields, enums and limits', () => {
    const create = doc.paths['/user/campaign']!.post;
    expect(create.security).toEqual([{ apiKey: [] }]);
    expect(create.requestBody.required).toBe(true);
    const schema = create.requestBody.content['application/json'].schema;
    expect(schema.required).toEqual(expect.arrayContaining(['name', 'assistant_id']));
    // A control operation shows the schema it validates with.
    const number = doc.paths['/__sim/phone-numbers']!.post;
    expect(number.security).toEqual([{ adminToken: [] }, {}]);
    expect(number.requestBody.content['application/json'].schema.properties.type).toEqual({ type: 'string', enum: ['sip', 'caller_id'] });
    // A scenario is read from raw YAML or JSON text; the document shows its JSON form, closed like the file's schema.
    const scenario = doc.paths['/__sim/scenario']!.post.requestBody.content['application/json'].schema;
    expect(scenario.required).toEqual(['name']);
    expect(scenario.additionalProperties).toBe(false);
    expect(Object.keys(scenario.properties)).toEqual(expect.arrayContaining(['seed', 'start', 'given', 'outcomes', 'replies', 'steps']));
  });

  it('documents path ids and queries, and names the other spellings of an operation', () => {
    const read = doc.paths['/user/assistant/{id}']!.get;
    expect(read.parameters).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }]);
    const search = doc.paths['/user/phone-numbers/search']!.get;
    expect(search.parameters.map((p: { name: string }) => p.name)).toEqual(['country_code', 'contains']);
    const conversations = doc.paths['/user/conversations']!.get;
    expect(conversations.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['page', 'cursor', 'type']));
    expect(doc.paths['/user/campaigns']!.post.description).toBe("The same operation as POST /user/campaign (the live platform's spelling).");
  });

  it('documents every route’s success answers from its schemas, records as components', () => {
    // Each route names its answers (core/http RouteDef.responses); none is left as any JSON.
    const undocumented = ROUTES.filter((r) => r.responses === undefined || Object.keys(r.responses()).length === 0).map((r) => `${r.method} ${r.path}`);
    expect(undocumented).toEqual([]);
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const successes = Object.keys(operation.responses).filter((status) => /^2\d\d$/.test(status));
        expect(successes.length, `${method} ${path}`).toBeGreaterThan(0);
        for (const status of successes) {
          const content = operation.responses[status].content;
          // A file (live-platform H.7) is documented by its media types, each binary.
          if (path.startsWith('/files/')) expect(content['image/png'].schema, `${method} ${path} ${status}`).toEqual({ type: 'string', format: 'binary' });
          else expect(content['application/json'].schema, `${method} ${path} ${status}`).not.toEqual({});
        }
      }
    }
    // A record is a component, referenced from every answer that carries it, closed and typed.
    expect(answer('post', '/user/campaign', 201)).toEqual({
      type: 'object',
      properties: { message: { type: 'string' }, data: { $ref: '#/components/schemas/Campaign' } },
      required: ['message', 'data'],
      additionalProperties: false,
    });
    expect(answer('post', '/user/campaign', 200)).toBeUndefined();
    const campaign = doc.components.schemas.Campaign;
    expect(campaign.additionalProperties).toBe(false);
    expect(campaign.required).toEqual(['id', 'name', 'status', 'max_calls_in_parallel', 'mark_complete_when_no_leads', 'allowed_hours_start_time', 'allowed_hours_end_time', 'allowed_days', 'max_retries', 'retry_interval', 'created_at', 'updated_at']);
    expect(campaign.properties.status).toEqual({ type: 'string', enum: ['draft', 'in-progress', 'stopped', 'completed'] });
    expect(campaign.properties.id).toEqual({ type: 'integer' });
    // An answer that differs per wire is either wire's record, the spec wire's first.
    expect(answer('get', '/user/calls/{id}', 200).anyOf).toEqual([{ $ref: '#/components/schemas/Call' }, { $ref: '#/components/schemas/LiveCall' }]);
    expect(doc.components.schemas.LiveCall.properties.total_cost).toEqual({ type: 'string', pattern: '^-?\\d+\\.\\d{8}$' });
    // The control API too.
    expect(answer('get', '/__sim/clock', 200)).toEqual({ $ref: '#/components/schemas/ClockState' });
    expect(answer('post', '/__sim/accounts', 201)).toEqual({ $ref: '#/components/schemas/Account' });
  });

  it('catches a success body that drifts from its schema, with a message naming what is wrong', async () => {
    const sim = createSimulator({ seed: 1, startAt: '2026-03-02T09:00:00Z' });
    const headers = { authorization: 'Bearer sim_test_key' };
    const me = (await sim.handle({ method: 'GET', path: '/user/me', headers })).body as Record<string, unknown>;
    expect(() => checkAgainstOpenApi('GET', '/user/me', 200, me)).not.toThrow();
    const { total_balance: _balance, ...missing } = me;
    expect(() => checkAgainstOpenApi('GET', '/user/me', 200, missing)).toThrow(/GET \/user\/me answered 200 .*must have required property 'total_balance'/);
    expect(() => checkAgainstOpenApi('GET', '/user/me', 200, { ...me, balance: 1 })).toThrow(/must NOT have additional properties/);
    expect(() => checkAgainstOpenApi('GET', '/user/me', 200, { ...me, total_balance: '100' })).toThrow(/total_balance must be number/);
    const body = { name: 'Spring', assistant_id: 1 };
    sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' });
    const created = await sim.handle({
      method: 'POST', path: '/user/assistant', headers,
      body: JSON.stringify({ name: 'Sales', voice_id: 1, language_id: 1, type: 'outbound', mode: 'pipeline', timezone: 'Europe/Berlin', initial_message: 'Hi', system_prompt: 'Sell.', llm_model_id: 1, phone_number_id: 1 }),
    });
    expect(created.status).toBe(201);
    const campaign = await sim.handle({ method: 'POST', path: '/user/campaign', headers, body: JSON.stringify(body) });
    const answered = campaign.body as { message: string; data: Record<string, unknown> };
    expect(() => checkAgainstOpenApi('POST', '/user/campaign', 201, answered)).not.toThrow();
    // A status outside the spec's enum, a timestamp in another format, an undocumented status.
    expect(() => checkAgainstOpenApi('POST', '/user/campaign', 201, { ...answered, data: { ...answered.data, status: 'running' } })).toThrow(/data\/status must be equal to one of the allowed values/);
    expect(() => checkAgainstOpenApi('POST', '/user/campaign', 201, { ...answered, data: { ...answered.data, created_at: '2026-03-02 09:00:00' } })).toThrow(/data\/created_at must match pattern/);
    expect(() => checkAgainstOpenApi('POST', '/user/campaign', 200, answered)).toThrow('OpenAPI: no response 200 documented for POST /user/campaign');
    sim.dispose();
  });

  it('refuses an answer outside the documented error shapes', () => {
    expect(() => checkAgainstOpenApi('GET', '/user/me', 404, { message: 'Not found.' })).not.toThrow();
    expect(() => checkAgainstOpenApi('GET', '/user/me', 404, { nope: 1 })).toThrow(/OpenAPI: GET \/user\/me answered 404/);
    expect(() => checkAgainstOpenApi('POST', '/user/campaign', 422, { message: 'x', errors: { name: 'not a list' } })).not.toThrow(); // still shape A
    expect(() => checkAgainstOpenApi('POST', '/user/msgapp/send', 422, { success: true, error: 1 })).toThrow();
  });

  it('is served at {base_url}/__sim/openapi.json with that base URL as its server', async () => {
    const sim = createSimulator({ seed: 1, startAt: '2026-03-02T09:00:00Z' });
    const res = await sim.handle({ method: 'GET', path: '/__sim/openapi.json', url: 'https://api.example.test/api/__sim/openapi.json', headers: {} });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...doc, servers: [{ url: 'https://api.example.test/api' }] });
    // Reading it is not a request worth journaling.
    expect(sim.control.requests.list().data).toEqual([]);
    sim.dispose();
  });

  it("is printed by voxsim openapi as a server serves it: with the sandbox registry's operations (issue 35), with --server", async () => {
    const lines: string[] = [];
    const out = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(`E ${line}`) };
    expect(await main(['openapi'], out)).toBe(0);
    const printed = JSON.parse(lines.join('\n'));
    expect(printed).toEqual(openApiDocument(SERVER_ROUTES));
    expect({ ...printed.paths, ...doc.paths }).toEqual(printed.paths);
    expect(Object.keys(printed.paths).filter((path) => !(path in doc.paths)).sort()).toEqual(['/__sim/sandbox', '/__sim/sandboxes', '/__sim/sandboxes/{id}']);
    lines.length = 0;
    expect(await main(['openapi', '--server', 'https://sim.example.test/v1'], out)).toBe(0);
    expect(JSON.parse(lines.join('\n')).servers).toEqual([{ url: 'https://sim.example.test/v1' }]);
    lines.length = 0;
    expect(await main(['openapi', '--sever', 'x'], out)).toBe(2);
    expect(lines[0]).toMatch(/^E unknown option --sever; did you mean --server\?\n/);
  });
  it('types an assistant named in a body as the integer id, its digits or the uuid, as the server takes it (issue 34)', () => {
    const named = [
      ['/user/ai/generate-reply', 'post'],
      ['/ai/generate-reply', 'post'],
      ...['enable-webhook', 'disable-webhook', 'enable-inbound-webhook', 'disable-inbound-webhook', 'enable-conversation-ended-webhook', 'disable-conversation-ended-webhook'].map((name) => [`/user/assistants/${name}`, 'post']),
    ] as const;
    for (const [path, method] of named) {
      const schema = doc.paths[path]![method].requestBody.content['application/json'].schema.properties.assistant_id;
      expect(schema.anyOf, path).toEqual([{ type: 'integer' }, { type: 'string', minLength: 1, maxLength: 255 }]);
      for (const id of [7, '7', UUID]) expect(allows(schema, id), `${path} ${id}`).toBe(true);
      expect(allows(schema, ''), path).toBe(false);
      expect(allows(schema, 7.5), path).toBe(false);
    }
  });

  it('documents the document upload as multipart/form-data with a binary file part, beside JSON (issue 34)', () => {
    const content = doc.paths['/user/knowledgebases/{knowledgebaseId}/documents']!.post.requestBody.content;
    expect(Object.keys(content)).toEqual(['application/json', 'multipart/form-data']);
    const form = content['multipart/form-data'].schema;
    expect(form.properties.file).toMatchObject({ type: 'string', format: 'binary' });
    expect(form.required).toEqual(['name', 'type']);
    // A form sends the link limit as digits, and JSON may too (core/validation queryInt).
    expect(allows(form.properties.relative_links_limit, '5')).toBe(true);
    expect(allows(content['application/json'].schema.properties.relative_links_limit, 5)).toBe(true);
    expect(allows(content['application/json'].schema.properties.relative_links_limit, 'five')).toBe(false);
    // Only the upload routes take a form.
    const forms = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).filter(([, op]) => op.requestBody?.content['multipart/form-data']).map(([method]) => `${method.toUpperCase()} ${path}`));
    expect(forms).toEqual(['POST /user/knowledgebases/{knowledgebaseId}/documents']);
  });

  it('declares the chat routes’ bearer key optional, as they take a request with or without one (issue 34)', () => {
    for (const [path, method] of [['/conversations', 'post'], ['/conversations/{uuid}', 'get'], ['/conversations/{uuid}/messages', 'post']] as const) {
      expect(doc.paths[path]![method].security, path).toEqual([{ apiKey: [] }, {}]);
    }
    expect(requestProblems({ method: 'GET', target: `/conversations/${UUID}`, headers: {} })).toEqual([]);
    expect(requestProblems({ method: 'GET', target: `/conversations/${UUID}`, headers: { authorization: 'Bearer sim_test_key' } })).toEqual([]);
    expect(doc.paths['/user/me']!.get.security).toEqual([{ apiKey: [] }]);
  });

  it('checks an accepted request against the document as a validating proxy would, naming what is wrong', () => {
    const key = { authorization: 'Bearer sim_test_key', 'content-type': 'application/json' };
    const reply = (body: unknown) => ({ method: 'POST', target: '/user/ai/generate-reply', headers: key, body: JSON.stringify(body) });
    const valid = { assistant_id: 7, customer_identifier: 'c-1', message: 'Hi' };
    expect(requestProblems(reply(valid))).toEqual([]);
    expect(requestProblems(reply({ ...valid, assistant_id: UUID }))).toEqual([]);
    expect(requestProblems(reply({ ...valid, assistant_id: true }))).toEqual([expect.stringMatching(/^body: body\/assistant_id must be integer/)]);
    expect(requestProblems({ ...reply(valid), headers: { 'content-type': 'application/json' } })).toEqual(['no credentials its security takes (apiKey)']);
    // Query parameters arrive as text, read by their type; a key the document does not name is refused.
    expect(requestProblems({ method: 'GET', target: '/user/calls?page=2&per_page=5', headers: key })).toEqual([]);
    expect(requestProblems({ method: 'GET', target: '/user/calls?page=two', headers: key })).toEqual([expect.stringMatching(/^query parameter page=two: page must be integer/)]);
    expect(requestProblems({ method: 'GET', target: '/user/calls?pagee=2', headers: key })).toEqual(['query parameter pagee is not in the document']);
    // A form goes where the document takes one, and only there.
    const form = new FormData();
    form.set('name', 'Manual');
    form.set('type', 'pdf');
    form.set('file', new Blob(['%PDF']), 'manual.pdf');
    expect(requestProblems({ method: 'POST', target: '/user/knowledgebases/1/documents', headers: { authorization: 'Bearer k' }, body: form })).toEqual([]);
    expect(requestProblems({ method: 'POST', target: '/user/knowledgebases', headers: { authorization: 'Bearer k' }, body: form })).toEqual(['a multipart/form-data body, which the operation does not take']);
    // A body to an operation the document gives no requestBody is refused, not read as a body never read: else a
    // document that lost an operation's body (its schema dropped) would pass every request sent with one (issue 45).
    expect(doc.paths['/__sim/faults']!.delete.requestBody).toBeUndefined();
    expect(requestProblems({ method: 'DELETE', target: '/__sim/faults', headers: key, body: '{"rules":[]}' })).toEqual(['a body, which the operation does not take (it has no requestBody)']);
    expect(requestProblems({ method: 'DELETE', target: '/__sim/faults', headers: key })).toEqual([]);
    // Only an accepted request is held to the document: a refused one may be anything.
    expect(() => checkRequestAgainstOpenApi(reply({ ...valid, assistant_id: true }), 422)).not.toThrow();
    expect(() => checkRequestAgainstOpenApi(reply({ ...valid, assistant_id: true }), 200)).toThrow(/^OpenAPI: POST \/user\/ai\/generate-reply was accepted \(200\), but the document does not allow the request: body: /);
  });

  it('documents what either wire takes where the wires read a request otherwise, and a scenario as JSON or YAML', () => {
    const key = { authorization: 'Bearer sim_test_key' };
    expect(requestProblems({ method: 'GET', target: '/user/conversations?type=whatsapp', headers: key })).toEqual([]);
    expect(requestProblems({ method: 'GET', target: '/user/conversations?cursor=&page=abc', headers: key })).toEqual([]);
    expect(requestProblems({ method: 'GET', target: '/user/phone-numbers/search?country_code=DE', headers: key })).toEqual([]);
    expect(requestProblems({ method: 'GET', target: '/user/phone-numbers/search?country_code=FR', headers: key })).toEqual([expect.stringMatching(/^query parameter country_code=FR: country_code must be equal to one of the allowed values/)]);
    expect(requestProblems({ method: 'GET', target: '/user/assistants?page=2&per_page=1', headers: key })).toEqual([]);
    const scenario = doc.paths['/__sim/scenario']!.post.requestBody.content;
    expect(Object.keys(scenario)).toEqual(['application/json', 'application/yaml']);
    expect(scenario['application/yaml'].schema).toEqual(scenario['application/json'].schema);
    expect(requestProblems({ method: 'POST', target: '/__sim/scenario', headers: { 'content-type': 'application/yaml' }, body: 'name: spring\nseed: 7\n' })).toEqual([]);
  });

  it('is one document on both wires: a live-wire server serves the same', async () => {
    const sim = createSimulator({ seed: 1, startAt: '2026-03-02T09:00:00Z', wire: 'live' });
    const res = await sim.handle({ method: 'GET', path: '/__sim/openapi.json', headers: {} });
    expect(res.body).toEqual(doc);
    sim.dispose();
  });
});
