/**
 * The exported payload types (src/types.ts) and the typed `sim.control`: checked by the
 * type-check of the suite (`tsc -p tsconfig.check.json`, part of `npm test`), where every
 * `@ts-expect-error` below must meet an error; the runtime checks show the types
 * describe what the simulator really answers.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  createSimulator,
  type Simulator,
  type Assistant,
  type Call,
  type Campaign,
  type CreateAssistantRequest,
  type CreateCampaignRequest,
  type CreateLeadRequest,
  type Delivery,
  type InsertNumberInput,
  type Lead,
  type LiveAssistant,
  type LiveCall,
  type Page,
  type PostCallWebhook,
  type SessionStatusResponse,
  type SimControl,
  type SimEvent,
  type SimEventMap,
  type ScenarioInput,
  type WireEvent,
  SIM_EVENT_SCHEMAS,
} from 'voxsim';
import { readFileSync } from 'node:fs';

const sim = createSimulator({ seed: 1, startAt: '2026-03-02T09:00:00Z' });

describe('typed sim.control', () => {
  it('refuses an input the schema refuses, at compile time and at run time', () => {
    // @ts-expect-error 'sipp' is not a number type
    expect(() => sim.control.phoneNumbers.add({ account_id: 1, type: 'sipp', phone_number: '+14155550100' })).toThrow();
    // @ts-expect-error the clock's mode is manual or realtime
    expect(() => sim.control.clock.setMode({ mode: 'fast' })).toThrow();
    // @ts-expect-error an unknown outcome
    expect(() => sim.control.outcomes.forNumber('+15551230042', ['voicemaill'])).toThrow();
    expectTypeOf<Parameters<SimControl['phoneNumbers']['add']>[0]>().toEqualTypeOf<InsertNumberInput>();
    expectTypeOf<InsertNumberInput['type']>().toEqualTypeOf<'sip' | 'caller_id'>();
  });

  it('accepts what the schema accepts', async () => {
    const added = sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' });
    expect(added.phone_number).toBe('+14155550100');
    expectTypeOf(added.id).toEqualTypeOf<number>();
    const moved = await sim.control.clock.advance({ by: '1m' });
    expectTypeOf(moved.now).toEqualTypeOf<string>();
  });
});

describe('request and record types', () => {
  it('types request bodies from the schemas (z.input)', () => {
    expectTypeOf<CreateCampaignRequest['name']>().toEqualTypeOf<string>();
    expectTypeOf<CreateLeadRequest>().toHaveProperty('phone_number');
    expectTypeOf<CreateAssistantRequest['system_prompt']>().toEqualTypeOf<string>();
    // @ts-expect-error an assistant is created with its required fields (REQUIRED_ON_CREATE)
    const bare: CreateAssistantRequest = { name: 'Sales' };
    void bare;
    // @ts-expect-error a campaign needs its assistant
    const missing: CreateCampaignRequest = { name: 'Spring' };
    void missing;
  });

  it('types records as the API answers them', async () => {
    sim.reset();
    sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' });
    const body: CreateAssistantRequest = {
      name: 'Sales', voice_id: 1, language_id: 1, type: 'outbound', mode: 'pipeline', timezone: 'Europe/Berlin',
      initial_message: 'Hello!', system_prompt: 'You sell.', llm_model_id: 1, phone_number_id: 1,
    };
    const res = await sim.handle({ method: 'POST', path: '/user/assistant', headers: { authorization: 'Bearer sim_test_key' }, body: JSON.stringify(body) });
    const assistant = (res.body as { data: Assistant }).data;
    expect(assistant.id).toBe(1);
    expectTypeOf<Assistant['id']>().toEqualTypeOf<number>();
    expectTypeOf<Campaign['status']>().toEqualTypeOf<'draft' | 'in-progress' | 'stopped' | 'completed'>();
    expectTypeOf<Lead>().toHaveProperty('variables');
    expectTypeOf<Call>().toHaveProperty('answered_by');
    expectTypeOf<PostCallWebhook>().toHaveProperty('transcript');
    expectTypeOf<Delivery>().toHaveProperty('attempts');
    expectTypeOf<SimEvent>().toHaveProperty('type');
  });

  it('types records and answers from the answer schemas (z.output), per wire', () => {
    // The spec wire's booleans and numbers, the live wire's encodings (live-platform D.2, D.3).
    expectTypeOf<Assistant['fillers']>().toEqualTypeOf<boolean>();
    expectTypeOf<LiveAssistant['fillers']>().toEqualTypeOf<0 | 1>();
    expectTypeOf<Call['total_cost']>().toEqualTypeOf<number>();
    expectTypeOf<LiveCall['total_cost']>().toEqualTypeOf<string>();
    expectTypeOf<Call['answered_by']>().toEqualTypeOf<'human' | 'machine' | 'unknown'>();
    expectTypeOf<Page<Lead>['data']>().toEqualTypeOf<Lead[]>();
    // An answer whose keys depend on its case is a union a client narrows.
    const status = {} as SessionStatusResponse;
    if (status.has_conversation) expectTypeOf(status.conversation_id).toEqualTypeOf<number>();
    // @ts-expect-error a campaign record has every key of its schema
    const partial: Campaign = { id: 1, name: 'Spring', status: 'draft' };
    void partial;
  });

  it('types events by their type: checking it narrows the data (z.output of SIM_EVENT_SCHEMAS)', async () => {
    const seen: SimEvent[] = [];
    const stop = sim.events.on('*', (event) => {
      seen.push(event);
      if (event.type === 'request.answered') expectTypeOf(event.data.status).toEqualTypeOf<number>();
    });
    sim.events.on('clock.advanced', (event) => expectTypeOf(event.data.by).toEqualTypeOf<'advance' | 'run_until_idle'>());
    await sim.handle({ method: 'GET', path: '/user/me', headers: { authorization: 'Bearer sim_test_key' } });
    stop();
    expect(seen.map((e) => e.type)).toEqual(['request.answered']);
    expectTypeOf<SimEventMap['call.status']['status']>().toEqualTypeOf<Call['status']>();
    expectTypeOf<SimEventMap['lead.status']['status']>().toEqualTypeOf<Lead['status']>();
    expectTypeOf<Extract<WireEvent, { type: 'campaign.idle' }>['data']['reason']>().toEqualTypeOf<'outside_window' | 'insufficient_balance' | 'no_caller_number' | 'no_allowed_days'>();
    // @ts-expect-error no such event type
    sim.events.on('call.statuses', () => undefined);
    // @ts-expect-error a lead's status is not a call's
    sim.events.emit('lead.status', 0, { account_id: 1, lead_id: 1, campaign_id: 1, status: 'ringing' });
    expect(SIM_EVENT_SCHEMAS['call.status'].safeParse({ account_id: 1, call_id: 1, status: 'ringing', campaign_id: null, lead_id: null }).success).toBe(true);
    expect(SIM_EVENT_SCHEMAS['call.status'].safeParse({ account_id: 1, call_id: 1, status: 'ringing', campaign_id: null, lead_id: null, extra: 1 }).success).toBe(false);
  });

  it('has an event schema for every type docs/events.md lists under Events, and no other', () => {
    const page = readFileSync(new URL('../docs/events.md', import.meta.url), 'utf8');
    const [start, end] = [page.indexOf('\n## Events\n'), page.indexOf('\n## Event stream\n')];
    expect(start).toBeGreaterThanOrEqual(0);
    expect(end).toBeGreaterThan(start);
    const table = page.slice(start, end);
    const listed = [...table.matchAll(/^\| (`[^|]+`) \|/gm)].flatMap((row) => [...row[1]!.matchAll(/`([a-z_.]+)`/g)].map((m) => m[1]!));
    expect(listed.sort()).toEqual(Object.keys(SIM_EVENT_SCHEMAS).sort());
  });

  it('types a scenario object as the scenario schema reads it', async () => {
    const scenario: ScenarioInput = { name: 'typed', seed: 2, given: { folders: [{ ref: 'team', name: 'Team' }] }, steps: [{ advance: '1h' }] };
    // @ts-expect-error a misspelt top-level key (the loader refuses it too)
    const misspelt: ScenarioInput = { name: 'typed', outcome: {} };
    void misspelt;
    expectTypeOf<Parameters<Simulator['loadScenario']>[0]>().toEqualTypeOf<string | ScenarioInput>();
    expectTypeOf<Parameters<SimControl['scenario']['load']>[0]>().toEqualTypeOf<string | ScenarioInput>();
    const other = createSimulator({ seed: 1, startAt: '2026-03-02T09:00:00Z' });
    expect((await other.control.scenario.load(scenario)).name).toBe('typed');
  });
});
