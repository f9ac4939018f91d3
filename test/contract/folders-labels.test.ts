/**
 * Folders and labels (live-platform C.3), on both transports and both wires: every
 * operation under both spellings as one operation, the record and its counts, names
 * unique per account and kind in any letter case, colours, the list's page form per
 * wire and its limits, the family 404, what deleting one does to its assistants, and
 * `folder_id` / `label_ids` on assistants (shown only in the live-wire read record).
 * Expected bodies are literal texts; a refused request is compared through a snapshot.
 */
import { expect, it } from 'vitest';
import { WIRES } from '../../src/core/wire.js';
import { contract, type Api, type ApiResponse } from '../support/api.js';
import { pipelineAssistant } from '../support/fixtures.js';
import { expectAnswer, expectRefused, invalidField, stateOf as state } from '../support/expect.js';

type Body = Record<string, unknown>;
const OTHER_KEY = 'sim_other_key';
const KINDS = [
  { kind: 'folder', Noun: 'Folder' },
  { kind: 'label', Noun: 'Label' },
] as const;
const SPEC_PAGE_KEYS = ['data', 'current_page', 'per_page', 'total', 'last_page'];
const LIVE_PAGE_KEYS = ['data', 'current_page', 'per_page', 'total'];


/** Sends a request that must be refused with `status` and `body`, and checks that nothing changed. */
function refused(api: Api, method: string, path: string, body: unknown, status: number, expected: unknown, key?: string) {
  return expectRefused(api, () => api.call(method, path, body, key === undefined ? {} : { key }), status, expected, `${method} ${path}`);
}

/**
 * The same request under both spellings from the same state: same status and body, same
 * state after (one operation, live-platform C.3).
 */
async function sameOperation(api: Api, method: string, paths: [string, string], body?: unknown, query?: Record<string, string | number>): Promise<ApiResponse> {
  const start = api.sim.snapshot();
  const first = await api.call(method, paths[0], body, query ? { query } : {});
  const afterFirst = JSON.stringify(api.sim.snapshot());
  api.sim.restore(start);
  const second = await api.call(method, paths[1], body, query ? { query } : {});
  expect({ status: second.status, body: second.body }, `${method} ${paths[1]}`).toStrictEqual({ status: first.status, body: first.body });
  expect(JSON.stringify(api.sim.snapshot()), `state after ${method} ${paths[1]}`).toBe(afterFirst);
  return first;
}

async function create(api: Api, kind: string, body: Body, key?: string): Promise<number> {
  const res = await api.post(`/user/${kind}`, body, key === undefined ? {} : { key });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id;
}

async function assistant(api: Api, overrides: Body = {}): Promise<number> {
  const res = await api.post('/user/assistant', pipelineAssistant(overrides, api.sim.wire));
  expect(res.status, res.text).toBe(201);
  return res.body.data.id;
}

/** The stored folder and labels of an assistant (read through the state: the spec wire does not show them). */
function filing(api: Api, id: number): { folder_id: unknown; label_ids: unknown } {
  const row = (api.sim.snapshot().db.assistants!.rows as unknown as Body[]).find((a) => a.id === id)!;
  return { folder_id: row.folder_id, label_ids: row.label_ids };
}

