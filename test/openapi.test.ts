/**
 * The OpenAPI document (issue 15): a valid OpenAPI 3.1 document by a maintained
 * validator, generated from the route table (every route, nothing else), served at
 * `{base_url}/__sim/openapi.json` and printed by `voxsim openapi`. The contract suites
 * check every answer they see against it (test/support/openapi-check.ts).
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli.js';
import { DEFAULT_SERVER_URL, openApiDocument } from '../src/control/openapi.js';
import { ROUTES, createSimulator } from '../src/simulator.js';
import { checkAgainstOpenApi } from './support/openapi-check.js';

type Doc = {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, Record<string, any>>;
};

const doc = openApiDocument(ROUTES) as Doc;

describe('the OpenAPI document', () => {
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

  it('is printed by voxsim openapi, with --server', async () => {
    const lines: string[] = [];
    const out = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(`E ${line}`) };
    expect(await main(['openapi'], out)).toBe(0);
    expect(JSON.parse(lines.join('\n'))).toEqual(doc);
    lines.length = 0;
    expect(await main(['openapi', '--server', 'https://sim.example.test/v1'], out)).toBe(0);
    expect(JSON.parse(lines.join('\n')).servers).toEqual([{ url: 'https://sim.example.test/v1' }]);
    lines.length = 0;
    expect(await main(['openapi', '--sever', 'x'], out)).toBe(2);
    expect(lines[0]).toMatch(/^E unknown option --sever; did you mean --server\?\n/);
  });
});
