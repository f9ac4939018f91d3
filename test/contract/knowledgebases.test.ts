/**
 * Knowledge bases (live-platform C.1, D.4, E; Rule 2): create, update and delete, the
 * status derived from the documents, and the two wires' records and 404s. Every account
 * starts with the three fixture knowledge bases (ids 1-3) and their 20 website
 * documents (ids 1-20); the first created knowledge base is id 4.
 */
import { expect, it } from 'vitest';
import { contract, type Api } from '../support/api.js';
import { pipelineAssistant } from '../support/fixtures.js';
import { expectAnswer, expectRefused, invalidField } from '../support/expect.js';

const LIVE = { wire: 'live' } as const;
const CREATED_AT = '2026-03-02T09:00:00.000000Z';
const AN_HOUR_LATER = '2026-03-02T10:00:00.000000Z';
const SECOND_KEY = 'sim_second_key';
const NOT_FOUND_SPEC = { message: 'Knowledge base not found.' };
const NOT_FOUND_LIVE = { error: 'Knowledgebase not found.' };
const WEBSITE = { name: 'Pricing page', type: 'website', url: 'https://www.example.test/pricing' };

async function createKnowledgebase(api: Api, body: Record<string, unknown> = { name: 'Support articles' }, key?: string): Promise<number> {
  const res = await api.post('/user/knowledgebases', body, { key });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id as number;
}

async function createAssistant(api: Api, body: Record<string, unknown>): Promise<number> {
  const res = await api.post('/user/assistant', body);
  expect(res.status, res.text).toBe(201);
  return res.body.data.id as number;
}

/** The knowledge base a new account gets ids 4-6 of (created before any other). */
function secondAccount(api: Api) {
  return api.sim.control.accounts.create({ api_key: SECOND_KEY });
}

contract('knowledge bases: create (spec wire)', (api) => {
  it('creates an empty knowledge base and answers 201 with the full record', async () => {
    const res = await api().post('/user/knowledgebases', { name: 'Support articles', description: 'Help centre pages' });
    expectAnswer(res, 201, {
      message: 'Knowledgebase created successfully.',
      data: {
        id: 4,
        name: 'Support articles',
        description: 'Help centre pages',
        status: 'empty',
        documents_count: 0,
        assistants_count: 0,
        created_at: CREATED_AT,
        updated_at: CREATED_AT,
      },
    });
    expect((await api().get('/user/knowledgebases/4')).body.data).toStrictEqual(res.body.data);
    expect((await api().get('/user/knowledgebases')).body.data.map((kb: { id: number }) => kb.id)).toEqual([1, 2, 3, 4]);
  });

  it('stores a missing description as null, and accepts null', async () => {
    expect((await api().post('/user/knowledgebases', { name: 'A' })).body.data.description).toBeNull();
    expect((await api().post('/user/knowledgebases', { name: 'B', description: null })).body.data.description).toBeNull();
  });

  it('accepts a name and a description of 255 characters', async () => {
    const res = await api().post('/user/knowledgebases', { name: 'n'.repeat(255), description: 'd'.repeat(255) });
    expect(res.status).toBe(201);
    expect(res.body.data.name).toHaveLength(255);
    expect(res.body.data.description).toHaveLength(255);
  });

  it('refuses a name of 256 characters with 422 and changes nothing', async () => {
    await expectRefused(api(), () => api().post('/user/knowledgebases', { name: 'n'.repeat(256) }), 422, invalidField('name', 'The name may not be greater than 255 characters.'));
  });

  it('refuses a description of 256 characters with 422 and changes nothing', async () => {
    await expectRefused(
      api(),
      () => api().post('/user/knowledgebases', { name: 'A', description: 'd'.repeat(256) }),
      422,
      invalidField('description', 'The description may not be greater than 255 characters.'),
    );
  });

  it('refuses a missing, empty or non-string name with 422 and changes nothing', async () => {
    await expectRefused(api(), () => api().post('/user/knowledgebases', {}), 422, invalidField('name', 'The name field is required.'));
    await expectRefused(api(), () => api().post('/user/knowledgebases', { name: '' }), 422, invalidField('name', 'The name field is required.'));
    await expectRefused(api(), () => api().post('/user/knowledgebases', { name: 7 }), 422, invalidField('name', 'The name must be a string.'));
  });
});

