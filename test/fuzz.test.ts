/**
 * Property-based fuzz of every route (issue 13 item 6; docs/requests-and-errors.md).
 * For each operation in ROUTES, generated bad input — random JSON values, garbage text,
 * each known field with a value of the wrong type, huge strings, objects nesting around
 * the 64-level limit, `__proto__`/`constructor` keys, numbers beyond the safe integers,
 * bad queries and bad ids — must never answer 5xx (except the documented 503
 * SENDER_OFFLINE); a refusal (4xx) must be one of the documented error shapes of the
 * route's family (or of the route, where the docs give it its own) and leave the
 * state exactly as it was (`JSON.stringify(sim.snapshot())` before and after).
 *
 * In-process through `sim.handle`, from one populated state per route (restored before
 * each run, so every counterexample replays on its own). Seeded: a failure prints the
 * seed and the shrunk request; `FUZZ_SEED` and `FUZZ_RUNS` replay or widen a run.
 */
import fc from 'fast-check';
import type { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteFamily } from '../src/core/errors.js';
import type { SimRequest, SimResponse } from '../src/core/http.js';
import { ROUTES, createSimulator, type Simulator, type SimulatorSnapshot } from '../src/simulator.js';
import { pipelineAssistant } from './support/fixtures.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_260_302);
/** Runs per route: 96 routes x 100 requests take about 15 s on two shared cores (the budget is 30 s). */
const RUNS = Number(process.env.FUZZ_RUNS ?? 100);
const START = '2026-03-02T09:00:00Z';
const KEY = 'sim_test_key';
const CUSTOMER = '+14155550123';
const HOOK = 'https://hooks.example.test/post-call';

// ---------------------------------------------------------------- error shapes

/** The spec's five shapes, R (rate limits) and S, update-status's `{message, success: false}`. */
type Shape = 'A' | 'B' | 'C' | 'D' | 'E' | 'R' | 'S';

const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const keysAre = (body: Record<string, unknown>, keys: string[]) => Object.keys(body).sort().join() === [...keys].sort().join();

/** Which documented shape a 4xx body is, if any (docs/requests-and-errors.md). */
function shapeOf(body: unknown): Shape | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const b = body as Record<string, unknown>;
  if (keysAre(b, ['message']) && isText(b.message)) return 'A';
  if (keysAre(b, ['message', 'errors']) && isText(b.message) && isFieldErrors(b.errors)) return 'B';
  if (keysAre(b, ['error']) && isText(b.error)) return 'C';
  // D may carry documented extras (session_status).
  if (b.success === false && isText(b.error) && isText(b.error_code) && Object.keys(b).every((k) => ['success', 'error', 'error_code', 'session_status'].includes(k))) return 'D';
  if (keysAre(b, ['status', 'error']) && b.status === false && isText(b.error)) return 'E';
  if (keysAre(b, ['message', 'retry_after']) && isText(b.message) && Number.isInteger(b.retry_after)) return 'R';
  if (keysAre(b, ['message', 'success']) && isText(b.message) && b.success === false) return 'S';
  return undefined;
}

function isFieldErrors(errors: unknown): boolean {
  if (typeof errors !== 'object' || errors === null || Array.isArray(errors)) return false;
  const lists = Object.values(errors);
  return lists.length > 0 && lists.every((list) => Array.isArray(list) && list.length > 0 && list.every(isText));
}

/**
 * The shapes each family answers refusals in: its own, plus A for what every route
 * shares (401 Unauthenticated., 404 unknown route, 405). Management routes answer A, B
 * and the phone numbers' C; the rate limits answer R (chat) and D (messaging).
 */
const FAMILY_SHAPES: Record<RouteFamily, readonly Shape[]> = {
  management: ['A', 'B', 'C', 'R'],
  chat: ['A', 'E', 'R'],
  messaging: ['A', 'D'],
  control: ['A', 'B'],
};

/** Routes the docs document with another shape besides their family's. */
const ROUTE_SHAPES: Record<string, readonly Shape[]> = {
  // docs/resources.md: Campaigns, update-status refusals.
  'POST /user/campaigns/update-status': ['S'],
  // docs/live-platform.md: Our decisions, AI reply generation, 404 ASSISTANT_NOT_FOUND and 402 INSUFFICIENT_BALANCE.
  'POST /user/ai/generate-reply': ['D'],
  'POST /ai/generate-reply': ['D'],
};

