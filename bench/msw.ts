/**
 * The MSW round trip: `fetch` of `GET /user/calls?per_page=15` (an account of 15 calls)
 * answered by the simulator's MSW handlers, against a bare MSW handler answering the
 * same bytes. Alternating rounds, medians of the time per request. Target: <= 1.15x.
 * Also `createSimulator()`: the mean time to build one (target <= 150 µs, absolute: a
 * fresh simulator per test must stay free).
 */
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { handlers } from '../src/adapters/msw.js';
import { createSimulator } from '../src/simulator.js';
import { alternate, emit, median, perCallMicros, perCallMicrosSync, round, timeFigure } from './lib.js';
import { AUTH, START, seededCalls } from './fixture.js';

const ROUNDS = 9;
const PER_ROUND = 300;
const BUDGET_MS = 1000;
const BASE = 'https://bench.voxsim.test/api';
const URL_ = `${BASE}/user/calls?per_page=15`;

const { sim } = await seededCalls(15, 1);
const simHandlers = handlers(sim, { baseUrl: BASE });
const bytes = JSON.stringify((await sim.handle({ method: 'GET', path: '/user/calls', headers: AUTH, query: { per_page: '15' } })).body);
const bare = [http.get(`${BASE}/user/calls`, () => new HttpResponse(bytes, { headers: { 'content-type': 'application/json' } }))];
const server = setupServer();
server.listen({ onUnhandledFrame: 'error' });
const get = async () => {
  const res = await fetch(URL_, { headers: AUTH });
  await res.text();
};
const side = (list: typeof bare) => async () => {
  server.resetHandlers(...list);
  return perCallMicros(get, PER_ROUND, BUDGET_MS);
};
server.resetHandlers(...simHandlers);
const check = await (await fetch(URL_, { headers: AUTH })).text();
if (check !== bytes) throw new Error('the handlers answer other bytes than the bare one');
await side(simHandlers)();
await side(bare)();
const result = await alternate(ROUNDS, side(simHandlers), side(bare));
server.close();
emit(timeFigure('msw.get_calls_page', result, { unit: 'µs per request', baselineOf: 'a bare MSW handler answering the same bytes', limit: 1.15 }));

const builds: number[] = [];
perCallMicrosSync(() => createSimulator({ seed: 1, startAt: START }), 200);
for (let i = 0; i < ROUNDS; i++) builds.push(perCallMicrosSync(() => createSimulator({ seed: 1, startAt: START }), 200));
const build = median(builds);
emit({ bench: 'createSimulator', value: round(build, 1), unit: 'µs per simulator', target: '<= 150 µs', met: build <= 150 });
