/**
 * Read and delete routes of assistants (decisions: List assistants, Outbound
 * assistants, Get one assistant; spec: Delete assistant).
 */
import { expect, it } from 'vitest';
import { contract, type Api } from '../support/api.js';
import { multimodalAssistant, pipelineAssistant } from '../support/fixtures.js';

async function createMany(api: Api, count: number): Promise<void> {
  for (let i = 1; i <= count; i++) {
    const body = i % 3 === 0 ? multimodalAssistant({ name: `Assistant ${i}` }) : pipelineAssistant({ name: `Assistant ${i}` });
    expect((await api.post('/user/assistant', body)).status).toBe(201);
  }
}

contract('list assistants', (api) => {
  it('answers an empty first page with the paginator shape', async () => {
    const res = await api().get('/user/assistants/get');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], current_page: 1, per_page: 10, total: 0, last_page: 1 });
  });

  it('pages by 10 by default in id order with full read records', async () => {
    await createMany(api(), 12);
    const first = await api().get('/user/assistants/get');
    expect(first.body).toMatchObject({ current_page: 1, per_page: 10, total: 12, last_page: 2 });
    expect(first.body.data.map((a: { id: number }) => a.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const one = await api().get('/user/assistant/3');
    expect(first.body.data[2]).toEqual(one.body.data);
    const second = await api().get('/user/assistants/get', { query: { page: 2 } });
    expect(second.body.data.map((a: { name: string }) => a.name)).toEqual(['Assistant 11', 'Assistant 12']);
  });

  it('accepts per_page 1 and 100', async () => {
    await createMany(api(), 3);
    const one = await api().get('/user/assistants/get', { query: { per_page: 1, page: 3 } });
    expect(one.body).toMatchObject({ current_page: 3, per_page: 1, total: 3, last_page: 3 });
    expect(one.body.data.map((a: { id: number }) => a.id)).toEqual([3]);
    const hundred = await api().get('/user/assistants/get', { query: { per_page: 100 } });
    expect(hundred.body).toMatchObject({ per_page: 100, total: 3, last_page: 1 });
    expect(hundred.body.data).toHaveLength(3);
  });

  it.each([
    [{ per_page: 0 }, 'per_page', 'The per page must be between 1 and 100.'],
    [{ per_page: 101 }, 'per_page', 'The per page must be between 1 and 100.'],
    [{ per_page: 'ten' }, 'per_page', 'The per page must be an integer.'],
    [{ page: 0 }, 'page', 'The page must be at least 1.'],
    [{ page: -2 }, 'page', 'The page must be at least 1.'],
    [{ page: '1.5' }, 'page', 'The page must be an integer.'],
  ])('rejects %j with 422 shape B', async (query, field, message) => {
    const res = await api().get('/user/assistants/get', { query });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message, errors: { [field]: [message] } });
  });

  it('answers a page past the end with no data and the real totals', async () => {
    await createMany(api(), 3);
    const res = await api().get('/user/assistants/get', { query: { page: 9, per_page: 2 } });
    expect(res.body).toEqual({ data: [], current_page: 9, per_page: 2, total: 3, last_page: 2 });
  });

  it('lists only the caller\'s assistants', async () => {
    api().sim.control.accounts.create({ api_key: 'sim_second_key' });
    await createMany(api(), 2);
    await api().post('/user/assistant', pipelineAssistant({ name: 'Theirs' }), { key: 'sim_second_key' });
    const mine = await api().get('/user/assistants/get');
    expect(mine.body.data.map((a: { name: string }) => a.name)).toEqual(['Assistant 1', 'Assistant 2']);
    const theirs = await api().get('/user/assistants/get', { key: 'sim_second_key' });
    expect(theirs.body.data.map((a: { name: string; id: number }) => [a.id, a.name])).toEqual([[3, 'Theirs']]);
  });
});

contract('outbound assistants', (api) => {
  it('answers a bare array of the outbound assistants only', async () => {
    await createMany(api(), 4);
    const res = await api().get('/user/assistants/outbound');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((a: { id: number; type: string }) => [a.id, a.type])).toEqual([
      [1, 'outbound'],
      [2, 'outbound'],
      [4, 'outbound'],
    ]);
    expect(res.body[0]).toEqual((await api().get('/user/assistant/1')).body.data);
  });

  it('answers an empty array when there are none', async () => {
    await api().post('/user/assistant', multimodalAssistant());
    expect((await api().get('/user/assistants/outbound')).body).toEqual([]);
  });
});

contract('get one assistant', (api) => {
  it('wraps the read record in data', async () => {
    await api().post('/user/assistant', multimodalAssistant({ variables: { brand: 'Acme' } }));
    const res = await api().get('/user/assistant/1');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(res.body.data).toMatchObject({ id: 1, name: 'Support Assistant', status: 'inactive', type: 'inbound', mode: 'multimodal', variables: { brand: 'Acme' } });
  });

  it.each(['/user/assistant/99', '/user/assistant/0', '/user/assistant/x1'])('answers %s with 404 shape A', async (path) => {
    const res = await api().get(path);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Assistant not found.' });
  });
});

contract('delete assistant', (api) => {
  it('deletes the assistant and answers 200 with a message', async () => {
    await createMany(api(), 2);
    const res = await api().del('/user/assistant/1');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Assistant deleted successfully.' });
    expect((await api().get('/user/assistant/1')).status).toBe(404);
    expect((await api().get('/user/assistants/get')).body.data.map((a: { id: number }) => a.id)).toEqual([2]);
  });

  it('answers a second delete with 404 shape A', async () => {
    await createMany(api(), 1);
    await api().del('/user/assistant/1');
    const res = await api().del('/user/assistant/1');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Assistant not found.' });
  });

  it('frees the inbound number for another inbound assistant', async () => {
    const sip = api().sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550120' }).id;
    await api().post('/user/assistant', multimodalAssistant({ phone_number_id: sip }));
    await api().del('/user/assistant/1');
    expect((await api().post('/user/assistant', multimodalAssistant({ phone_number_id: sip }))).status).toBe(201);
  });

  it('answers 500 shape A when the deletion fails, and keeps the assistant', async () => {
    await createMany(api(), 1);
    await api().post('/__sim/faults', { method: 'DELETE', path: '/user/assistant/:id' });
    const res = await api().del('/user/assistant/1');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ message: 'Failed to delete assistant.' });
    expect((await api().get('/user/assistant/1')).status).toBe(200);
    expect((await api().del('/user/assistant/1')).status).toBe(200);
  });
});
