/**
 * `GET /user/calls?phone_number=` (spec: List calls, partial match) at a few thousand
 * calls: the total and the pages equal a plain filter over every call, newest first, for
 * dense and sparse matches, and stay so as calls arrive and leave between reads.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { callRow } from '../../src/domain/calls/schema.js';
import { createSimulator, type Simulator } from '../../src/simulator.js';

const AUTH = { authorization: 'Bearer sim_test_key' };
let sim: Simulator;
let next = 0;

function insertCalls(count: number, accountId = 1): void {
  const ctx = sim.accountScope(accountId)!;
  const start = Date.parse('2026-03-02T09:00:00Z');
  for (let i = 0; i < count; i++, next++) {
    ctx.calls.insert(
      callRow({
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
