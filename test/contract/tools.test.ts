/**
 * Custom mid-call tools (live-platform C.2; decisions: Custom mid-call tools, Plan):
 * create under the plan's limit (the three fixture tools count), update, delete, the
 * array forms written and their stored form, the live wire's arrays, 404s and ownership.
 * Every account starts with fixture tools 1-3; the first created tool is id 4.
 */
import { expect, it } from 'vitest';
import toolsJson from '../../fixtures/tools.json' with { type: 'json' };
import { contract, type Api } from '../support/api.js';
import { pipelineAssistant } from '../support/fixtures.js';
import { expectAnswer, expectRefused, invalid } from '../support/expect.js';

const LIVE = { wire: 'live' } as const;
const CREATED_AT = '2026-03-02T09:00:00.000000Z';
const SECOND_KEY = 'sim_second_key';
const TOOL = {
  name: 'lookup_order',
  description: 'Looks an order up by its number.',
  endpoint: 'https://crm.example.test/orders',
  method: 'POST',
  timeout: 12,
  headers: [
    { name: 'Authorization', value: 'Bearer abc' },
    { name: 'X-Tenant', value: 'acme' },
  ],
  schema: [
    { name: 'order_number', type: 'string', description: 'The order number' },
    { name: 'items', type: 'number', description: 'How many items' },
    { name: 'express', type: 'boolean', description: 'Express delivery?' },
  ],
};
const STORED_HEADERS = { Authorization: 'Bearer abc', 'X-Tenant': 'acme' };
const STORED_SCHEMA = {
  type: 'object',
  properties: {
    order_number: { type: 'string', description: 'The order number' },
    items: { type: 'number', description: 'How many items' },
    express: { type: 'boolean', description: 'Express delivery?' },
  },
};
const LIMIT_TEXT = (max: number) => `You have reached your plan limit of ${max} mid call tools. Please upgrade your plan to create more tools.`;


async function createAssistant(api: Api, body: Record<string, unknown>): Promise<number> {
  const res = await api.post('/user/assistant', body);
  expect(res.status, res.text).toBe(201);
  return res.body.data.id as number;
}

