/**
 * `GET /user/calls` with every combination of its filters (spec: List calls: status,
 * type, phone_number, assistant_id, campaign_id, date_from, date_to) against a plain
 * model: the account's calls filtered one by one, newest first. The history changes
 * between reads as the dialer and the control API change it: calls inserted in time
 * order and back-dated (`POST /__sim/calls` with a past `created_at`), calls moving
 * through their statuses, calls deleted, and calls placed and played out on the clock.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { CALL_STATUSES } from '../../src/core/vocabulary.js';
import { SeededRandom } from '../../src/core/random.js';
import { callRow } from '../../src/domain/calls/row.js';
import { CALL_TYPES, type Call } from '../../src/domain/calls/schema.js';
import { createSimulator, type Simulator } from '../../src/simulator.js';

const AUTH = { authorization: 'Bearer sim_test_key' };
const START = Date.parse('2026-03-02T09:00:00Z');
const DAY = 86_400_000;
const NUMBERS = Array.from({ length: 24 }, (_, i) => (i % 5 === 0 ? `+44207183${String(8700 + i)}` : `+1212555${String(1000 + i * 37).padStart(4, '0')}`));
/** Digits most numbers hold, more of them written with punctuation, the digits of one number, a text without digits that every number holds, digits none holds. */
const NEEDLES = ['555', '(212) 555-1', '2071838705', '+', '99999'];
const FILTERS = ['status', 'type', 'phone_number', 'assistant_id', 'campaign_id', 'date_from', 'date_to'] as const;
type Query = Partial<Record<(typeof FILTERS)[number], string>>;

let sim: Simulator;
let random: SeededRandom;
let assistants: number[];
let campaigns: number[];
/** The creation time of the latest in-order insert (back-dated ones go before it). */
let latest = START;

async function post(path: string, body: unknown): Promise<{ data: { id: number } }> {
  const res = await sim.handle({ method: 'POST', path, headers: AUTH, body: JSON.stringify(body) });
  expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body as { data: { id: number } };
}

function pick<T>(items: readonly T[]): T {
  return items[random.int(0, items.length - 1)]!;
}

/**
 * A call of account 1 straight into the table, at `created` (a campaign call, a make_call,
 * an inbound or a web call); half of them completed, so that a status can hold far more
 * calls than a number does.
 */
function insertCall(created: number): void {
  const status = random.int(0, 1) === 0 ? 'completed' : pick(CALL_STATUSES);
  const campaign = random.int(0, 3) === 0 ? null : pick(campaigns);
  sim.accountScope(1)!.calls.insertRow((id, accountId) =>
    callRow(id, {
      account_id: accountId,
      assistant_id: random.int(0, 9) === 0 ? null : pick(assistants),
      assistant_name: 'A',
      campaign_id: campaign,
      type: campaign === null ? pick(CALL_TYPES) : 'outbound',
      assistant_phone_number: '+14155550100',
      client_phone_number: pick(NUMBERS),
      status,
      created_at: created,
    }),
  );
}

/** A finished call through the control API, `days` before the latest one. */
async function insertBackDated(days: number): Promise<void> {
  const campaign = random.int(0, 1) === 0 ? null : pick(campaigns);
  await post('/__sim/calls', {
    assistant_id: pick(assistants),
    campaign_id: campaign,
    type: campaign === null ? pick(CALL_TYPES) : 'outbound',
    status: pick(CALL_STATUSES),
    client_phone_number: pick(NUMBERS),
    created_at: new Date(latest - days * DAY - random.int(0, DAY)).toISOString(),
  });
}

function accountCalls(): Call[] {
  return sim.db.calls.all().filter((c) => c.account_id === 1);
}

/** A random change of the history: mostly new calls, status changes and deletions, some back-dated. */
async function change(): Promise<void> {
  const action = random.int(0, 19);
  const calls = accountCalls();
  if (action < 8 || calls.length === 0) {
    latest += random.int(0, 3) * 3_600_000;
    insertCall(latest);
  } else if (action < 14) {
    const call = pick(calls);
    sim.accountScope(1)!.calls.update(call.id, { status: pick(CALL_STATUSES), updated_at: latest });
  } else if (action < 17) {
    const res = await sim.handle({ method: 'DELETE', path: `/user/calls/${pick(calls).id}`, headers: AUTH });
    expect(res.status).toBe(200);
  } else {
    await insertBackDated(random.int(1, 6));
  }
}

async function list(query: Query & { page: string; per_page: string }): Promise<{ ids: number[]; total: number }> {
  const res = await sim.handle({ method: 'GET', path: '/user/calls', headers: AUTH, query });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const body = res.body as { data: { id: number }[]; total: number };
  return { ids: body.data.map((c) => c.id), total: body.total };
}

/** What the plain model answers: every call of the account tested against each filter, newest (highest id) first. */
function expected(query: Query, page: number, perPage: number): { ids: number[]; total: number } {
  const digits = query.phone_number?.replace(/\D/g, '');
  const needle = digits === '' ? query.phone_number : digits;
  const from = query.date_from === undefined ? -Infinity : Date.parse(`${query.date_from}T00:00:00Z`);
  const to = query.date_to === undefined ? Infinity : Date.parse(`${query.date_to}T00:00:00Z`) + DAY;
  const matching = accountCalls()
    .filter(
      (c) =>
        (query.status === undefined || c.status === query.status) &&
        (query.type === undefined || c.type === query.type) &&
        (needle === undefined || c.client_phone_number.includes(needle)) &&
        (query.assistant_id === undefined || c.assistant_id === Number(query.assistant_id)) &&
        (query.campaign_id === undefined || c.campaign_id === Number(query.campaign_id)) &&
        c.created_at >= from &&
        c.created_at < to,
    )
    .sort((a, b) => b.id - a.id);
  return { ids: matching.slice((page - 1) * perPage, page * perPage).map((c) => c.id), total: matching.length };
}