/** Documented 5xx refusals (spec: Send freeform errors, 503 SENDER_OFFLINE): route -> error_code. */
const DOCUMENTED_5XX: Record<string, string> = {
  'POST /user/msgapp/send-freeform': 'SENDER_OFFLINE',
  'POST /user/whatsapp/send-freeform': 'SENDER_OFFLINE',
};

// ---------------------------------------------------------------- the populated state

/**
 * One simulator with something behind every id: an outbound and an inbound assistant,
 * a campaign with a lead, a finished call, a chat conversation with a message, an open
 * messaging session, a purchased number. Webhooks go to a stub, never to the network.
 */
async function populated(): Promise<{ sim: Simulator; ids: Record<string, string[]> }> {
  const sim = createSimulator({ seed: 7, startAt: START, deliver: async () => ({ status: 200, body: '{"ok":true}', duration_ms: 1 }) });
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await sim.handle({ method, path, headers: { authorization: `Bearer ${KEY}` }, ...(body !== undefined && { body: JSON.stringify(body) }) });
    expect(Math.floor(res.status / 100), `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(2);
    return res.body as any;
  };
  const outbound = sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' });
  const inbound = sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550101' });
  await call('POST', '/user/assistant', pipelineAssistant({ phone_number_id: outbound.id, is_webhook_active: true, webhook_url: HOOK }));
  await call('POST', '/user/assistant', pipelineAssistant({ name: 'Inbound', type: 'inbound', phone_number_id: inbound.id }));
  await call('POST', '/user/campaign', { name: 'Spring', assistant_id: 1 });
  await call('POST', '/user/lead', { campaign_id: 1, phone_number: '+14155550124', variables: { name: 'Ann' } });
  await call('POST', '/user/make_call', { assistant_id: 1, phone_number: CUSTOMER });
  await sim.clock.advance('30m');
  const assistantUuid = (await call('GET', '/user/assistant/1')).data.uuid as string;
  const conversation = (await call('POST', '/conversations', { assistant_id: assistantUuid })).conversation_id as string;
  await call('POST', `/conversations/${conversation}/messages`, { message: 'Hello' });
  await call('POST', '/__sim/msgapp/inbound', { sender_id: 1, from: CUSTOMER, text: 'Hi there' });
  await call('POST', '/user/folder', { name: 'Priority', color: 'blue' });
  await call('POST', '/user/label', { name: 'VIP' });
  // A purchased number: its monthly renewal stays pending on the clock.
  const offered = (await call('GET', '/user/phone-numbers/search')).data.map((n: { phone_number: string }) => n.phone_number) as string[];
  await call('POST', '/user/phone-numbers/purchase', { phone_number: offered[0] });
  return { sim, ids: { id: ['1', '2', '3'], call: ['1'], uuid: [conversation], assistantId: ['1', assistantUuid], offered: offered.slice(1) } };
}

// ---------------------------------------------------------------- generators

/** A number JSON can carry but JavaScript cannot hold exactly, written into the body text as is. */
const RAW = '\u0001raw:';
const rawNumber = fc.constantFrom('9007199254740993', '-9007199254740993', '1e400', '-1e400', '123456789012345678901234567890', '1E+308', '0.0000000000000000000000001', '-0').map((n) => `${RAW}${n}`);

/** Body text with the raw numbers unquoted. */
function bodyText(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0001raw:([^"]*)"/g, '$1');
}

const hugeString = fc.constantFrom(256, 1_001, 10_001, 70_000, 300_000).chain((n) => fc.constantFrom('x', 'é', '😀', '9', ' ').map((c) => c.repeat(n)));

/** `{"a": {"a": ...}}` or `[[...]]`, 2 to 80 levels (the limit is 64). */
const deepish = fc.tuple(fc.integer({ min: 2, max: 80 }), fc.boolean(), fc.jsonValue({ maxDepth: 0 })).map(([depth, arrays, leaf]) => {
  let value: unknown = leaf;
  for (let i = 1; i < depth; i++) value = arrays ? [value] : { a: value };
  return value;
});

const edgeValue = fc.constantFrom<unknown>(
  null, true, false, 0, -1, 1, 1.5, -0.5, 2 ** 31, 2 ** 53, -(2 ** 53), 1e308, -1e308, Number.MIN_VALUE,
  '', ' ', '0', '1', '-1', 'true', 'null', 'NaN', 'Infinity', '1e309', '[]', '{}', '\u0000', '<script>', '../..', '%00', 'ünïcødé', '+1', '+14155550123',
  '2026-02-30T25:61:00Z', '9999-12-31T23:59:59Z', '0000-01-01T00:00:00Z', '1y', '-5m', '1e308ms', 'http://', 'javascript:alert(1)',
  [], {}, [null], [[]], { '': null },
);

/** An object whose own keys include `__proto__`, `constructor` or `prototype`. */
const protoObject = fc
  .tuple(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'), fc.jsonValue({ maxDepth: 2 }), fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }))
  .map(([key, value, rest]) => Object.fromEntries([[key, value], ...Object.entries(rest)]));

const badValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: edgeValue, weight: 5 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 3 },
  { arbitrary: fc.string({ maxLength: 40, unit: 'binary' }), weight: 2 },
  { arbitrary: fc.oneof(fc.integer(), fc.double()), weight: 2 },
  { arbitrary: rawNumber, weight: 1 },
  { arbitrary: hugeString, weight: 1 },
  { arbitrary: deepish, weight: 1 },
  { arbitrary: protoObject, weight: 1 },
  { arbitrary: fc.array(fc.oneof(edgeValue, protoObject), { maxLength: 4 }), weight: 1 },
);

/** The top-level field names a body or query schema knows (zod objects, through pipes, unions and wrappers). */
function fieldsOf(schema: z.ZodType | undefined, depth = 0): string[] {
  if (!schema || depth > 5) return [];
  const s = schema as unknown as { shape?: Record<string, unknown>; options?: z.ZodType[]; _zod?: { def?: Record<string, unknown> } };
  if (s.shape && typeof s.shape === 'object') return Object.keys(s.shape);
  const def = s._zod?.def ?? {};
  const inner = [def.in, def.out, def.innerType, def.left, def.right, def.schema, ...(Array.isArray(def.options) ? def.options : [])] as (z.ZodType | undefined)[];
  return [...new Set(inner.flatMap((child) => fieldsOf(child, depth + 1)))];
}

/** Valid bodies of the routes whose checks lie behind a valid body: one value in them is then spoiled. */
function validBodies(ids: Record<string, string[]>, snapshot: SimulatorSnapshot): Record<string, Record<string, unknown>> {
  const template = { sender_id: 1, template_id: 1, recipient_phone: CUSTOMER, variables: { customer_name: 'Ann', appointment_time: 'Monday' } };
  const freeform = { sender_id: 1, recipient_phone: CUSTOMER, message: 'Hello' };
  return {
    'PUT /__sim/state': snapshot as unknown as Record<string, unknown>,
    'POST /__sim/scenario': {
      name: 'fuzz',
      seed: 3,
      start: START,
      given: { phone_numbers: [{ ref: 'line', type: 'sip', phone_number: '+14155550100' }], assistants: [{ ref: 'sales', ...pipelineAssistant({ phone_number_id: '$line' }) }] },
      outcomes: { [CUSTOMER]: ['voicemail', 'human'] },
    },
    'POST /__sim/reset': { seed: 3, start: START, wire: 'spec' },
    'PUT /__sim/clock': { mode: 'manual', speed: 2 },
    'POST /__sim/clock/run-until-idle': { max_events: 10 },
    'PATCH /__sim/accounts/:id': { balance: 10, timezone: 'UTC', plan: { max_campaigns: 3 } },
    'POST /__sim/phone-numbers': { account_id: 1, type: 'caller_id', phone_number: '+14155550190' },
    'PUT /__sim/outcomes': { rules: [{ match: { phone_number: CUSTOMER }, outcomes: ['busy', { kind: 'human', talk_seconds: 30 }] }] },
    'PUT /__sim/replies': { rules: [{ when: 'hello', reply: 'Hi!', set_variables: { greeted: true } }] },
    'PATCH /__sim/msgapp/senders/:id': { online: true, assistant_id: 1 },
    'POST /user/phone-numbers/purchase': { phone_number: ids.offered![0] },
    'PUT /user/phone-numbers/:id': { assistant_id: 1 },
    'POST /user/ai/generate-reply': { assistant_id: 1, customer_identifier: 'cust-1', message: 'Hello', variables: { name: 'Ann' } },
    'POST /ai/generate-reply': { assistant_id: 1, customer_identifier: 'cust-1', message: 'Hello' },
    'POST /user/assistants/enable-webhook': { assistant_id: 1, webhook_url: HOOK },
    'POST /user/assistants/enable-conversation-ended-webhook': { assistant_id: 1, webhook_url: HOOK },
    'POST /assistants/:assistantId/enable-conversation-ended-webhook': { webhook_url: HOOK },
    'POST /user/assistant': pipelineAssistant({ is_webhook_active: true, webhook_url: HOOK }),
    'PUT /user/assistant/:id': { name: 'Renamed', max_duration: 600 },
    'POST /user/campaign': { name: 'Autumn', assistant_id: 1 },
    'POST /user/campaigns': { name: 'Autumn', assistant_id: 1 },
    'POST /user/campaigns/update-status': { campaign_id: 1, action: 'start' },
    'POST /user/lead': { campaign_id: 1, phone_number: '+14155550125', variables: { name: 'Bo' } },
    'PUT /user/leads/:id': { phone_number: '+14155550126', variables: { name: 'Cy' } },
    'PATCH /user/leads/:id': { status: 'new', variables: { name: 'Cy' } },
    'PUT /leads/:id': { variables: { name: 'Cy' } },
    'POST /user/make_call': { assistant_id: 1, phone_number: CUSTOMER, variables: { name: 'Ann' } },
    'POST /conversations': { assistant_id: ids.assistantId![1], type: 'api', variables: { name: 'Ann' } },
    'POST /conversations/:uuid/messages': { message: 'Hello again' },
    'POST /user/msgapp/send': template,
    'POST /user/whatsapp/send': template,
    'POST /user/msgapp/send-freeform': freeform,
    'POST /user/whatsapp/send-freeform': freeform,
    'POST /__sim/clock/advance': { by: '1m' },
    'POST /__sim/calls': { assistant_id: 1, client_phone_number: CUSTOMER },
    'POST /__sim/calls/inbound': { to: '+14155550101', from: CUSTOMER },
    'POST /__sim/msgapp/inbound': { sender_id: 1, from: CUSTOMER, text: 'Hi' },
    'POST /__sim/webhooks/failures': { url: HOOK, times: 1, with: 500 },
    'POST /__sim/faults': { method: 'GET', path: '/user/me', times: 1 },
    'POST /__sim/accounts': { name: 'Other', api_key: 'sim_other_key' },
    'POST /user/folder': { name: 'Fuzzed', color: 'red' },
    'PUT /user/folders/:id': { name: 'Renamed', color: null },
    'POST /user/labels': { name: 'Fuzzed', color: 'pink' },
    'PUT /user/label/:id': { name: 'Renamed' },
    'POST /user/phone-numbers/sip-trunks': {
      sip_trunk_type: 'number', phone_number: '+493012345678', sip_username: 'berlin', sip_password: 'secret', sip_address: 'sip.example.test',
      sip_calling_format: '+e164', inbound_authorization_type: 'ip', allowed_inbound_ips: ['203.0.113.10'], country_code: 'DE', outbound_proxy: true,
    },
    'PUT /user/phone-numbers/sip-trunks/:id': { sip_username: 'desk', sip_password: 'secret', sip_address: '10.0.0.5', inbound_authorization_type: 'ip', allowed_inbound_ips: ['10.0.0.1'] },
    'POST /user/sms': { from: 3, to: CUSTOMER, body: 'Hello' },
  };
}

/** Every key path into `value`, down to `depth` levels (`['given', 'assistants', '0', 'name']`). */
function pathsOf(value: unknown, depth = 6, prefix: string[] = []): string[][] {
  if (depth === 0 || typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => [[...prefix, key], ...pathsOf(child, depth - 1, [...prefix, key])]);
}

/** A copy of `body` with the value at `path` replaced by `value`, or removed when `value` is null. */
function spoil(body: unknown, path: string[], value: unknown): unknown {
  const [key, ...rest] = path;
  const copy: Record<string, unknown> = Array.isArray(body) ? ([...body] as unknown as Record<string, unknown>) : { ...(body as Record<string, unknown>) };
  if (rest.length > 0) copy[key!] = spoil(copy[key!] ?? {}, rest, value);
  else if (value === null) delete copy[key!];
  // defineProperty: a `__proto__` key stays an own key, as JSON.parse makes it.
  else Object.defineProperty(copy, key!, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

/** A body: text that is not JSON, a JSON value of any kind, known fields with bad values, or a valid body with one field spoiled. */
function bodyArbitrary(fields: string[], valid: Record<string, unknown> | undefined): fc.Arbitrary<string | null | undefined> {
  const names = fc.constantFrom(...fields, '__proto__', 'constructor', 'id', 'x');
  const withBadFields = fc.array(fc.tuple(names, badValue), { minLength: 1, maxLength: 5 }).map((entries) => bodyText(Object.fromEntries(entries)));
  const options: fc.WeightedArbitrary<string | null | undefined>[] = [
    { arbitrary: withBadFields, weight: 6 },
    { arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)), weight: 1 },
    { arbitrary: fc.string({ maxLength: 30 }), weight: 1 },
    { arbitrary: fc.constantFrom<string | null | undefined>(undefined, null, '', '{', '{"a":1}}', '[1,2', 'null', '"text"', '\u0000', '{"__proto__":{"polluted":1}}', '{"a":1,"a":{"b":2}}'), weight: 1 },
  ];
  if (valid) {
    const paths = [...fields.map((f) => [f]), ...pathsOf(valid)];
    const spoiled = fc.tuple(fc.constantFrom(...paths), fc.option(badValue, { freq: 6 })).map(([path, value]) => bodyText(spoil(valid, path, value)));
    options.push({ arbitrary: spoiled, weight: 8 });
  }
  return fc.oneof(...options);
}

/** Query keys the routes read, with and without a schema. */
const QUERY_KEYS = ['page', 'per_page', 'limit', 'kind', 'state', 'status', 'type', 'campaign_id', 'assistant_id', 'account_id', 'sender_id', 'recipient_phone', 'search', 'contains', 'country_code', 'engine_mode', 'mode', 'language_id', 'since'];

const queryValue = fc.oneof(
  fc.constantFrom('', '0', '-1', '1', '2', '101', '1.5', '1e3', '1e309', '9007199254740993', 'NaN', 'true', 'all', 'online', 'approved', 'delivered', 'post_call', '+14155550123', '__proto__', '%00', '\u0000'),
  fc.string({ maxLength: 20 }),
  hugeString,
);

function queryArbitrary(fields: string[]): fc.Arbitrary<Record<string, string | string[]>> {
  const key = fc.constantFrom(...new Set([...fields, ...QUERY_KEYS, '__proto__', 'constructor']));
  return fc.array(fc.tuple(key, fc.oneof({ arbitrary: queryValue, weight: 4 }, { arbitrary: fc.array(queryValue, { minLength: 2, maxLength: 3 }), weight: 1 })), { maxLength: 4 }).map((entries) => Object.fromEntries(entries));
}

const badId = fc.oneof(
  fc.constantFrom('0', '-1', '999999', '1.5', '1e3', '0x1', ' 1', '01', '9007199254740993', '1'.repeat(400), 'abc', '__proto__', 'constructor', 'null', 'undefined', '%', '%00', '..', '00000000-0000-4000-8000-000000000000'),
  fc.string({ minLength: 1, maxLength: 20 }),
);

/** The path of `route` with each parameter a known id (often) or a bad one. */
function pathArbitrary(path: string, ids: Record<string, string[]>): fc.Arbitrary<string> {
  const params = path.split('/').filter((s) => s.startsWith(':'));
  if (params.length === 0) return fc.constant(path);
  const values = params.map((p) => fc.oneof({ arbitrary: fc.constantFrom(...(ids[p.slice(1)] ?? ['1'])), weight: 2 }, { arbitrary: badId, weight: 3 }));
  return fc.tuple(...values).map((chosen) => {
    let i = 0;
    return path.replace(/:[A-Za-z]+/g, () => encodeURIComponent(chosen[i++]!));
  });
}

const authorization = fc.oneof(
  { arbitrary: fc.constant<string | undefined>(`Bearer ${KEY}`), weight: 8 },
  { arbitrary: fc.constantFrom<string | undefined>(undefined, 'Bearer ', 'Bearer wrong', 'Basic c2ltOnRlc3Q=', `bearer ${KEY}`, `Bearer ${KEY} x`), weight: 1 },
);

// ---------------------------------------------------------------- the property

/** What one run sends, for the failure report. */
interface Sent {
  path: string;
  query: Record<string, string | string[]>;
  body: string | null | undefined;
  authorization: string | undefined;
}

/** The body of an answer, shortened for a failure message. */
function brief(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 400 ? `${text.slice(0, 400)}... (${text.length} chars)` : text;
}

let base: Awaited<ReturnType<typeof populated>>;
let saved: SimulatorSnapshot;
let savedText: string;
/** Whether the last run left the state other than `saved` (a success changes it). */
let dirty = false;

beforeAll(async () => {
  base = await populated();
  saved = base.sim.snapshot();
  savedText = JSON.stringify(saved);
});

afterAll(() => base?.sim.dispose());

describe('fuzz: no route answers 5xx, an undocumented shape, or changes the state when it refuses', () => {
  it.each(ROUTES.map((route, index) => [`${route.method} ${route.path}`, route, index] as const))('%s', async (name, route, index) => {
    const { sim, ids } = base;
    const valid = validBodies(ids, saved)[name];
    const shapes = [...FAMILY_SHAPES[route.family], ...(ROUTE_SHAPES[name] ?? [])];
    const request = fc.record({
      path: pathArbitrary(route.path, ids),
      query: queryArbitrary(fieldsOf(route.query as z.ZodType | undefined)),
      body: route.method === 'GET' || route.method === 'DELETE' ? fc.option(bodyArbitrary([], undefined), { freq: 4, nil: undefined }) : bodyArbitrary(fieldsOf(route.body as z.ZodType | undefined), valid),
      authorization: route.auth === 'control' || route.auth === 'none' ? fc.constant<string | undefined>(`Bearer ${KEY}`) : authorization,
    });
    await fc.assert(
      fc.asyncProperty(request, async (sent: Sent) => {
        // Every run starts from the populated state, so a counterexample replays alone.
        if (dirty) sim.restore(structuredClone(saved));
        if (sim.clock.mode !== 'manual') sim.control.clock.setMode({ mode: 'manual' });
        const simRequest: SimRequest = {
          method: route.method,
          path: sent.path,
          query: sent.query,
          headers: sent.authorization === undefined ? {} : { authorization: sent.authorization },
          ...(sent.body !== undefined && { body: sent.body }),
        };
        dirty = true;
        const res: SimResponse = await sim.handle(simRequest);
        const after = JSON.stringify(sim.snapshot());
        dirty = after !== savedText;
        const context = `${route.method} ${sent.path} answered ${res.status} ${brief(res.body)} (replay: FUZZ_SEED=${SEED} npx vitest run test/fuzz.test.ts -t '${name}')`;
        if (res.status >= 500 && !(res.status === 503 && (res.body as { error_code?: unknown }).error_code === DOCUMENTED_5XX[name])) throw new Error(`5xx: ${context}`);
        if (res.status >= 400) {
          const shape = shapeOf(res.body);
          if (shape === undefined || !shapes.includes(shape)) throw new Error(`not a documented shape of this route (${shapes.join(', ')}): ${context}`);
          if (after !== savedText) throw new Error(`the state changed on a refusal: ${context}`);
        }
      }),
      // One seed per route, so a route's runs do not depend on the routes before it.
      { seed: SEED + index, numRuns: RUNS },
    );
  });
});
