/**
 * `GET /user/calls?phone_number=` (spec: List calls, partial match) at a few thousand
 * calls: the total and the pages equal a plain filter over every call, newest first, for
 * dense and sparse matches, and stay so as calls arrive and leave between reads.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { callRow } from '../../src/domain/calls/row.js';
import { createSimulator, type Simulator } from '../../src/simulator.js';

const AUTH = { authorization: 'Bearer sim_test_key' };
let sim: Simulator;
let next = 0;

function insertCalls(count: number, accountId = 1): void {
  const ctx = sim.accountScope(accountId)!;
  const start = Date.parse('2026-03-02T09:00:00Z');
  for (let i = 0; i < count; i++, next++) {
    ctx.calls.insertRow((id) =>
      callRow(id, {
        account_id: accountId,
        assistant_id: null,
        assistant_name: 'A',
        type: 'outbound',
        assistant_phone_number: '+14155550100',
        // 500 numbers; every seventh call to a number of another area.
        client_phone_number: next % 7 === 0 ? `+1617555${String(next % 50).padStart(4, '0')}` : `+1212300${String(next % 500).padStart(4, '0')}`,
        status: 'completed',
        created_at: start + next * 1000,
      }),
    );
  }
}

async function list(query: Record<string, string>): Promise<{ ids: number[]; total: number }> {
  const res = await sim.handle({ method: 'GET', path: '/user/calls', headers: AUTH, query });
  expect(res.status).toBe(200);
  const body = res.body as { data: { id: number }[]; total: number };
  return { ids: body.data.map((c) => c.id), total: body.total };
}

/** The page and total a plain filter over every call of the account gives. */
function expected(needle: string, page: number, perPage: number): { ids: number[]; total: number } {
  const matching = sim.db.calls
    .all()
    .filter((c) => c.account_id === 1 && c.client_phone_number.includes(needle))
    .reverse();
  return { ids: matching.slice((page - 1) * perPage, page * perPage).map((c) => c.id), total: matching.length };
}

const NEEDLES = ['1212300', '212', '0001', '617555', '6175550049', '+', '99999', '3000499'];

async function expectAgreement(): Promise<void> {
  for (const needle of NEEDLES) {
    for (const [page, perPage] of [[1, 15], [3, 15], [1, 100], [40, 100]] as const) {
      expect(await list({ phone_number: needle, page: String(page), per_page: String(perPage) }), `${needle} page ${page}`).toEqual(expected(needle, page, perPage));
    }
  }
}

describe('list calls by a partial number', () => {
  beforeAll(() => {
    sim = createSimulator({ seed: 1, startAt: '2026-03-02T09:00:00Z' });
    sim.control.accounts.create({ api_key: 'sim_second_key' });
    insertCalls(6000);
    insertCalls(300, 2);
  });

  it('answers the total and the pages of a plain filter, dense and sparse matches alike', async () => {
    await expectAgreement();
  });

  it('counts the calls inserted after a first read', async () => {
    await list({ phone_number: '212' });
    insertCalls(700);
    insertCalls(50, 2);
    await expectAgreement();
  });

  it('counts again after calls were deleted', async () => {
    await list({ phone_number: '212' });
    for (const id of [5, 6, 7, 100, 6400]) {
      const res = await sim.handle({ method: 'DELETE', path: `/user/calls/${id}`, headers: AUTH });
      expect(res.status).toBe(200);
    }
    await expectAgreement();
  });

  it('answers a filter longer than any counted substring by the numbers themselves', async () => {
    const long = '2123000499000000001';
    expect(await list({ phone_number: long })).toEqual(expected(long, 1, 15));
  });
});

describe('list calls by several filters, some of which every call passes', () => {
  let assistant: number;
  let campaign: number;

  beforeAll(async () => {
    sim = createSimulator({ seed: 1, startAt: '2026-03-02T09:00:00Z' });
    const created = await sim.handle({
      method: 'POST',
      path: '/user/assistant',
      headers: AUTH,
      body: JSON.stringify({ name: 'A', voice_id: 1, language_id: 1, type: 'outbound', mode: 'pipeline', timezone: 'UTC', initial_message: 'Hi', system_prompt: 'S', llm_model_id: 1 }),
    });
    assistant = (created.body as { data: { id: number } }).data.id;
    campaign = ((await sim.handle({ method: 'POST', path: '/user/campaign', headers: AUTH, body: JSON.stringify({ name: 'C', assistant_id: assistant }) })).body as { data: { id: number } }).data.id;
    const ctx = sim.accountScope(1)!;
    const start = Date.parse('2026-03-02T09:00:00Z');
    for (let i = 0; i < 3000; i++) {
      ctx.calls.insertRow((id) =>
        callRow(id, {
          account_id: 1,
          // Every call has the assistant and the number's area; the campaign, type and status vary.
          assistant_id: assistant,
          assistant_name: 'A',
          campaign_id: i % 4 === 0 ? null : campaign,
          type: i % 4 === 0 ? 'inbound' : 'outbound',
          assistant_phone_number: '+14155550100',
          client_phone_number: `+1212300${String(i % 300).padStart(4, '0')}`,
          status: i % 3 === 0 ? 'busy' : 'completed',
          created_at: start + i * 60_000,
        }),
      );
    }
  });

  const queries = (): Record<string, string>[] => [
    { assistant_id: String(assistant) },
    { assistant_id: String(assistant), phone_number: '1212300' },
    { assistant_id: String(assistant), phone_number: '0029' },
    { status: 'completed', phone_number: '+1212' },
    { type: 'outbound', campaign_id: String(campaign), phone_number: '1212300', date_from: '2026-03-03' },
    { status: 'busy', type: 'inbound', assistant_id: String(assistant), campaign_id: String(campaign) },
    { status: 'completed', type: 'outbound', phone_number: '1212300', assistant_id: String(assistant), campaign_id: String(campaign), date_from: '2026-03-02', date_to: '2026-03-03' },
  ];

  it('answers the total and the page of a plain filter over every call', async () => {
    for (const query of queries()) {
      const matching = sim.db.calls
        .all()
        .filter(
          (c) =>
            (query.status === undefined || c.status === query.status) &&
            (query.type === undefined || c.type === query.type) &&
            (query.assistant_id === undefined || c.assistant_id === Number(query.assistant_id)) &&
            (query.campaign_id === undefined || c.campaign_id === Number(query.campaign_id)) &&
            (query.phone_number === undefined || c.client_phone_number.includes(query.phone_number.replace(/\D/g, ''))) &&
            (query.date_from === undefined || c.created_at >= Date.parse(`${query.date_from}T00:00:00Z`)) &&
            (query.date_to === undefined || c.created_at < Date.parse(`${query.date_to}T00:00:00Z`) + 86_400_000),
        )
        .reverse();
      for (const page of [1, 4]) {
        expect(await list({ ...query, page: String(page), per_page: '20' }), JSON.stringify(query)).toEqual({ ids: matching.slice((page - 1) * 20, page * 20).map((c) => c.id), total: matching.length });
      }
    }
  });
});