contract('tools: create (spec wire)', (api) => {
  it('creates a tool from the array forms and answers 201 with the stored forms', async () => {
    const res = await api().post('/user/tools', TOOL);
    const record = {
      id: 4,
      name: 'lookup_order',
      description: 'Looks an order up by its number.',
      endpoint: 'https://crm.example.test/orders',
      method: 'POST',
      timeout: 12,
      headers: STORED_HEADERS,
      schema: STORED_SCHEMA,
      created_at: CREATED_AT,
      updated_at: CREATED_AT,
    };
    expectAnswer(res, 201, { message: 'Tool created successfully', data: record });
    expect(Object.keys(res.body.data.schema.properties)).toEqual(['order_number', 'items', 'express']);
    expectAnswer(await api().get('/user/tools/4'), 200, record);
    expect((await api().get('/user/tools')).body.map((t: { id: number }) => t.id)).toEqual([1, 2, 3, 4]);
  });

  it('defaults the timeout to 10, the headers to {} and the schema to an empty object schema', async () => {
    const { timeout: _t, headers: _h, schema: _s, ...bare } = TOOL;
    const res = await api().post('/user/tools', bare);
    expect(res.body.data).toMatchObject({ timeout: 10, headers: {}, schema: { type: 'object', properties: {} } });
  });

  it('accepts timeouts 1 and 30 and refuses 0 and 31', async () => {
    api().sim.control.accounts.patch(1, { plan: { max_tools: 10 } });
    expect((await api().post('/user/tools', { ...TOOL, timeout: 1 })).body.data.timeout).toBe(1);
    expect((await api().post('/user/tools', { ...TOOL, timeout: 30 })).body.data.timeout).toBe(30);
    const between = invalid({ timeout: ['The timeout must be between 1 and 30.'] });
    await expectRefused(api(), () => api().post('/user/tools', { ...TOOL, timeout: 0 }), 422, between);
    await expectRefused(api(), () => api().post('/user/tools', { ...TOOL, timeout: 31 }), 422, between);
  });

  it('accepts every method and refuses another', async () => {
    api().sim.control.accounts.patch(1, { plan: { max_tools: 10 } });
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) expect((await api().post('/user/tools', { ...TOOL, method })).status).toBe(201);
    await expectRefused(api(), () => api().post('/user/tools', { ...TOOL, method: 'get' }), 422, invalid({ method: ['The selected method is invalid.'] }));
  });

  it('requires name, description, endpoint and method', async () => {
    await expectRefused(
      api(),
      () => api().post('/user/tools', {}),
      422,
      invalid({
        name: ['The name field is required.'],
        description: ['The description field is required.'],
        endpoint: ['The endpoint field is required.'],
        method: ['The method field is required.'],
      }),
    );
  });

  it('takes a name of lowercase letters and underscores starting with a letter, 255 at most', async () => {
    expect((await api().post('/user/tools', { ...TOOL, name: 'a'.repeat(255) })).status).toBe(201);
    const format = invalid({ name: ['The name may only contain lowercase letters and underscores, starting with a letter.'] });
    for (const name of ['Lookup', '_lookup', 'look-up', 'lookup2']) await expectRefused(api(), () => api().post('/user/tools', { ...TOOL, name }), 422, format);
    await expectRefused(api(), () => api().post('/user/tools', { ...TOOL, name: 'a'.repeat(256) }), 422, invalid({ name: ['The name may not be greater than 255 characters.'] }));
  });

  it('takes a description of 255 characters at most and an http(s) endpoint', async () => {
    expect((await api().post('/user/tools', { ...TOOL, description: 'd'.repeat(255) })).status).toBe(201);
    await expectRefused(api(), () => api().post('/user/tools', { ...TOOL, description: 'd'.repeat(256) }), 422, invalid({ description: ['The description may not be greater than 255 characters.'] }));
    await expectRefused(api(), () => api().post('/user/tools', { ...TOOL, endpoint: 'ftp://crm.example.test/x' }), 422, invalid({ endpoint: ['The endpoint format is invalid.'] }));
  });

  it('refuses header items without a name or value, and duplicate names in any case', async () => {
    await expectRefused(api(), () => api().post('/user/tools', { ...TOOL, headers: [{ name: 'X-A' }] }), 422, invalid({ 'headers.0.value': ['The headers.0.value field is required.'] }));
    await expectRefused(api(), () => api().post('/user/tools', { ...TOOL, headers: [{ value: 'v' }] }), 422, invalid({ 'headers.0.name': ['The headers.0.name field is required.'] }));
    await expectRefused(
      api(),
      () => api().post('/user/tools', { ...TOOL, headers: [{ name: 'X-Key', value: 'a' }, { name: 'x-key', value: 'b' }] }),
      422,
      invalid({ 'headers.1.name': ['The headers.1.name field has a duplicate value.'] }),
    );
    await expectRefused(api(), () => api().post('/user/tools', { ...TOOL, headers: { 'X-Key': 'a' } }), 422, invalid({ headers: ['The headers must be an array.'] }));
  });

  it('takes parameter names of 2 to 32 letters and underscores starting with a letter', async () => {
    const named = (name: string) => ({ ...TOOL, schema: [{ name, type: 'string', description: 'abc' }] });
    api().sim.control.accounts.patch(1, { plan: { max_tools: 10 } });
    expect((await api().post('/user/tools', named('ab'))).status).toBe(201);
    expect((await api().post('/user/tools', named(`A${'b'.repeat(31)}`))).status).toBe(201);
    const between = invalid({ 'schema.0.name': ['The schema.0.name must be between 2 and 32 characters.'] });
    await expectRefused(api(), () => api().post('/user/tools', named('a')), 422, between);
    await expectRefused(api(), () => api().post('/user/tools', named('a'.repeat(33))), 422, between);
    for (const name of ['_ab', '1ab', 'a-b']) await expectRefused(api(), () => api().post('/user/tools', named(name)), 422, invalid({ 'schema.0.name': ['The schema.0.name format is invalid.'] }));
  });

  it('takes parameter types string, number, boolean and descriptions of 3 to 255 characters', async () => {
    const param = (fields: Record<string, unknown>) => ({ ...TOOL, schema: [{ name: 'ab', type: 'string', description: 'abc', ...fields }] });
    api().sim.control.accounts.patch(1, { plan: { max_tools: 10 } });
    expect((await api().post('/user/tools', param({ description: 'd'.repeat(255) }))).status).toBe(201);
    const between = invalid({ 'schema.0.description': ['The schema.0.description must be between 3 and 255 characters.'] });
    await expectRefused(api(), () => api().post('/user/tools', param({ description: 'de' })), 422, between);
    await expectRefused(api(), () => api().post('/user/tools', param({ description: 'd'.repeat(256) })), 422, between);
    await expectRefused(api(), () => api().post('/user/tools', param({ type: 'integer' })), 422, invalid({ 'schema.0.type': ['The selected schema.0.type is invalid.'] }));
  });

  it('refuses duplicate parameter names', async () => {
    const schema = [
      { name: 'ab', type: 'string', description: 'abc' },
      { name: 'ab', type: 'number', description: 'abc' },
    ];
    await expectRefused(api(), () => api().post('/user/tools', { ...TOOL, schema }), 422, invalid({ 'schema.1.name': ['The schema.1.name field has a duplicate value.'] }));
  });
});