contract('knowledge bases: update (spec wire)', (api) => {
  it('renames a knowledge base, keeps its description, documents and status, and stamps updated_at', async () => {
    await api().sim.clock.advance('1h');
    const res = await api().put('/user/knowledgebases/1', { name: 'Product questions' });
    expectAnswer(res, 200, {
      message: 'Knowledgebase updated successfully.',
      data: {
        id: 1,
        name: 'Product questions',
        description: 'Frequently asked questions about our products, pricing and shipping.',
        status: 'ready',
        documents_count: 12,
        assistants_count: 0,
        created_at: CREATED_AT,
        updated_at: AN_HOUR_LATER,
      },
    });
    expect((await api().get('/user/knowledgebases/1/documents')).body.data).toHaveLength(12);
  });

  it('clears the description with null and keeps the name', async () => {
    const res = await api().put('/user/knowledgebases/2', { description: null });
    expect(res.body.data).toMatchObject({ name: 'Returns policy', description: null });
  });

  it('accepts an empty body as no change but the stamp', async () => {
    const res = await api().put('/user/knowledgebases/3', {});
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'Clinic opening hours', status: 'processing', documents_count: 5 });
  });

  it('refuses an empty or too long name with 422 and changes nothing', async () => {
    await expectRefused(api(), () => api().put('/user/knowledgebases/1', { name: '' }), 422, invalidField('name', 'The name field is required.'));
    await expectRefused(api(), () => api().put('/user/knowledgebases/1', { name: 'n'.repeat(256) }), 422, invalidField('name', 'The name may not be greater than 255 characters.'));
    await expectRefused(
      api(),
      () => api().put('/user/knowledgebases/1', { description: 'd'.repeat(256) }),
      422,
      invalidField('description', 'The description may not be greater than 255 characters.'),
    );
  });

  it("answers a missing or another account's knowledge base with the family 404 and changes nothing", async () => {
    secondAccount(api());
    await expectRefused(api(), () => api().put('/user/knowledgebases/99', { name: 'X' }), 404, NOT_FOUND_SPEC);
    await expectRefused(api(), () => api().put('/user/knowledgebases/4', { name: 'X' }), 404, NOT_FOUND_SPEC);
    expect((await api().get('/user/knowledgebases/4', { key: SECOND_KEY })).body.data.name).toBe('Product FAQ');
  });
});

contract('knowledge bases: delete (spec wire)', (api) => {
  it('deletes a knowledge base with its documents', async () => {
    expectAnswer(await api().del('/user/knowledgebases/1'), 200, { message: 'Knowledgebase deleted successfully.' });
    expectAnswer(await api().get('/user/knowledgebases/1'), 404, NOT_FOUND_SPEC);
    expectAnswer(await api().get('/user/knowledgebases/1/documents'), 404, NOT_FOUND_SPEC);
    expect((await api().get('/user/knowledgebases')).body.data.map((kb: { id: number }) => kb.id)).toEqual([2, 3]);
    expect(api().sim.snapshot().db.knowledgebase_documents!.rows.filter((d: any) => d.knowledgebase_id === 1)).toEqual([]);
  });

  it('cancels the processing timers of its documents', async () => {
    const id = await createKnowledgebase(api());
    const pending = api().sim.clock.pendingCount;
    await api().post(`/user/knowledgebases/${id}/documents`, WEBSITE);
    await api().post(`/user/knowledgebases/${id}/documents`, { ...WEBSITE, name: 'Other page' });
    expect(api().sim.clock.pendingCount).toBe(pending + 2);
    await api().del(`/user/knowledgebases/${id}`);
    expect(api().sim.clock.pendingCount).toBe(pending);
  });

  it("sets knowledgebase_id to null on the assistants that used it, and leaves the others' alone", async () => {
    const using = await createAssistant(api(), pipelineAssistant({ knowledgebase_id: 1 }, api().sim.wire));
    const other = await createAssistant(api(), pipelineAssistant({ knowledgebase_id: 2 }, api().sim.wire));
    await api().del('/user/knowledgebases/1');
    expect((await api().get(`/user/assistant/${using}`)).body.data.knowledgebase_id).toBeNull();
    expect((await api().get(`/user/assistant/${other}`)).body.data.knowledgebase_id).toBe(2);
  });

  it('then refuses the deleted id on an assistant with 422', async () => {
    await api().del('/user/knowledgebases/1');
    const res = await api().post('/user/assistant', pipelineAssistant({ knowledgebase_id: 1 }, api().sim.wire));
    expectAnswer(res, 422, invalidField('knowledgebase_id', 'The selected knowledgebase id is invalid.'));
  });

  it("answers a missing or another account's knowledge base with the family 404 and changes nothing", async () => {
    secondAccount(api());
    await expectRefused(api(), () => api().del('/user/knowledgebases/99'), 404, NOT_FOUND_SPEC);
    await expectRefused(api(), () => api().del('/user/knowledgebases/4'), 404, NOT_FOUND_SPEC);
    expect((await api().get('/user/knowledgebases/4', { key: SECOND_KEY })).status).toBe(200);
  });
});

