/**
 * The document lifecycle on the virtual clock (live-platform C.1 Lifecycle, decision):
 * a new document is processing; 60 s later one clock event makes it active, or failed
 * when one of its URLs has a host ending in `.invalid` or its file is empty. A knowledge
 * base's status follows its documents. Driven in-process with the API and the clock.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator.js';

const START = '2026-03-02T09:00:00Z';
const KEY = 'sim_test_key';

let sim: Simulator;

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await sim.handle({
    method,
    path,
    headers: { authorization: `Bearer ${KEY}`, ...(body !== undefined && typeof body !== 'string' && { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: res.body as any };
}

async function newKnowledgebase(): Promise<number> {
  return (await call('POST', '/user/knowledgebases', { name: 'Support articles' })).body.data.id;
}

async function addWebsite(kb: number, fields: Record<string, unknown> = { url: 'https://www.example.test/' }): Promise<number> {
  const res = await call('POST', `/user/knowledgebases/${kb}/documents`, { name: 'Page', type: 'website', ...fields });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

/** A file document sent as a multipart body written out by hand (in-process callers send text). */
async function addFile(kb: number, content: string): Promise<number> {
  const body = [
    '--B',
    'Content-Disposition: form-data; name="name"',
    '',
    'Manual',
    '--B',
    'Content-Disposition: form-data; name="type"',
    '',
    'txt',
    '--B',
    'Content-Disposition: form-data; name="file"; filename="manual.txt"',
    'Content-Type: text/plain',
    '',
    content,
    '--B--',
    '',
  ].join('\r\n');
  const res = await call('POST', `/user/knowledgebases/${kb}/documents`, body, { 'content-type': 'multipart/form-data; boundary=B' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.id;
}

const documentOf = async (kb: number, id: number) => (await call('GET', `/user/knowledgebases/${kb}/documents/${id}`)).body.data;
const knowledgebase = async (kb: number) => (await call('GET', `/user/knowledgebases/${kb}`)).body.data;

beforeEach(() => {
  sim = createSimulator({ seed: 1, startAt: START });
});

describe('document lifecycle', () => {
  it('keeps a document processing until 60 s have passed, then makes it active', async () => {
    const kb = await newKnowledgebase();
    const id = await addWebsite(kb);
    await sim.clock.advance(59_999);
    expect(await documentOf(kb, id)).toMatchObject({ status: 'processing', status_label: 'Processing', updated_at: '2026-03-02T09:00:00.000000Z' });
    await sim.clock.advance(1);
    expect(await documentOf(kb, id)).toMatchObject({ status: 'active', status_label: 'Active', created_at: '2026-03-02T09:00:00.000000Z', updated_at: '2026-03-02T09:01:00.000000Z' });
  });

  it('fails a website whose url host ends in .invalid', async () => {
    const kb = await newKnowledgebase();
    const id = await addWebsite(kb, { url: 'https://shop.example.invalid/about' });
    await sim.clock.advance('60s');
    expect(await documentOf(kb, id)).toMatchObject({ status: 'failed', status_label: 'Failed' });
  });

  it('fails a website when any one of its links has an .invalid host', async () => {
    const kb = await newKnowledgebase();
    const id = await addWebsite(kb, { links: [{ link: 'https://www.example.test/a' }, { link: 'http://gone.invalid/b' }] });
    await sim.clock.advance('60s');
    expect((await documentOf(kb, id)).status).toBe('failed');
  });

  it('does not fail a host that merely contains "invalid"', async () => {
    const kb = await newKnowledgebase();
    const id = await addWebsite(kb, { url: 'https://invalid.example.test/' });
    await sim.clock.advance('60s');
    expect((await documentOf(kb, id)).status).toBe('active');
  });

  it('fails an empty file and activates a non-empty one', async () => {
    const kb = await newKnowledgebase();
    const empty = await addFile(kb, '');
    const full = await addFile(kb, 'Opening hours: 9-17');
    await sim.clock.advance('60s');
    expect((await documentOf(kb, empty)).status).toBe('failed');
    expect((await documentOf(kb, full)).status).toBe('active');
  });

  it('emits each status change on the event stream', async () => {
    const kb = await newKnowledgebase();
    const id = await addWebsite(kb);
    await sim.clock.advance('60s');
    expect(sim.events.history('document.status').map((e) => [e.at - Date.parse(START), e.data])).toEqual([
      [0, { account_id: 1, knowledgebase_id: kb, document_id: id, status: 'processing' }],
      [60_000, { account_id: 1, knowledgebase_id: kb, document_id: id, status: 'active' }],
    ]);
  });

  it('survives a snapshot: a restored simulator finishes the processing', async () => {
    const kb = await newKnowledgebase();
    const id = await addWebsite(kb);
    await sim.clock.advance('30s');
    const saved = sim.snapshot();
    const other = createSimulator({ seed: 1, startAt: START });
    other.restore(saved);
    sim = other;
    await sim.clock.advance('30s');
    expect((await documentOf(kb, id)).status).toBe('active');
  });

  it('forgets a reset simulator\'s documents and timers', async () => {
    const kb = await newKnowledgebase();
    await addWebsite(kb);
    sim.reset();
    expect((await call('GET', '/user/knowledgebases')).body.data.map((k: { id: number }) => k.id)).toEqual([1, 2, 3]);
    expect(sim.snapshot().clock.events.filter((e) => e.type === 'knowledgebase.document_processed')).toEqual([]);
  });
});

describe('a knowledge base follows its documents', () => {
  it('goes empty → processing → active as its first document is added and processed', async () => {
    const kb = await newKnowledgebase();
    expect((await knowledgebase(kb)).status).toBe('empty');
    await addWebsite(kb);
    expect((await knowledgebase(kb)).status).toBe('processing');
    await sim.clock.advance('60s');
    expect((await knowledgebase(kb)).status).toBe('ready');
  });

  it('stays processing while any document processes, even beside a failed one', async () => {
    const kb = await newKnowledgebase();
    await addWebsite(kb, { url: 'https://a.invalid/' });
    await sim.clock.advance('30s');
    await addWebsite(kb);
    await sim.clock.advance('30s');
    expect((await knowledgebase(kb)).status).toBe('processing');
    await sim.clock.advance('30s');
    expect((await knowledgebase(kb)).status).toBe('failed');
  });

  it('becomes active again once its failed document is deleted', async () => {
    const kb = await newKnowledgebase();
    const failing = await addWebsite(kb, { url: 'https://a.invalid/' });
    await addWebsite(kb);
    await sim.clock.advance('60s');
    expect((await knowledgebase(kb)).status).toBe('failed');
    await call('DELETE', `/user/knowledgebases/${kb}/documents/${failing}`);
    expect((await knowledgebase(kb)).status).toBe('ready');
  });

  it('turns a fixture knowledge base processing when a document is added to it, and ready once processed', async () => {
    await addWebsite(1);
    expect((await knowledgebase(1)).status).toBe('processing');
    await sim.clock.advance('60s');
    expect((await knowledgebase(1)).status).toBe('ready');
  });

  it('touches the knowledge base when processing ends', async () => {
    const kb = await newKnowledgebase();
    await addWebsite(kb);
    await sim.clock.advance('60s');
    expect((await knowledgebase(kb)).updated_at).toBe('2026-03-02T09:01:00.000000Z');
  });
});