contract('tools: the plan limit', (api) => {
  it('counts the fixture tools: creates the fourth and fifth, refuses the sixth with 422 shape A and changes nothing', async () => {
    expect((await api().post('/user/tools', TOOL)).status).toBe(201);
    expect((await api().post('/user/tools', { ...TOOL, name: 'fifth' })).status).toBe(201);
    await expectRefused(api(), () => api().post('/user/tools', { ...TOOL, name: 'sixth' }), 422, { message: LIMIT_TEXT(5) });
  });

  it('answers the limit before validating the body', async () => {
    await api().post('/user/tools', TOOL);
    await api().post('/user/tools', TOOL);
    await expectRefused(api(), () => api().post('/user/tools', {}), 422, { message: LIMIT_TEXT(5) });
  });

  it("follows the account's plan, with its number in the text", async () => {
    api().sim.control.accounts.patch(1, { plan: { max_tools: 3 } });
    await expectRefused(api(), () => api().post('/user/tools', TOOL), 422, { message: LIMIT_TEXT(3) });
    api().sim.control.accounts.patch(1, { plan: { max_tools: 4 } });
    expect((await api().post('/user/tools', TOOL)).status).toBe(201);
  });

  it('frees a place when a tool is deleted', async () => {
    await api().post('/user/tools', TOOL);
    await api().post('/user/tools', TOOL);
    await api().del('/user/tools/1');
    expect((await api().post('/user/tools', TOOL)).status).toBe(201);
  });

  it("counts each account's own tools", async () => {
    await api().post('/user/tools', TOOL);
    await api().post('/user/tools', TOOL);
    api().sim.control.accounts.create({ api_key: SECOND_KEY });
    expect((await api().post('/user/tools', TOOL, { key: SECOND_KEY })).status).toBe(201);
  });
});

contract('tools: update and delete (spec wire)', (api) => {
  it('changes the given fields only and stamps updated_at', async () => {
    await api().sim.clock.advance('2h');
    const res = await api().put('/user/tools/1', { timeout: 25, method: 'POST' });
    expectAnswer(res, 200, {
      message: 'Tool updated successfully',
      data: { id: 1, ...toolsJson[0], timeout: 25, method: 'POST', created_at: CREATED_AT, updated_at: '2026-03-02T11:00:00.000000Z' },
    });
  });

  it('replaces headers and schema, and clears them with []', async () => {
    const res = await api().put('/user/tools/1', { headers: TOOL.headers, schema: TOOL.schema });
    expect(res.body.data).toMatchObject({ headers: STORED_HEADERS, schema: STORED_SCHEMA });
    const cleared = await api().put('/user/tools/1', { headers: [], schema: [] });
    expect(cleared.body.data).toMatchObject({ headers: {}, schema: { type: 'object', properties: {} } });
  });

  it('refuses an invalid field with 422 and changes nothing', async () => {
    await expectRefused(api(), () => api().put('/user/tools/1', { timeout: 31 }), 422, invalid({ timeout: ['The timeout must be between 1 and 30.'] }));
    await expectRefused(api(), () => api().put('/user/tools/1', { name: '' }), 422, invalid({ name: ['The name field is required.'] }));
    await expectRefused(api(), () => api().put('/user/tools/1', { headers: [{ name: 'A', value: 'x' }, { name: 'a', value: 'y' }] }), 422, invalid({ 'headers.1.name': ['The headers.1.name field has a duplicate value.'] }));
  });

  it('deletes a tool', async () => {
    expectAnswer(await api().del('/user/tools/2'), 200, { message: 'Tool deleted successfully' });
    expectAnswer(await api().get('/user/tools/2'), 404, { message: 'Tool not found.' });
    expect((await api().get('/user/tools')).body.map((t: { id: number }) => t.id)).toEqual([1, 3]);
  });

  it("takes a deleted tool out of every assistant's tool_ids, in order", async () => {
    const both = await createAssistant(api(), pipelineAssistant({ tool_ids: [3, 2, 1] }, api().sim.wire));
    const other = await createAssistant(api(), pipelineAssistant({ tool_ids: [1] }, api().sim.wire));
    await api().del('/user/tools/2');
    expect((await api().get(`/user/assistant/${both}`)).body.data.tool_ids).toEqual([3, 1]);
    expect((await api().get(`/user/assistant/${other}`)).body.data.tool_ids).toEqual([1]);
    expectAnswer(await api().post('/user/assistant', pipelineAssistant({ tool_ids: [2] }, api().sim.wire)), 422, invalid({ 'tool_ids.0': ['The selected tool ids.0 is invalid.'] }));
  });

  it("answers a missing or another account's tool with the family 404 and changes nothing", async () => {
    api().sim.control.accounts.create({ api_key: SECOND_KEY });
    for (const id of ['99', '4', 'abc']) {
      await expectRefused(api(), () => api().get(`/user/tools/${id}`), 404, { message: 'Tool not found.' });
      await expectRefused(api(), () => api().put(`/user/tools/${id}`, { timeout: 5 }), 404, { message: 'Tool not found.' });
      await expectRefused(api(), () => api().del(`/user/tools/${id}`), 404, { message: 'Tool not found.' });
    }
    expect((await api().get('/user/tools/4', { key: SECOND_KEY })).body.name).toBe('check_availability');
  });
});