contract('knowledge bases: the status follows the documents (spec wire)', (api) => {
  it('counts documents and shows processing while one is processing', async () => {
    const id = await createKnowledgebase(api());
    await api().post(`/user/knowledgebases/${id}/documents`, WEBSITE);
    expect((await api().get(`/user/knowledgebases/${id}`)).body.data).toMatchObject({ status: 'processing', documents_count: 1 });
  });

  it('writes a processed knowledge base as ready, and empty again once its last document goes', async () => {
    const id = await createKnowledgebase(api());
    const doc = (await api().post(`/user/knowledgebases/${id}/documents`, WEBSITE)).body.data.id as number;
    await api().sim.clock.advance('60s');
    expect((await api().get(`/user/knowledgebases/${id}`)).body.data).toMatchObject({ status: 'ready', documents_count: 1 });
    await api().del(`/user/knowledgebases/${id}/documents/${doc}`);
    expect((await api().get(`/user/knowledgebases/${id}`)).body.data).toMatchObject({ status: 'empty', documents_count: 0 });
  });

  it('touches updated_at when a document is created, changes status or is deleted, not when one is renamed', async () => {
    const id = await createKnowledgebase(api());
    const updatedAt = async () => (await api().get(`/user/knowledgebases/${id}`)).body.data.updated_at;
    await api().sim.clock.advance('10m');
    const doc = (await api().post(`/user/knowledgebases/${id}/documents`, WEBSITE)).body.data.id as number;
    expect(await updatedAt()).toBe('2026-03-02T09:10:00.000000Z');
    await api().sim.clock.advance('60s');
    expect(await updatedAt()).toBe('2026-03-02T09:11:00.000000Z');
    await api().sim.clock.advance('1m');
    await api().put(`/user/knowledgebases/${id}/documents/${doc}`, { name: 'Renamed' });
    expect(await updatedAt()).toBe('2026-03-02T09:11:00.000000Z');
    await api().del(`/user/knowledgebases/${id}/documents/${doc}`);
    expect(await updatedAt()).toBe('2026-03-02T09:12:00.000000Z');
  });
});

contract(
  'knowledge bases: the live wire',
  (api) => {
    it('answers a create with id, name, description, status, status_label, created_at, updated_at', async () => {
      const res = await api().post('/user/knowledgebases', { name: 'Support articles' });
      expectAnswer(res, 201, {
        message: 'Knowledgebase created successfully.',
        data: { id: 4, name: 'Support articles', description: null, status: 'empty', status_label: 'Empty', created_at: CREATED_AT, updated_at: CREATED_AT },
      });
      expect(Object.keys(res.body.data)).toEqual(['id', 'name', 'description', 'status', 'status_label', 'created_at', 'updated_at']);
    });

    it('answers an update with the same keys without created_at', async () => {
      const res = await api().put('/user/knowledgebases/1', { description: 'FAQ' });
      expectAnswer(res, 200, {
        message: 'Knowledgebase updated successfully.',
        data: { id: 1, name: 'Product FAQ', description: 'FAQ', status: 'active', status_label: 'Active', updated_at: CREATED_AT },
      });
    });

    it('lists the full live record with status_label for each derived status', async () => {
      const empty = await createKnowledgebase(api(), { name: 'Empty one' });
      const failing = await createKnowledgebase(api(), { name: 'Failing one' });
      await api().post(`/user/knowledgebases/${failing}/documents`, { ...WEBSITE, url: 'https://gone.invalid/page' });
      await api().sim.clock.advance('60s');
      const list = (await api().get('/user/knowledgebases')).body.data;
      expect(list.map((kb: any) => [kb.id, kb.status, kb.status_label])).toEqual([
        [1, 'active', 'Active'],
        [2, 'active', 'Active'],
        [3, 'processing', 'Processing'],
        [empty, 'empty', 'Empty'],
        [failing, 'failed', 'Failed'],
      ]);
      expect(Object.keys(list[3])).toEqual(['id', 'name', 'description', 'status', 'status_label', 'documents_count', 'assistants_count', 'created_at', 'updated_at']);
    });

    it('keeps the delete answer', async () => {
      expectAnswer(await api().del('/user/knowledgebases/2'), 200, { message: 'Knowledgebase deleted successfully.' });
    });

    it("answers a missing or another account's knowledge base with the live 404 in shape C on every route, changing nothing", async () => {
      secondAccount(api());
      for (const id of ['99', '4']) {
        await expectRefused(api(), () => api().get(`/user/knowledgebases/${id}`), 404, NOT_FOUND_LIVE);
        await expectRefused(api(), () => api().put(`/user/knowledgebases/${id}`, { name: 'X' }), 404, NOT_FOUND_LIVE);
        await expectRefused(api(), () => api().del(`/user/knowledgebases/${id}`), 404, NOT_FOUND_LIVE);
        await expectRefused(api(), () => api().get(`/user/knowledgebases/${id}/documents`), 404, NOT_FOUND_LIVE);
        await expectRefused(api(), () => api().post(`/user/knowledgebases/${id}/documents`, WEBSITE), 404, NOT_FOUND_LIVE);
        await expectRefused(api(), () => api().get(`/user/knowledgebases/${id}/documents/21`), 404, NOT_FOUND_LIVE);
      }
    });

    it('answers validation failures in shape B with the team texts', async () => {
      await expectRefused(api(), () => api().post('/user/knowledgebases', {}), 422, invalidField('name', 'The name field is required.'));
    });
  },
  LIVE,
);
