/**
 * Documents of a knowledge base (live-platform C.1): websites by JSON, pdf/txt/docx
 * files by multipart/form-data (the 20,971,520-byte limit at both edges), the record,
 * the write answers, the 404s of both wires and ownership. Fixture documents: ids 1-12
 * in knowledge base 1, 13-15 in 2, 16-20 in 3; the first created document is id 21.
 */
import { expect, it } from 'vitest';
import { contract, type Api } from '../support/api.js';
import { expectAnswer, expectRefused, invalid } from '../support/expect.js';

const LIVE = { wire: 'live' } as const;
const CREATED_AT = '2026-03-02T09:00:00.000000Z';
const SECOND_KEY = 'sim_second_key';
const DOCS = '/user/knowledgebases/1/documents';
const WEBSITE = { name: 'Pricing page', type: 'website', url: 'https://www.example.test/pricing' };
const MAX_FILE = 20_971_520;
const KB_NOT_FOUND = { message: 'Knowledge base not found.' };
const DOC_NOT_FOUND_SPEC = { message: 'Document not found.' };
const DOC_NOT_FOUND_LIVE = { error: 'Document not found.' };
const FILE_REQUIRED = { message: 'A file is required for this document type.', errors: { file: ['A file is required for this document type.'] } };


/** A form with the text fields and, when `bytes` is given, a file of that many bytes. */
function form(fields: Record<string, string>, bytes?: number, filename = 'manual.pdf'): FormData {
  const data = new FormData();
  for (const [key, value] of Object.entries(fields)) data.append(key, value);
  if (bytes !== undefined) data.append('file', new Blob([new Uint8Array(bytes).fill(0x61)], { type: 'application/octet-stream' }), filename);
  return data;
}

/** The stored row of a document (its source is stored, never shown). */
function storedDocument(api: Api, id: number): Record<string, unknown> {
  return api.sim.snapshot().db.knowledgebase_documents!.rows.find((d) => d.id === id)!;
}

function expectedDocument(fields: Record<string, unknown>) {
  return { id: 21, name: 'Pricing page', description: null, type: 'website', type_label: 'Website', status: 'processing', status_label: 'Processing', ...fields };
}