/**
 * A value for each filter of `names` (dates in order): drawn at random, or taken from
 * `like` (a call of the account) so that combinations of many filters match something.
 */
function values(names: readonly (typeof FILTERS)[number][], like: Call | undefined): Query {
  const query: Query = {};
  const campaign = like?.campaign_id ?? pick(campaigns);
  const assistant = like?.assistant_id ?? pick(assistants);
  for (const name of names) {
    if (name === 'status') query.status = like?.status ?? pick(CALL_STATUSES);
    else if (name === 'type') query.type = like?.type ?? pick(CALL_TYPES);
    else if (name === 'phone_number') query.phone_number = like ? like.client_phone_number.slice(random.int(0, 5), -random.int(0, 4) || undefined) : pick(NEEDLES);
    else if (name === 'assistant_id') query.assistant_id = String(assistant);
    else if (name === 'campaign_id') query.campaign_id = String(campaign);
  }
  // Days from before the first call to after the latest: windows that cut the back-dated calls, and some that hold none.
  const days = Math.floor((latest - START) / DAY) + 4;
  const at = like ? Math.floor((like.created_at - START) / DAY) + 2 : random.int(0, days);
  const from = like ? random.int(Math.max(0, at - 2), at) : at;
  const day = (n: number) => new Date(START + (n - 2) * DAY).toISOString().slice(0, 10);
  if (names.includes('date_from')) query.date_from = day(from);
  if (names.includes('date_to')) query.date_to = day(like ? random.int(at, at + 2) : names.includes('date_from') ? random.int(from, days) : random.int(0, days));
  return query;
}

/** Every combination of the filters (128), each with `draws` random values, on the first page, a later one and one past the end. */
async function expectEveryCombination(draws: number): Promise<void> {
  for (let mask = 0; mask < 1 << FILTERS.length; mask++) {
    const names = FILTERS.filter((_, i) => (mask >> i) & 1);
    for (let draw = 0; draw < draws; draw++) {
      const query = values(names, draw % 2 === 0 ? undefined : pick(accountCalls()));
      const perPage = pick([1, 7, 15]);
      const total = expected(query, 1, perPage).total;
      for (const page of [1, 2, Math.max(1, Math.ceil(total / perPage)), Math.ceil(total / perPage) + 1]) {
        expect(await list({ ...query, page: String(page), per_page: String(perPage) }), `${JSON.stringify(query)} page ${page} of ${perPage}`).toEqual(expected(query, page, perPage));
      }
    }
  }
}

describe('list calls by every combination of filters, against a plain model', () => {
  beforeAll(async () => {
    sim = createSimulator({ seed: 7, startAt: '2026-03-02T09:00:00Z', accounts: [{ api_key: 'sim_test_key', balance: 1_000_000, timezone: 'UTC' }] });
    sim.control.accounts.create({ api_key: 'sim_second_key' });
    random = new SeededRandom(14);
    const number = sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' }).id;
    const assistant = { voice_id: 1, language_id: 1, type: 'outbound', mode: 'pipeline', timezone: 'UTC', initial_message: 'Hi', system_prompt: 'S', llm_model_id: 1, phone_number_id: number };
    assistants = [(await post('/user/assistant', { ...assistant, name: 'A' })).data.id, (await post('/user/assistant', { ...assistant, name: 'B', phone_number_id: null })).data.id];
    campaigns = [];
    for (const [name, id] of [['C1', assistants[0]], ['C2', assistants[0]], ['C3', assistants[1]]] as const) campaigns.push((await post('/user/campaign', { name, assistant_id: id })).data.id);
    // Another account's calls share the indexes and never show.
    const other = sim.accountScope(2)!;
    for (let i = 0; i < 50; i++) {
      other.calls.insertRow((id, accountId) => callRow(id, { account_id: accountId, assistant_id: null, assistant_name: 'X', type: 'outbound', assistant_phone_number: '+14155550199', client_phone_number: pick(NUMBERS), status: 'completed', created_at: START + i * 3_600_000 }));
    }
    for (let i = 0; i < 400; i++) {
      latest += random.int(0, 2) * 3_600_000;
      insertCall(latest);
    }
  });

  it('answers the total and the pages of the model over calls inserted in time order', async () => {
    await expectEveryCombination(2);
  });

  it('answers the same once back-dated calls have arrived', async () => {
    for (let i = 0; i < 30; i++) await insertBackDated(random.int(1, 6));
    await expectEveryCombination(2);
  });

  it('answers the same through status changes, deletions, new and back-dated calls between reads', async () => {
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 60; i++) await change();
      await expectEveryCombination(2);
    }
  });

  it('answers the same while calls placed with make_call go through their statuses on the clock', async () => {
    for (let i = 0; i < 12; i++) await post('/user/make_call', { assistant_id: assistants[0], phone_number: pick(NUMBERS.filter((n) => n.startsWith('+1'))) });
    // Reads between the clock's steps see calls initiated, ringing, in progress and ended.
    await expectEveryCombination(2);
    for (const step of ['1s', '1s', '2s', '5s', '30s', '2m', '10m', '1h']) {
      await sim.clock.advance(step);
      await expectEveryCombination(2);
    }
  });

  it('answers the same after the state is restored from a snapshot, and from a snapshot of another history', async () => {
    const saved = sim.snapshot();
    for (let i = 0; i < 40; i++) await change();
    const other = sim.snapshot();
    sim.restore(saved);
    await expectEveryCombination(1);
    sim.restore(other);
    await expectEveryCombination(1);
    for (let i = 0; i < 40; i++) await change();
    await expectEveryCombination(1);
  });
});