for (const wire of WIRES) {
  for (const { kind, Noun } of KINDS) {
    const one = `/user/${kind}`;
    const many = `/user/${kind}s`;
    const spellings = (suffix = ''): [string, string] => [`${one}${suffix}`, `${many}${suffix}`];
    const NOT_FOUND = { message: `${Noun} not found` };

    contract(`live C.3 ${kind}s [${wire} wire]`, (api) => {
      it(`creates a ${kind} with 201 under both spellings, colour null by default, counting no assistants`, async () => {
        const res = await sameOperation(api(), 'POST', spellings(), { name: 'Key accounts' });
        expectAnswer(res, 201, { message: `${Noun} created successfully`, data: { id: 1, name: 'Key accounts', color: null, assistants_count: 0 } });
      });

      it('accepts each of the ten colours and refuses any other with 422 on color, changing nothing', async () => {
        const colours = ['gray', 'slate', 'red', 'orange', 'amber', 'green', 'teal', 'blue', 'purple', 'pink'];
        for (const [i, color] of colours.entries()) {
          expectAnswer(await api().post(one, { name: `C${i}`, color }), 201, { message: `${Noun} created successfully`, data: { id: i + 1, name: `C${i}`, color, assistants_count: 0 } });
        }
        // The live wire reads an empty string as null (live-platform G.3 item 3): no colour, as when left out.
        for (const color of wire === 'live' ? ['Blue', 'black', 3] : ['Blue', 'black', '', 3]) await refused(api(), 'POST', many, { name: 'Other', color }, 422, invalidField('color', 'The selected color is invalid.'));
        if (wire === 'live') expectAnswer(await api().post(one, { name: 'Plain', color: ' ' }), 201, { message: `${Noun} created successfully`, data: { id: 11, name: 'Plain', color: null, assistants_count: 0 } });
      });

      it('takes a name of 255 characters and refuses 256, or none, with 422 on name, changing nothing', async () => {
        const longest = 'n'.repeat(255);
        expectAnswer(await api().post(one, { name: longest }), 201, { message: `${Noun} created successfully`, data: { id: 1, name: longest, color: null, assistants_count: 0 } });
        await refused(api(), 'POST', one, { name: 'n'.repeat(256) }, 422, invalidField('name', 'The name may not be greater than 255 characters.'));
        await refused(api(), 'POST', many, {}, 422, invalidField('name', 'The name field is required.'));
        await refused(api(), 'POST', many, { name: '' }, 422, invalidField('name', 'The name field is required.'));
        await refused(api(), 'POST', many, { name: 7 }, 422, invalidField('name', 'The name must be a string.'));
      });

      it('refuses a name the account already holds in any letter case with 422 on name, changing nothing', async () => {
        await create(api(), kind, { name: 'Key Accounts' });
        for (const name of ['Key Accounts', 'key accounts', 'KEY ACCOUNTS']) {
          await refused(api(), 'POST', many, { name }, 422, invalidField('name', 'The name has already been taken.'));
        }
      });

      it('lets another account, and the other kind, use the same name', async () => {
        await create(api(), kind, { name: 'Shared' });
        api().sim.control.accounts.create({ api_key: OTHER_KEY });
        expect((await api().post(one, { name: 'shared' }, { key: OTHER_KEY })).status).toBe(201);
        const other = kind === 'folder' ? 'label' : 'folder';
        expect((await api().post(`/user/${other}`, { name: 'Shared' })).status).toBe(201);
      });

      it(`lists the ${kind}s in id order under both spellings, in the wire's page form`, async () => {
        await create(api(), kind, { name: 'Beta', color: 'red' });
        await create(api(), kind, { name: 'Alpha' });
        const res = await sameOperation(api(), 'GET', spellings());
        const data = [
          { id: 1, name: 'Beta', color: 'red', assistants_count: 0 },
          { id: 2, name: 'Alpha', color: null, assistants_count: 0 },
        ];
        if (wire === 'spec') expectAnswer(res, 200, { data, current_page: 1, per_page: 15, total: 2, last_page: 1 });
        else expectAnswer(res, 200, { data, current_page: 1, per_page: 15, total: 2 });
        expect(Object.keys(res.body)).toEqual(wire === 'spec' ? SPEC_PAGE_KEYS : LIVE_PAGE_KEYS);
      });

      it('pages with per_page 1 and 100 and refuses 0, 101 and page 0 with 422', async () => {
        for (const name of ['A', 'B', 'C']) await create(api(), kind, { name });
        const second = await api().get(many, { query: { per_page: 1, page: 2 } });
        expect(second.status).toBe(200);
        expect(second.body.data).toStrictEqual([{ id: 2, name: 'B', color: null, assistants_count: 0 }]);
        expect(second.body.total).toBe(3);
        if (wire === 'spec') expect(second.body.last_page).toBe(3);
        const all = await api().get(one, { query: { per_page: 100 } });
        expect(all.body.data.map((g: Body) => g.id)).toEqual([1, 2, 3]);
        expect(all.body.per_page).toBe(100);
        const past = await api().get(one, { query: { page: 9 } });
        expect(past.body.data).toEqual([]);
        for (const [query, field, text] of [
          [{ per_page: 0 }, 'per_page', 'The per page must be between 1 and 100.'],
          [{ per_page: 101 }, 'per_page', 'The per page must be between 1 and 100.'],
          [{ page: 0 }, 'page', 'The page must be at least 1.'],
        ] as const) {
          expectAnswer(await api().get(many, { query }), 422, invalidField(field, text));
        }
      });

      it('updates name and colour under both spellings; omitted fields keep their values, color null clears', async () => {
        const id = await create(api(), kind, { name: 'Old', color: 'amber' });
        const renamed = await sameOperation(api(), 'PUT', spellings(`/${id}`), { name: 'New' });
        expectAnswer(renamed, 200, { message: `${Noun} updated successfully`, data: { id, name: 'New', color: 'amber', assistants_count: 0 } });
        expectAnswer(await api().put(`${many}/${id}`, { color: 'teal' }), 200, { message: `${Noun} updated successfully`, data: { id, name: 'New', color: 'teal', assistants_count: 0 } });
        expectAnswer(await api().put(`${one}/${id}`, { color: null }), 200, { message: `${Noun} updated successfully`, data: { id, name: 'New', color: null, assistants_count: 0 } });
        expectAnswer(await api().put(`${one}/${id}`, {}), 200, { message: `${Noun} updated successfully`, data: { id, name: 'New', color: null, assistants_count: 0 } });
      });

      it('lets a record keep its own name in another case, and refuses a name of another record with 422', async () => {
        const id = await create(api(), kind, { name: 'Main' });
        await create(api(), kind, { name: 'Second' });
        expectAnswer(await api().put(`${one}/${id}`, { name: 'MAIN' }), 200, { message: `${Noun} updated successfully`, data: { id, name: 'MAIN', color: null, assistants_count: 0 } });
        await refused(api(), 'PUT', `${many}/${id}`, { name: 'second' }, 422, invalidField('name', 'The name has already been taken.'));
        await refused(api(), 'PUT', `${many}/${id}`, { name: 'x'.repeat(256) }, 422, invalidField('name', 'The name may not be greater than 255 characters.'));
      });

      it(`answers an unknown or foreign ${kind} with its 404 on update and delete, under both spellings, changing nothing`, async () => {
        await create(api(), kind, { name: 'Mine' });
        api().sim.control.accounts.create({ api_key: OTHER_KEY });
        const theirs = await create(api(), kind, { name: 'Theirs' }, OTHER_KEY);
        for (const path of [...spellings(`/${theirs}`), ...spellings('/999')]) {
          await refused(api(), 'PUT', path, { name: 'Taken over' }, 404, NOT_FOUND);
          await refused(api(), 'DELETE', path, undefined, 404, NOT_FOUND);
        }
        // Another account's records are not listed either.
        expect((await api().get(many)).body.data.map((g: Body) => g.name)).toEqual(['Mine']);
      });

      it(`deletes a ${kind} under both spellings with 200; a second delete is its 404`, async () => {
        const id = await create(api(), kind, { name: 'Gone soon' });
        expectAnswer(await sameOperation(api(), 'DELETE', spellings(`/${id}`)), 200, { message: `${Noun} deleted successfully` });
        expectAnswer(await api().del(`${one}/${id}`), 404, NOT_FOUND);
        expect((await api().get(one)).body.data).toEqual([]);
      });
    }, { wire });
  }

  contract(`live C.3 assistants in folders and labels [${wire} wire]`, (api) => {
    it('files an assistant on create, counts it, and shows folder_id and label_ids only in the live read record', async () => {
      const folder = await create(api(), 'folder', { name: 'Sales', color: 'blue' });
      const vip = await create(api(), 'label', { name: 'VIP' });
      const warm = await create(api(), 'label', { name: 'Warm' });
      const id = await assistant(api(), { folder_id: folder, label_ids: [warm, vip, warm] });
      expect(filing(api(), id)).toStrictEqual({ folder_id: folder, label_ids: [warm, vip] });
      expect((await api().get('/user/folders')).body.data).toStrictEqual([{ id: folder, name: 'Sales', color: 'blue', assistants_count: 1 }]);
      expect((await api().get('/user/labels')).body.data.map((l: Body) => l.assistants_count)).toEqual([1, 1]);
      const read = (await api().get(`/user/assistant/${id}`)).body.data;
      if (wire === 'spec') {
        expect(read).not.toHaveProperty('folder_id');
        expect(read).not.toHaveProperty('label_ids');
      } else {
        expect(read.folder_id).toBe(folder);
        expect(read.label_ids).toEqual([warm, vip]);
        expect(Object.keys(read).slice(-2)).toEqual(['folder_id', 'label_ids']);
      }
    });

    it('keeps the spec-wire read record byte for byte whatever the filing', async () => {
      const plain = await assistant(api());
      const before = (await api().get(`/user/assistant/${plain}`)).text;
      const folder = await create(api(), 'folder', { name: 'Sales' });
      const label = await create(api(), 'label', { name: 'VIP' });
      const filed = await assistant(api(), { folder_id: folder, label_ids: [label] });
      const after = (await api().get(`/user/assistant/${filed}`)).text;
      if (wire === 'spec') expect(after.replace(/"id":\d+,"uuid":"[^"]+"/, '')).toBe(before.replace(/"id":\d+,"uuid":"[^"]+"/, ''));
      else expect(JSON.parse(after).data.label_ids).toEqual([label]);
    });

    it('refuses a foreign or unknown folder_id or label id with 422 on its field, changing nothing', async () => {
      const own = await create(api(), 'label', { name: 'Own' });
      api().sim.control.accounts.create({ api_key: OTHER_KEY });
      const theirFolder = await create(api(), 'folder', { name: 'Theirs' }, OTHER_KEY);
      await create(api(), 'label', { name: 'Theirs 1' }, OTHER_KEY);
      const theirLabel = await create(api(), 'label', { name: 'Theirs 2' }, OTHER_KEY);
      const message = (text: string) => (wire === 'spec' ? text : 'Validation failed');
      const folderText = 'The selected folder id is invalid.';
      await refused(api(), 'POST', '/user/assistant', pipelineAssistant({ folder_id: theirFolder }, api().sim.wire), 422, { message: message(folderText), errors: { folder_id: [folderText] } });
      await refused(api(), 'POST', '/user/assistant', pipelineAssistant({ folder_id: 999 }, api().sim.wire), 422, { message: message(folderText), errors: { folder_id: [folderText] } });
      const labelText = 'The selected label ids.1 is invalid.';
      await refused(api(), 'POST', '/user/assistant', pipelineAssistant({ label_ids: [own, theirLabel] }, api().sim.wire), 422, { message: message(labelText), errors: { 'label_ids.1': [labelText] } });
      const id = await assistant(api());
      await refused(api(), 'PUT', `/user/assistant/${id}`, { folder_id: theirFolder }, 422, { message: message(folderText), errors: { folder_id: [folderText] } });
      await refused(api(), 'PUT', `/user/assistant/${id}`, { label_ids: [own, 999] }, 422, { message: message(labelText), errors: { 'label_ids.1': [labelText] } });
      const typeText = 'The label ids must be an array.';
      await refused(api(), 'PUT', `/user/assistant/${id}`, { label_ids: own }, 422, { message: message(typeText), errors: { label_ids: [typeText] } });
    });

    it('moves, replaces and clears the filing on update: label_ids replaces, [] clears, folder_id null uncategorises', async () => {
      const sales = await create(api(), 'folder', { name: 'Sales' });
      const support = await create(api(), 'folder', { name: 'Support' });
      const a = await create(api(), 'label', { name: 'A' });
      const b = await create(api(), 'label', { name: 'B' });
      const id = await assistant(api(), { folder_id: sales, label_ids: [a] });
      expect((await api().put(`/user/assistant/${id}`, { folder_id: support, label_ids: [b, b, a] })).status).toBe(200);
      expect(filing(api(), id)).toStrictEqual({ folder_id: support, label_ids: [b, a] });
      expect((await api().put(`/user/assistant/${id}`, { name: 'Kept filing' })).status).toBe(200);
      expect(filing(api(), id)).toStrictEqual({ folder_id: support, label_ids: [b, a] });
      expect((await api().put(`/user/assistant/${id}`, { folder_id: null, label_ids: [] })).status).toBe(200);
      expect(filing(api(), id)).toStrictEqual({ folder_id: null, label_ids: [] });
      expect((await api().get('/user/folders')).body.data.map((f: Body) => f.assistants_count)).toEqual([0, 0]);
    });

    it('deleting a folder keeps its assistants, uncategorised; deleting a label takes it off every assistant', async () => {
      const folder = await create(api(), 'folder', { name: 'Sales' });
      const keep = await create(api(), 'label', { name: 'Keep' });
      const drop = await create(api(), 'label', { name: 'Drop' });
      const first = await assistant(api(), { folder_id: folder, label_ids: [drop, keep] });
      const second = await assistant(api(), { name: 'Second', folder_id: folder, label_ids: [drop] });
      expect((await api().del(`/user/folders/${folder}`)).status).toBe(200);
      expect((await api().del(`/user/label/${drop}`)).status).toBe(200);
      expect(filing(api(), first)).toStrictEqual({ folder_id: null, label_ids: [keep] });
      expect(filing(api(), second)).toStrictEqual({ folder_id: null, label_ids: [] });
      expect((await api().get('/user/assistants')).body.map((a: Body) => a.id)).toEqual([first, second]);
      expect((await api().get('/user/labels')).body.data).toStrictEqual([{ id: keep, name: 'Keep', color: null, assistants_count: 1 }]);
      if (wire === 'live') {
        const read = (await api().get(`/user/assistant/${first}`)).body.data;
        expect([read.folder_id, read.label_ids]).toStrictEqual([null, [keep]]);
      }
    });

    it("stamps the assistants' updated_at when a folder or label they carry is deleted", async () => {
      const folder = await create(api(), 'folder', { name: 'Sales' });
      const label = await create(api(), 'label', { name: 'VIP' });
      const filed = await assistant(api(), { folder_id: folder });
      const labelled = await assistant(api(), { name: 'Labelled', label_ids: [label] });
      const bystander = await assistant(api(), { name: 'Bystander' });
      await api().sim.clock.advance('5m');
      expect((await api().del(`/user/folder/${folder}`)).status).toBe(200);
      await api().sim.clock.advance('5m');
      expect((await api().del(`/user/labels/${label}`)).status).toBe(200);
      const updatedAt = async (id: number) => (await api().get(`/user/assistant/${id}`)).body.data.updated_at;
      expect([await updatedAt(filed), await updatedAt(labelled), await updatedAt(bystander)]).toEqual([
        '2026-03-02T09:05:00.000000Z',
        '2026-03-02T09:10:00.000000Z',
        '2026-03-02T09:00:00.000000Z',
      ]);
    });

    it('counts only the assistants that are there: a deleted assistant leaves the count', async () => {
      const folder = await create(api(), 'folder', { name: 'Sales' });
      const id = await assistant(api(), { folder_id: folder });
      await assistant(api(), { name: 'Also', folder_id: folder });
      expect((await api().del(`/user/assistant/${id}`)).status).toBe(200);
      expect((await api().get('/user/folder')).body.data[0].assistants_count).toBe(1);
    });

    it('carries folders, labels and the filing through a snapshot and restore, and empties them on reset', async () => {
      const folder = await create(api(), 'folder', { name: 'Sales' });
      const label = await create(api(), 'label', { name: 'VIP' });
      const id = await assistant(api(), { folder_id: folder, label_ids: [label] });
      const saved = api().sim.snapshot();
      api().sim.reset();
      expect((await api().get('/user/folders')).body.data).toEqual([]);
      expect((await api().get('/user/labels')).body.data).toEqual([]);
      api().sim.restore(saved);
      expect((await api().get('/user/folders')).body.data).toStrictEqual([{ id: folder, name: 'Sales', color: null, assistants_count: 1 }]);
      expect(filing(api(), id)).toStrictEqual({ folder_id: folder, label_ids: [label] });
      // The sequences continue: the next folder takes the next id.
      expect(await create(api(), 'folder', { name: 'Next' })).toBe(folder + 1);
    });
  }, { wire });
}

it('restores a snapshot taken before folders, labels and SMS existed, with them empty; an older table missing is still refused', async () => {
  const { createSimulator } = await import('../../src/simulator.js');
  const sim = createSimulator({ seed: 1 });
  const auth = { authorization: 'Bearer sim_test_key' };
  await sim.handle({ method: 'POST', path: '/user/folder', headers: auth, body: JSON.stringify({ name: 'Sales' }) });
  const saved = sim.snapshot();
  const older = structuredClone(saved) as unknown as { db: Record<string, unknown> };
  for (const table of ['folders', 'labels', 'sms']) delete older.db[table];
  sim.restore(older as unknown as typeof saved);
  const listed = await sim.handle({ method: 'GET', path: '/user/folders', headers: auth });
  expect((listed.body as { data: unknown[] }).data).toEqual([]);
  const damaged = structuredClone(saved) as unknown as { db: Record<string, unknown> };
  delete damaged.db.assistants;
  expect(() => sim.restore(damaged as unknown as typeof saved)).toThrow(/damaged at db\.assistants/);
});