for (const [wire, options] of [['spec', {}], ['live', LIVE]] as const) {
  contract(
    `documents: list and read (${wire} wire)`,
    (api) => {
      it('lists the fixture documents of a knowledge base in id order, named "<knowledge base> page <n>"', async () => {
        const res = await api().get(DOCS);
        expect(res.status).toBe(200);
        expect(res.body.data).toHaveLength(12);
        expect(res.body.data[0]).toStrictEqual({
          id: 1,
          name: 'Product FAQ page 1',
          description: null,
          type: 'website',
          type_label: 'Website',
          status: 'active',
          status_label: 'Active',
          created_at: CREATED_AT,
          updated_at: CREATED_AT,
        });
        expect(res.body.data.map((d: { id: number }) => d.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
        expect(res.body.data[11].name).toBe('Product FAQ page 12');
      });

      it('seeds a processing fixture knowledge base with processing documents that never change by themselves', async () => {
        await api().sim.clock.advance('1d');
        const res = await api().get('/user/knowledgebases/3/documents');
        expect(res.body.data.map((d: any) => [d.id, d.status])).toEqual([16, 17, 18, 19, 20].map((id) => [id, 'processing']));
      });

      it('reads one document of the knowledge base', async () => {
        expectAnswer(await api().get(`${DOCS}/2`), 200, {
          data: { id: 2, name: 'Product FAQ page 2', description: null, type: 'website', type_label: 'Website', status: 'active', status_label: 'Active', created_at: CREATED_AT, updated_at: CREATED_AT },
        });
      });

      it('answers a document of another knowledge base, or none, with the document 404', async () => {
        const notFound = wire === 'spec' ? DOC_NOT_FOUND_SPEC : DOC_NOT_FOUND_LIVE;
        for (const id of ['13', '999', 'abc']) {
          await expectRefused(api(), () => api().get(`${DOCS}/${id}`), 404, notFound);
          await expectRefused(api(), () => api().put(`${DOCS}/${id}`, { name: 'X' }), 404, notFound);
          await expectRefused(api(), () => api().del(`${DOCS}/${id}`), 404, notFound);
        }
      });

      it("answers another account's document under an own knowledge base with the document 404, and under theirs with the knowledge base's", async () => {
        api().sim.control.accounts.create({ api_key: SECOND_KEY });
        const notFound = wire === 'spec' ? DOC_NOT_FOUND_SPEC : DOC_NOT_FOUND_LIVE;
        // The second account holds knowledge bases 4-6 and documents 21-40.
        await expectRefused(api(), () => api().get(`${DOCS}/21`), 404, notFound);
        await expectRefused(api(), () => api().get('/user/knowledgebases/4/documents/21'), 404, wire === 'spec' ? KB_NOT_FOUND : { error: 'Knowledgebase not found.' });
        expect((await api().get('/user/knowledgebases/4/documents/21', { key: SECOND_KEY })).body.data.name).toBe('Product FAQ page 1');
      });
    },
    options,
  );

  contract(
    `documents: create, update, delete (${wire} wire)`,
    (api) => {
      it('creates a website document: 201, processing, the record without updated_at', async () => {
        const res = await api().post(DOCS, { ...WEBSITE, description: 'Our plans' });
        expectAnswer(res, 201, {
          message: 'Document created successfully. Processing will begin shortly.',
          data: expectedDocument({ description: 'Our plans', created_at: CREATED_AT }),
        });
        expect((await api().get(`${DOCS}/21`)).body.data).toStrictEqual(expectedDocument({ description: 'Our plans', created_at: CREATED_AT, updated_at: CREATED_AT }));
        expect((await api().get('/user/knowledgebases/1')).body.data).toMatchObject({ documents_count: 13, status: 'processing' });
      });

      it('stores the source and never shows it, with the link limit defaulting to 10', async () => {
        const res = await api().post(DOCS, WEBSITE);
        for (const key of ['url', 'links', 'relative_links_limit', 'file_name', 'file_size']) expect(res.body.data).not.toHaveProperty(key);
        expect(storedDocument(api(), 21)).toMatchObject({ url: 'https://www.example.test/pricing', links: null, relative_links_limit: 10, file_name: null, file_size: null });
      });

      it('takes links instead of a url, and both together', async () => {
        const links = [{ link: 'https://www.example.test/a' }, { link: 'https://www.example.test/b' }];
        expect((await api().post(DOCS, { name: 'Links', type: 'website', links })).status).toBe(201);
        expect(storedDocument(api(), 21)).toMatchObject({ url: null, links: ['https://www.example.test/a', 'https://www.example.test/b'] });
        expect((await api().post(DOCS, { ...WEBSITE, links })).status).toBe(201);
        expect(storedDocument(api(), 22)).toMatchObject({ url: WEBSITE.url, links: ['https://www.example.test/a', 'https://www.example.test/b'] });
      });

      it('accepts relative_links_limit 1 and 50', async () => {
        expect((await api().post(DOCS, { ...WEBSITE, relative_links_limit: 1 })).status).toBe(201);
        expect((await api().post(DOCS, { ...WEBSITE, relative_links_limit: 50 })).status).toBe(201);
        expect([storedDocument(api(), 21).relative_links_limit, storedDocument(api(), 22).relative_links_limit]).toEqual([1, 50]);
      });

      it('refuses relative_links_limit 0 and 51, and a fraction, with 422 and changes nothing', async () => {
        const between = invalid({ relative_links_limit: ['The relative links limit must be between 1 and 50.'] });
        await expectRefused(api(), () => api().post(DOCS, { ...WEBSITE, relative_links_limit: 0 }), 422, between);
        await expectRefused(api(), () => api().post(DOCS, { ...WEBSITE, relative_links_limit: 51 }), 422, between);
        await expectRefused(api(), () => api().post(DOCS, { ...WEBSITE, relative_links_limit: 2.5 }), 422, invalid({ relative_links_limit: ['The relative links limit must be an integer.'] }));
      });

      it('refuses a website without url and links with 422 on both and changes nothing', async () => {
        await expectRefused(
          api(),
          () => api().post(DOCS, { name: 'Nothing', type: 'website' }),
          422,
          invalid({ url: ['The url field is required when links is not present.'], links: ['The links field is required when url is not present.'] }),
        );
      });

      it('refuses a bad url, an empty links list and a bad link with 422 and changes nothing', async () => {
        await expectRefused(api(), () => api().post(DOCS, { ...WEBSITE, url: 'not a url' }), 422, invalid({ url: ['The url format is invalid.'] }));
        await expectRefused(api(), () => api().post(DOCS, { name: 'L', type: 'website', links: [] }), 422, invalid({ links: ['The links must have at least 1 items.'] }));
        await expectRefused(api(), () => api().post(DOCS, { name: 'L', type: 'website', links: [{ link: 'ftp://x.test' }] }), 422, invalid({ 'links.0.link': ['The links.0.link format is invalid.'] }));
        await expectRefused(api(), () => api().post(DOCS, { name: 'L', type: 'website', links: [{}] }), 422, invalid({ 'links.0.link': ['The links.0.link field is required.'] }));
      });

      it('refuses a missing or unknown type and a missing name with 422 and changes nothing', async () => {
        await expectRefused(api(), () => api().post(DOCS, { name: 'X', url: WEBSITE.url }), 422, invalid({ type: ['The type field is required.'] }));
        await expectRefused(api(), () => api().post(DOCS, { ...WEBSITE, type: 'video' }), 422, invalid({ type: ['The selected type is invalid.'] }));
        await expectRefused(api(), () => api().post(DOCS, { type: 'website', url: WEBSITE.url }), 422, invalid({ name: ['The name field is required.'] }));
      });

      it('accepts a name and description of 255 characters and refuses 256', async () => {
        expect((await api().post(DOCS, { ...WEBSITE, name: 'n'.repeat(255), description: 'd'.repeat(255) })).status).toBe(201);
        await expectRefused(api(), () => api().post(DOCS, { ...WEBSITE, name: 'n'.repeat(256) }), 422, invalid({ name: ['The name may not be greater than 255 characters.'] }));
        await expectRefused(api(), () => api().post(DOCS, { ...WEBSITE, description: 'd'.repeat(256) }), 422, invalid({ description: ['The description may not be greater than 255 characters.'] }));
      });

      it('updates name and description, answers without created_at, and keeps type and content', async () => {
        await api().sim.clock.advance('5m');
        const res = await api().put(`${DOCS}/3`, { name: 'FAQ: shipping', description: 'Delivery times', type: 'pdf', url: 'https://elsewhere.test/' });
        expectAnswer(res, 200, {
          message: 'Document updated successfully.',
          data: { id: 3, name: 'FAQ: shipping', description: 'Delivery times', type: 'website', type_label: 'Website', status: 'active', status_label: 'Active', updated_at: '2026-03-02T09:05:00.000000Z' },
        });
        expect(storedDocument(api(), 3).url).toBe('https://docs.example.test/knowledgebases/1/page-3');
        expect((await api().put(`${DOCS}/3`, { description: null })).body.data).toMatchObject({ name: 'FAQ: shipping', description: null });
      });

      it('refuses an update with an empty name with 422 and changes nothing', async () => {
        await expectRefused(api(), () => api().put(`${DOCS}/3`, { name: '' }), 422, invalid({ name: ['The name field is required.'] }));
      });

      it('deletes a document', async () => {
        expectAnswer(await api().del(`${DOCS}/4`), 200, { message: 'Document deleted successfully.' });
        expect((await api().get(DOCS)).body.data.map((d: { id: number }) => d.id)).not.toContain(4);
        expect((await api().get('/user/knowledgebases/1')).body.data.documents_count).toBe(11);
      });

      it('deletes a processing document with its timer', async () => {
        await api().post(DOCS, WEBSITE);
        const pending = api().sim.clock.pendingCount;
        await api().del(`${DOCS}/21`);
        expect(api().sim.clock.pendingCount).toBe(pending - 1);
      });
    },
    options,
  );

  contract(
    `documents: files by multipart/form-data (${wire} wire)`,
    (api) => {
      it('creates pdf, txt and docx documents from a form with a file', async () => {
        const labels: Record<string, string> = { pdf: 'PDF', txt: 'TXT', docx: 'DOCX' };
        let id = 21;
        for (const type of ['pdf', 'txt', 'docx']) {
          const res = await api().post(DOCS, undefined, { form: form({ name: `Manual ${type}`, type, description: 'Handbook' }, 1234, `manual.${type}`) });
          expectAnswer(res, 201, {
            message: 'Document created successfully. Processing will begin shortly.',
            data: { id, name: `Manual ${type}`, description: 'Handbook', type, type_label: labels[type], status: 'processing', status_label: 'Processing', created_at: CREATED_AT },
          });
          expect(storedDocument(api(), id)).toMatchObject({ file_name: `manual.${type}`, file_size: 1234, url: null, relative_links_limit: null });
          id++;
        }
      });

      it('keeps text fields in UTF-8 and counts the file in bytes', async () => {
        const res = await api().post(DOCS, undefined, { form: form({ name: 'Prüfbericht – Größe', type: 'pdf' }, 3, 'Größe.pdf') });
        expect(res.body.data.name).toBe('Prüfbericht – Größe');
        expect(storedDocument(api(), 21)).toMatchObject({ file_name: 'Größe.pdf', file_size: 3 });
      });

      it('refuses a file type without a file, by JSON or by form, with 422 on file and changes nothing', async () => {
        await expectRefused(api(), () => api().post(DOCS, { name: 'Manual', type: 'pdf' }), 422, FILE_REQUIRED);
        await expectRefused(api(), () => api().post(DOCS, { name: 'Manual', type: 'txt', file: { filename: 'a.txt', size: 10 } }), 422, FILE_REQUIRED);
        await expectRefused(api(), () => api().post(DOCS, undefined, { form: form({ name: 'Manual', type: 'docx' }) }), 422, FILE_REQUIRED);
        await expectRefused(api(), () => api().post(DOCS, undefined, { form: form({ name: 'Manual', type: 'docx', file: 'text, not a file' }) }), 422, FILE_REQUIRED);
      });

      it('accepts an empty file (processing fails it later)', async () => {
        const res = await api().post(DOCS, undefined, { form: form({ name: 'Empty', type: 'txt' }, 0, 'empty.txt') });
        expect(res.status).toBe(201);
        expect(storedDocument(api(), 21).file_size).toBe(0);
      });

      it('takes a website by form too, the link limit as digits', async () => {
        const res = await api().post(DOCS, undefined, { form: form({ name: 'Site', type: 'website', url: 'https://www.example.test/', relative_links_limit: '25' }) });
        expect(res.status, res.text).toBe(201);
        expect(storedDocument(api(), 21)).toMatchObject({ url: 'https://www.example.test/', relative_links_limit: 25, file_size: null });
      });

      it('validates form fields like JSON ones', async () => {
        await expectRefused(api(), () => api().post(DOCS, undefined, { form: form({ type: 'pdf' }, 10) }), 422, invalid({ name: ['The name field is required.'] }));
        await expectRefused(
          api(),
          () => api().post(DOCS, undefined, { form: form({ name: 'S', type: 'website', url: 'https://www.example.test/', relative_links_limit: '51' }) }),
          422,
          invalid({ relative_links_limit: ['The relative links limit must be between 1 and 50.'] }),
        );
      });

      it('answers a form to a missing knowledge base with its 404', async () => {
        await expectRefused(api(), () => api().post('/user/knowledgebases/99/documents', undefined, { form: form({ name: 'M', type: 'pdf' }, 10) }), 404, wire === 'spec' ? KB_NOT_FOUND : { error: 'Knowledgebase not found.' });
      });

      it('answers a malformed form with 400 shape A and changes nothing', async () => {
        const headers = { 'content-type': 'multipart/form-data; boundary=XYZ' };
        const body = { message: 'Malformed multipart/form-data request body.' };
        await expectRefused(api(), () => api().post(DOCS, undefined, { raw: '--XYZ\r\nContent-Disposition: form-data; name="name"\r\n\r\nno closing delimiter', headers }), 400, body);
        await expectRefused(api(), () => api().post(DOCS, undefined, { raw: 'no boundary at all', headers: { 'content-type': 'multipart/form-data' } }), 400, body);
      });

      it('answers a form sent to a route that reads JSON as malformed JSON', async () => {
        await expectRefused(api(), () => api().post('/user/knowledgebases', undefined, { form: form({ name: 'By form' }) }), 400, { message: 'Malformed JSON in request body.' });
      });
    },
    options,
  );
}

// The size limit does not depend on the wire: its two 20 MB edges run once per transport, on the spec wire.
contract('documents: the file size limit', (api) => {
      it(`accepts a file of exactly ${MAX_FILE} bytes`, async () => {
        const res = await api().post(DOCS, undefined, { form: form({ name: 'Big manual', type: 'pdf' }, MAX_FILE) });
        expect(res.status, res.text).toBe(201);
        expect(storedDocument(api(), 21).file_size).toBe(MAX_FILE);
      });

      it(`refuses a file of ${MAX_FILE + 1} bytes with 422 on file and changes nothing`, async () => {
        const text = 'The file may not be greater than 20480 kilobytes.';
        await expectRefused(api(), () => api().post(DOCS, undefined, { form: form({ name: 'Too big', type: 'pdf' }, MAX_FILE + 1) }), 422, { message: text, errors: { file: [text] } });
      });

});

contract('control: GET /__sim/documents', (api) => {
  it('lists every document with its stored source, in id order, the same in-process', async () => {
    await api().post(DOCS, { ...WEBSITE, links: [{ link: 'https://www.example.test/a' }], relative_links_limit: 3 });
    await api().post(DOCS, undefined, { form: form({ name: 'Manual', type: 'pdf' }, 42, 'manual.pdf') });
    const res = await api().get('/__sim/documents', { query: { knowledgebase_id: 1 } });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(14);
    expect(res.body.data[0]).toStrictEqual({
      id: 1,
      account_id: 1,
      knowledgebase_id: 1,
      name: 'Product FAQ page 1',
      type: 'website',
      status: 'active',
      url: 'https://docs.example.test/knowledgebases/1/page-1',
      links: null,
      relative_links_limit: 10,
      file_name: null,
      file_size: null,
      created_at: CREATED_AT,
      updated_at: CREATED_AT,
    });
    expect(res.body.data.slice(12).map((d: any) => [d.id, d.url, d.links, d.relative_links_limit, d.file_name, d.file_size])).toEqual([
      [21, WEBSITE.url, ['https://www.example.test/a'], 3, null, null],
      [22, null, null, null, 'manual.pdf', 42],
    ]);
    expect(api().sim.control.documents.list({ knowledgebase_id: 1 })).toStrictEqual(res.body);
  });

  it('filters by account', async () => {
    api().sim.control.accounts.create({ api_key: SECOND_KEY });
    const res = await api().get('/__sim/documents', { query: { account_id: 2 } });
    expect(res.body.data.map((d: { id: number }) => d.id)).toEqual(Array.from({ length: 20 }, (_, i) => 21 + i));
    expect((await api().get('/__sim/documents')).body.data).toHaveLength(40);
  });

  it('refuses ids that are not whole numbers with 422, in-process too', async () => {
    const res = await api().get('/__sim/documents', { query: { knowledgebase_id: 'abc' } });
    const body = { message: 'The knowledgebase id must be an integer.', errors: { knowledgebase_id: ['The knowledgebase id must be an integer.'] } };
    expectAnswer(res, 422, body);
    expect(() => api().sim.control.documents.list({ account_id: 0 })).toThrow('The account id must be at least 1.');
  });
});