contract(
  'tools: the live wire',
  (api) => {
    it('writes headers as [{name, value}] and the schema as [{name, type, description}]', async () => {
      const res = await api().post('/user/tools', TOOL);
      expectAnswer(res, 201, {
        message: 'Tool created successfully',
        data: {
          id: 4,
          name: 'lookup_order',
          description: 'Looks an order up by its number.',
          endpoint: 'https://crm.example.test/orders',
          method: 'POST',
          timeout: 12,
          headers: TOOL.headers,
          schema: TOOL.schema,
          created_at: CREATED_AT,
          updated_at: CREATED_AT,
        },
      });
      expect((await api().get('/user/tools/4')).body.schema).toStrictEqual(TOOL.schema);
    });

    it('converts a stored JSON Schema: integer as number, other types as string, a missing description as ""', async () => {
      api().sim.control.accounts.patch(1, { plan: { max_tools: 10 } });
      const list = (await api().get('/user/tools')).body;
      expect(list[0].headers).toStrictEqual([{ name: 'X-Api-Key', value: 'demo' }]);
      expect(list[0].schema).toStrictEqual([
        { name: 'date', type: 'string', description: 'Date to check, in YYYY-MM-DD format.' },
        { name: 'service', type: 'string', description: 'Name of the service the caller wants to book.' },
        { name: 'location', type: 'string', description: 'Optional branch or location name.' },
      ]);
      // A stored schema written outside the array forms (a restored snapshot, say).
      const snapshot = api().sim.snapshot();
      const row = snapshot.db.tools!.rows.find((t) => t.id === 1)! as { id: number; schema?: unknown };
      row.schema = { type: 'object', properties: { count: { type: 'integer' }, ok: { type: 'boolean', description: 'Fine?' }, tags: { type: 'array' } } };
      api().sim.restore(snapshot);
      expect((await api().get('/user/tools/1')).body.schema).toStrictEqual([
        { name: 'count', type: 'number', description: '' },
        { name: 'ok', type: 'boolean', description: 'Fine?' },
        { name: 'tags', type: 'string', description: '' },
      ]);
    });

    it('answers the update in the live form, and the delete as on the spec wire', async () => {
      const res = await api().put('/user/tools/1', { headers: [{ name: 'X-Api-Key', value: 'live' }] });
      expect(res.body).toMatchObject({ message: 'Tool updated successfully', data: { id: 1, headers: [{ name: 'X-Api-Key', value: 'live' }] } });
      expectAnswer(await api().del('/user/tools/1'), 200, { message: 'Tool deleted successfully' });
    });

    it("answers a missing or another account's tool with the live 404 text", async () => {
      api().sim.control.accounts.create({ api_key: SECOND_KEY });
      for (const id of ['99', '4']) {
        await expectRefused(api(), () => api().get(`/user/tools/${id}`), 404, { message: 'Tool not found' });
        await expectRefused(api(), () => api().put(`/user/tools/${id}`, { timeout: 5 }), 404, { message: 'Tool not found' });
        await expectRefused(api(), () => api().del(`/user/tools/${id}`), 404, { message: 'Tool not found' });
      }
    });

    it('refuses the sixth tool with the same text', async () => {
      await api().post('/user/tools', TOOL);
      await api().post('/user/tools', TOOL);
      await expectRefused(api(), () => api().post('/user/tools', TOOL), 422, { message: LIMIT_TEXT(5) });
    });
  },
  LIVE,
);
