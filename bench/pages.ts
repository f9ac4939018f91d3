/**
 * List pages that cost their page: `GET /user/calls` (first page, 15 a page) on an account
 * of 220,000 calls against the same page on an account of 15 calls, for each filter of
 * the spec (List calls) alone and all of them at once. Target: at most 2x.
 */
import { alternate, emit, option, perCallMicros, timeFigure } from './lib.js';
import { AUTH, seededCalls } from './fixture.js';

const BIG = Number(option('calls') ?? 220_000);
const SMALL = 15;
const ROUNDS = 7;
const PER_ROUND = 100;
/** Per round and side: a filter still costing a scan stops early. */
const BUDGET_MS = 250;
const TARGET = 2;

const big = await seededCalls(BIG);
const small = await seededCalls(SMALL);
// The numbers the fixture dials are the same in both; the dates cut days 2-3 of the big one (and the small one's only day).
const filters: Record<string, (s: typeof big) => Record<string, string>> = {
  none: () => ({}),
  status: () => ({ status: 'completed' }),
  type: () => ({ type: 'outbound' }),
  phone_number: () => ({ phone_number: '1212300' }),
  assistant_id: (s) => ({ assistant_id: String(s.assistantId) }),
  campaign_id: (s) => ({ campaign_id: String(s.campaignId) }),
  dates: () => ({ date_from: '2026-03-02', date_to: '2026-03-04' }),
  all: (s) => ({ status: 'completed', type: 'outbound', phone_number: '1212300', assistant_id: String(s.assistantId), campaign_id: String(s.campaignId), date_from: '2026-03-02', date_to: '2026-03-04' }),
};

for (const [name, filter] of Object.entries(filters)) {
  const page = (s: typeof big) => {
    const query = { per_page: '15', ...filter(s) };
    return () => s.sim.handle({ method: 'GET', path: '/user/calls', headers: AUTH, query });
  };
  const bigPage = page(big);
  const smallPage = page(small);
  const check = (await bigPage()).body as { total: number; data: unknown[] };
  if (check.data.length !== 15) throw new Error(`filter ${name} found ${check.data.length} calls`);
  await perCallMicros(bigPage, 20, BUDGET_MS);
  await perCallMicros(smallPage, 20, BUDGET_MS);
  const result = await alternate(ROUNDS, () => perCallMicros(bigPage, PER_ROUND, BUDGET_MS), () => perCallMicros(smallPage, PER_ROUND, BUDGET_MS));
  emit(timeFigure(`calls.first_page.${name}`, result, { unit: 'µs per request', baselineOf: `the same page on an account of ${SMALL} calls`, limit: TARGET, calls: BIG, matched: check.total }));
}
