/**
 * The campaign dialing engine on the virtual clock (issue 5; ARCHITECTURE §4 Campaign
 * dialing, Scripted outcomes; decisions: Campaign states, Lead transitions, Call
 * transitions, Balance and dialing, Voicemail no retry, Outcome sequences, Assistant
 * activation). Everything runs in-process through `sim.handle`; time moves only through
 * the clock, never by sleeping.
 */
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import type { SimEvent } from '../../src/core/events.js';
import { isInWindow, nextWindowStart, type CallingWindow } from '../../src/domain/campaigns/windows.js';
import { createSimulator, type Simulator } from '../../src/simulator.js';
import { pipelineAssistant } from '../support/fixtures.js';
import type { OutcomesInput } from '../../src/types.js';

const AUTH = { authorization: 'Bearer sim_test_key' };
/** The sip number every rig adds first (id 1) and gives its assistant. */
const CALLER = '+14155550100';
/** Statuses of a call that is still under way. */
const IN_FLIGHT = new Set(['initiated', 'ringing', 'in-progress']);
/** Weekdays, for the Berlin business-hours window. */
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'];
/** 09:00-17:00 Europe/Berlin, Monday to Friday, one call at a time. */
const BERLIN_OFFICE = {
  timezone: 'Europe/Berlin',
  allowed_hours_start_time: '09:00',
  allowed_hours_end_time: '17:00',
  allowed_days: WEEKDAYS,
  max_calls_in_parallel: 1,
};

interface Response {
  status: number;
  body: any;
}

interface CallRow {
  id: number;
  status: string;
  answered_by: string;
  client_phone_number: string;
  assistant_phone_number: string;
  campaign_id: number | null;
  variables: Record<string, unknown>;
  transcript: string;
  total_cost: number;
  created_at: string;
  updated_at: string;
}

interface ContactRow {
  id: number;
  phone_number: string;
  status: string;
}

interface LeadRow {
  id: number;
  phone_number: string;
  status: string;
  variables: Record<string, unknown>;
  secondary_contacts: ContactRow[];
}

async function request(sim: Simulator, method: string, path: string, body?: unknown): Promise<Response> {
  const res = await sim.handle({ method, path, headers: AUTH, body: body === undefined ? null : JSON.stringify(body) });
  return { status: res.status, body: res.body };
}

/** A request that must succeed; answers its body. */
async function ok(sim: Simulator, method: string, path: string, body?: unknown): Promise<any> {
  const res = await request(sim, method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Every call, oldest first. */
async function callsOf(sim: Simulator): Promise<CallRow[]> {
  const body = await ok(sim, 'GET', '/user/calls?per_page=100');
  return (body.data as CallRow[]).sort((a, b) => a.id - b.id);
}

/** Every lead of a campaign, in id order. */
async function leadsOf(sim: Simulator, campaignId: number): Promise<LeadRow[]> {
  const body = await ok(sim, 'GET', `/user/leads?campaign_id=${campaignId}&per_page=100`);
  return body.data as LeadRow[];
}

/** Epoch ms as the calls' `created_at` format (`YYYY-MM-DD HH:MM:SS`, UTC). */
function sql(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** `YYYY-MM-DD HH:MM:SS` (UTC) as epoch ms. */
function ms(sqlTime: string): number {
  return Date.parse(`${sqlTime.replace(' ', 'T')}Z`);
}

/** The clock time of a call's final status (its last `call.status` event). */
function endedAt(sim: Simulator, callId: number): number {
  const statuses = sim.events.history('call.status').filter((e) => e.data.call_id === callId);
  const last = statuses[statuses.length - 1];
  if (!last || IN_FLIGHT.has(String(last.data.status))) throw new Error(`call ${callId} has not ended`);
  return last.at;
}

/** The statuses one call went through, in order. */
function callStatuses(sim: Simulator, callId: number): string[] {
  return sim.events
    .history('call.status')
    .filter((e) => e.data.call_id === callId)
    .map((e) => String(e.data.status));
}

function leadStatuses(sim: Simulator, leadId: number): string[] {
  return sim.events
    .history('lead.status')
    .filter((e) => e.data.lead_id === leadId)
    .map((e) => String(e.data.status));
}

function idleReasons(sim: Simulator): string[] {
  return sim.events.history('campaign.idle').map((e) => String(e.data.reason));
}

function pending(sim: Simulator): { type: string; at: string }[] {
  return sim.clock.pendingEvents().map((e) => ({ type: e.type, at: new Date(e.at).toISOString() }));
}

type LeadInput = string | { phone_number: string; variables?: Record<string, unknown>; secondary_contacts?: { phone_number: string }[] };

interface RigOptions {
  startAt: string;
  seed?: number;
  assistant?: Record<string, unknown>;
  campaign?: Record<string, unknown>;
  leads?: LeadInput[];
  /** Outcome sequences by dialed number. */
  outcomes?: Record<string, OutcomesInput>;
}

/**
 * A simulator with a sip caller number (id 1), a pipeline outbound assistant holding it,
 * one campaign and its leads, not started.
 */
async function rig(options: RigOptions) {
  const sim = createSimulator({ seed: options.seed ?? 1, startAt: options.startAt });
  const number = sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: CALLER });
  const assistant = await ok(sim, 'POST', '/user/assistant', pipelineAssistant({ phone_number_id: number.id, ...options.assistant }));
  const campaign = await ok(sim, 'POST', '/user/campaign', { name: 'Spring', assistant_id: assistant.data.id, ...options.campaign });
  const campaignId = campaign.data.id as number;
  const leadIds: number[] = [];
  const addLead = async (lead: LeadInput): Promise<number> => {
    const body = await ok(sim, 'POST', '/user/lead', typeof lead === 'string' ? { campaign_id: campaignId, phone_number: lead } : { campaign_id: campaignId, ...lead });
    return body.data.id as number;
  };
  for (const lead of options.leads ?? []) leadIds.push(await addLead(lead));
  for (const [phone, outcomes] of Object.entries(options.outcomes ?? {})) sim.control.outcomes.forNumber(phone, outcomes);
  const setStatus = (action: 'start' | 'stop') => request(sim, 'POST', '/user/campaigns/update-status', { campaign_id: campaignId, action });
  return {
    sim,
    campaignId,
    assistantId: assistant.data.id as number,
    leadIds,
    addLead,
    /** Starts the campaign (200 expected) and runs what is due now. */
    start: async () => {
      const res = await setStatus('start');
      expect(res).toEqual({ status: 200, body: expect.objectContaining({ success: true, data: { campaign_id: campaignId, status: 'in-progress' } }) });
      await sim.clock.advance(0);
    },
    stop: async () => {
      const res = await setStatus('stop');
      expect(res).toEqual({ status: 200, body: expect.objectContaining({ success: true, data: { campaign_id: campaignId, status: 'stopped' } }) });
    },
    calls: () => callsOf(sim),
    leads: () => leadsOf(sim, campaignId),
    campaignStatuses: () =>
      sim.events
        .history('campaign.status')
        .filter((e) => e.data.campaign_id === campaignId)
        .map((e) => String(e.data.status)),
  };
}

/** Ten distinct lead numbers from `+1415555` + four digits starting at `from`. */
function numbers(count: number, from: number): string[] {
  return Array.from({ length: count }, (_, i) => `+1415555${String(from + i).padStart(4, '0')}`);
}

describe('calling windows', () => {
  const berlin: CallingWindow = { timezone: 'Europe/Berlin', allowed_days: WEEKDAYS as CallingWindow['allowed_days'], allowed_hours_start_time: '09:00:00', allowed_hours_end_time: '17:00:00' };

  it('holds the window open from 09:00:00 up to but not including 17:00:00 Berlin time', () => {
    expect(isInWindow(Date.parse('2026-03-06T07:59:59Z'), berlin)).toBe(false);
    expect(isInWindow(Date.parse('2026-03-06T08:00:00Z'), berlin)).toBe(true);
    expect(isInWindow(Date.parse('2026-03-06T15:59:59Z'), berlin)).toBe(true);
    expect(isInWindow(Date.parse('2026-03-06T16:00:00Z'), berlin)).toBe(false);
    expect(isInWindow(Date.parse('2026-03-07T10:00:00Z'), berlin)).toBe(false);
    // Summer time: 09:00 Berlin is 07:00 UTC.
    expect(isInWindow(Date.parse('2026-03-30T06:59:59Z'), berlin)).toBe(false);
    expect(isInWindow(Date.parse('2026-03-30T07:00:00Z'), berlin)).toBe(true);
  });

  it('finds the next opening after a Friday evening on Monday at 09:00 Berlin, in winter and in summer time', () => {
    expect(nextWindowStart(Date.parse('2026-03-06T16:00:00Z'), berlin)).toBe(Date.parse('2026-03-09T08:00:00Z'));
    expect(nextWindowStart(Date.parse('2026-03-27T16:00:00Z'), berlin)).toBe(Date.parse('2026-03-30T07:00:00Z'));
    expect(nextWindowStart(Date.parse('2026-03-06T15:59:00Z'), berlin)).toBe(Date.parse('2026-03-06T15:59:00Z'));
    expect(nextWindowStart(Date.parse('2026-03-06T15:59:00Z'), { ...berlin, allowed_days: [] })).toBeUndefined();
  });

  it('answers every time of a fortnight as a search day by day from that time answers, whatever the window (its days, DST, an empty span)', () => {
    const days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
    /** The plain search: the first allowed day, from the time's own, whose opening is not before the time. */
    const reference = (ms: number, w: CallingWindow): number | undefined => {
      if (isInWindow(ms, w)) return ms;
      const [h, m, sec] = w.allowed_hours_start_time.split(':').map(Number);
      let day = DateTime.fromMillis(ms, { zone: w.timezone }).startOf('day');
      for (let i = 0; i < 8; i++, day = day.plus({ days: 1 }).startOf('day')) {
        if (!w.allowed_days.includes(days[day.weekday - 1]!)) continue;
        const opens = day.set({ hour: h!, minute: m!, second: sec ?? 0, millisecond: 0 }).toMillis();
        if (opens >= ms) return opens;
      }
      return undefined;
    };
    const windows: CallingWindow[] = [
      berlin,
      { ...berlin, allowed_days: ['saturday', 'sunday'] },
      { ...berlin, timezone: 'America/New_York', allowed_hours_start_time: '02:30:00', allowed_hours_end_time: '03:30:00' },
      { ...berlin, allowed_hours_start_time: '12:00:00', allowed_hours_end_time: '12:00:00' },
      { ...berlin, allowed_hours_start_time: '18:00:00', allowed_hours_end_time: '08:00:00' },
    ];
    for (const w of windows) {
      // Fresh copies: each window's day is remembered per object, as a campaign row's is.
      const window = { ...w };
      for (let ms = Date.parse('2026-03-05T00:00:00Z'); ms < Date.parse('2026-03-19T00:00:00Z'); ms += 53 * 60_000) {
        for (const at of [ms, ms + 1, ms - 1]) expect(nextWindowStart(at, window), `${w.timezone} ${w.allowed_hours_start_time} ${new Date(at).toISOString()}`).toBe(reference(at, w));
      }
      // An opening itself, and the times right around it.
      for (let day = 0; day < 14; day++) {
        const opens = reference(Date.parse('2026-03-05T00:00:00Z') + day * 86_400_000, w);
        if (opens === undefined) continue;
        for (const at of [opens - 1, opens, opens + 1]) expect(nextWindowStart(at, window)).toBe(reference(at, w));
      }
    }
  });
});

describe('campaign dialer', () => {
  it('dials the first lead at 16:59 on a Berlin Friday, lets the second wait past 17:00 and dials it on Monday at 09:00 after one clock event', async () => {
    const r = await rig({
      startAt: '2026-03-06T15:59:00Z',
      campaign: BERLIN_OFFICE,
      leads: ['+14155550111', '+14155550112'],
      // The first call lasts until 17:01:06 Berlin, past the end of the window.
      outcomes: { '+14155550111': [{ kind: 'human', ring_seconds: 5, talk_seconds: 120 }] },
    });
    await r.start();
    let calls = await r.calls();
    expect(calls.map((c) => [c.client_phone_number, c.created_at])).toEqual([['+14155550111', '2026-03-06 15:59:00']]);

    await r.sim.clock.advance('3m');
    expect(endedAt(r.sim, calls[0]!.id)).toBe(Date.parse('2026-03-06T16:01:06Z'));
    expect((await r.leads()).map((l) => l.status)).toEqual(['completed', 'scheduled']);
    // The sleep until Monday is one event, not a polling tick.
    expect(pending(r.sim)).toEqual([{ type: 'campaign.dial', at: '2026-03-09T08:00:00.000Z' }]);
    expect(idleReasons(r.sim)).toEqual(['outside_window']);
    expect(r.sim.events.history('campaign.idle')[0]!.at).toBe(Date.parse('2026-03-06T16:01:06Z'));

    await r.sim.clock.advanceTo('2026-03-09T07:59:59Z');
    expect(await r.calls()).toHaveLength(1);
    await r.sim.clock.advanceTo('2026-03-09T08:00:00Z');
    calls = await r.calls();
    expect(calls.map((c) => [c.client_phone_number, c.created_at])).toEqual([
      ['+14155550111', '2026-03-06 15:59:00'],
      ['+14155550112', '2026-03-09 08:00:00'],
    ]);
    await r.sim.clock.runUntilIdle();
    expect(idleReasons(r.sim)).toEqual(['outside_window']);
    expect(r.campaignStatuses()).toEqual(['in-progress', 'completed']);
  });

  it('dials the next lead on Monday at 09:00 summer time, 07:00 UTC, across the March DST change', async () => {
    const r = await rig({
      startAt: '2026-03-27T15:59:00Z',
      campaign: BERLIN_OFFICE,
      leads: ['+14155550121', '+14155550122'],
      outcomes: { '+14155550121': [{ kind: 'human', ring_seconds: 5, talk_seconds: 120 }] },
    });
    await r.start();
    await r.sim.clock.advance('3m');
    expect(pending(r.sim)).toEqual([{ type: 'campaign.dial', at: '2026-03-30T07:00:00.000Z' }]);
    await r.sim.clock.advanceTo('2026-03-30T06:59:59Z');
    expect(await r.calls()).toHaveLength(1);
    await r.sim.clock.advanceTo('2026-03-30T07:00:00Z');
    expect((await r.calls()).map((c) => c.created_at)).toEqual(['2026-03-27 15:59:00', '2026-03-30 07:00:00']);
    expect(idleReasons(r.sim)).toEqual(['outside_window']);
  });

  it('emits campaign.idle outside_window once and keeps one pending dial event when several calls end after the window closed', async () => {
    const r = await rig({
      startAt: '2026-03-06T15:59:00Z',
      campaign: { ...BERLIN_OFFICE, max_calls_in_parallel: 2, retry_interval: 10 },
      leads: ['+14155550171', '+14155550172', '+14155550173'],
      outcomes: {
        '+14155550171': [{ kind: 'human', ring_seconds: 5, talk_seconds: 120 }],
        '+14155550172': [{ kind: 'human', ring_seconds: 5, talk_seconds: 300 }],
      },
    });
    await r.start();
    await r.sim.clock.advance('10m');
    expect((await r.calls()).map((c) => c.status)).toEqual(['completed', 'completed']);
    expect(idleReasons(r.sim)).toEqual(['outside_window']);
    expect(pending(r.sim)).toEqual([{ type: 'campaign.dial', at: '2026-03-09T08:00:00.000Z' }]);
    await r.sim.clock.runUntilIdle();
    expect((await r.calls()).map((c) => c.created_at)).toEqual(['2026-03-06 15:59:00', '2026-03-06 15:59:00', '2026-03-09 08:00:00']);
    expect(idleReasons(r.sim)).toEqual(['outside_window']);
  });

  it('does not dial at 17:00:00 Berlin on a Friday, the end of the window, but on Monday at 09:00', async () => {
    const r = await rig({ startAt: '2026-03-06T16:00:00Z', campaign: BERLIN_OFFICE, leads: ['+14155550131'] });
    await r.start();
    expect(await r.calls()).toEqual([]);
    expect((await r.leads()).map((l) => l.status)).toEqual(['scheduled']);
    expect(pending(r.sim)).toEqual([{ type: 'campaign.dial', at: '2026-03-09T08:00:00.000Z' }]);
    await r.sim.clock.runUntilIdle();
    expect((await r.calls()).map((c) => c.created_at)).toEqual(['2026-03-09 08:00:00']);
  });

  it('waits from a Saturday start until Monday 09:00 Berlin with a single pending dial event', async () => {
    const r = await rig({ startAt: '2026-03-07T10:00:00Z', campaign: BERLIN_OFFICE, leads: ['+14155550141'] });
    await r.start();
    expect(await r.calls()).toEqual([]);
    expect(pending(r.sim)).toEqual([{ type: 'campaign.dial', at: '2026-03-09T08:00:00.000Z' }]);
    expect(idleReasons(r.sim)).toEqual(['outside_window']);
    await r.sim.clock.advance('1d');
    expect(await r.calls()).toEqual([]);
    expect(pending(r.sim)).toEqual([{ type: 'campaign.dial', at: '2026-03-09T08:00:00.000Z' }]);
    await r.sim.clock.runUntilIdle();
    expect((await r.calls()).map((c) => c.created_at)).toEqual(['2026-03-09 08:00:00']);
    expect(idleReasons(r.sim)).toEqual(['outside_window']);
  });

  it('waits exactly one second when started at 08:59:59 local time', async () => {
    const r = await rig({ startAt: '2026-03-09T07:59:59Z', campaign: BERLIN_OFFICE, leads: ['+14155550151'] });
    await r.start();
    expect(await r.calls()).toEqual([]);
    expect(pending(r.sim)).toEqual([{ type: 'campaign.dial', at: '2026-03-09T08:00:00.000Z' }]);
    await r.sim.clock.advance('1s');
    expect((await r.calls()).map((c) => c.created_at)).toEqual(['2026-03-09 08:00:00']);
    expect(idleReasons(r.sim)).toEqual(['outside_window']);
  });

  it('skips a Monday start to Wednesday 09:00 when wednesday is the only allowed day', async () => {
    const r = await rig({ startAt: '2026-03-09T10:00:00Z', campaign: { ...BERLIN_OFFICE, allowed_days: ['wednesday'] }, leads: ['+14155550161'] });
    await r.start();
    expect(await r.calls()).toEqual([]);
    expect(pending(r.sim)).toEqual([{ type: 'campaign.dial', at: '2026-03-11T08:00:00.000Z' }]);
    await r.sim.clock.runUntilIdle();
    expect((await r.calls()).map((c) => c.created_at)).toEqual(['2026-03-11 08:00:00']);
    expect(idleReasons(r.sim)).toEqual(['outside_window']);
  });

  it('never has more than max_calls_in_parallel calls in flight at any event and does fill all three slots', async () => {
    const r = await rig({ startAt: '2026-03-02T10:00:00Z', campaign: { max_calls_in_parallel: 3 }, leads: numbers(20, 200) });
    const status = new Map<number, string>();
    const counts: number[] = [];
    r.sim.events.on('call.status', (e: SimEvent) => {
      status.set(Number(e.data.call_id), String(e.data.status));
      counts.push([...status.values()].filter((s) => IN_FLIGHT.has(s)).length);
    });
    await r.start();
    await r.sim.clock.runUntilIdle();
    expect(await r.calls()).toHaveLength(20);
    expect(counts.length).toBeGreaterThanOrEqual(20 * 4);
    expect(Math.max(...counts)).toBe(3);
    expect(counts.every((c) => c <= 3)).toBe(true);
    expect(counts[counts.length - 1]).toBe(0);
    expect((await r.leads()).every((l) => l.status === 'completed')).toBe(true);
    expect(r.campaignStatuses()).toEqual(['in-progress', 'completed']);
  });

  it('makes three calls to a [busy, voicemail, human] number with retry_on_voicemail, each retry_interval after the previous call ended, and completes the lead', async () => {
    const phone = '+14155550301';
    const r = await rig({
      startAt: '2026-03-02T10:00:00Z',
      campaign: { retry_on_voicemail: true, retry_interval: 10 },
      leads: [phone],
      outcomes: { [phone]: ['busy', 'voicemail', 'human'] },
    });
    await r.start();
    await r.sim.clock.runUntilIdle();
    const calls = await r.calls();
    expect(calls.map((c) => [c.status, c.answered_by])).toEqual([
      ['busy', 'unknown'],
      ['ended', 'machine'],
      ['completed', 'human'],
    ]);
    expect(calls[0]!.created_at).toBe('2026-03-02 10:00:00');
    // A busy call rings after 1 s and is busy after its ring time.
    expect(endedAt(r.sim, calls[0]!.id)).toBe(Date.parse('2026-03-02T10:00:03Z'));
    for (let i = 1; i < calls.length; i++) expect(ms(calls[i]!.created_at)).toBe(endedAt(r.sim, calls[i - 1]!.id) + 10 * 60_000);
    expect(callStatuses(r.sim, calls[1]!.id)).toEqual(['initiated', 'ringing', 'in-progress', 'ended']);
    expect((await r.leads()).map((l) => l.status)).toEqual(['completed']);
    expect(r.campaignStatuses()).toEqual(['in-progress', 'completed']);
  });

  it('ends a [busy, voicemail, human] lead completed after two calls when retry_on_voicemail is off', async () => {
    const phone = '+14155550302';
    const r = await rig({ startAt: '2026-03-02T10:00:00Z', campaign: { retry_interval: 10 }, leads: [phone], outcomes: { [phone]: ['busy', 'voicemail', 'human'] } });
    await r.start();
    await r.sim.clock.runUntilIdle();
    const calls = await r.calls();
    expect(calls.map((c) => c.status)).toEqual(['busy', 'ended']);
    expect(ms(calls[1]!.created_at)).toBe(endedAt(r.sim, calls[0]!.id) + 10 * 60_000);
    expect((await r.leads()).map((l) => l.status)).toEqual(['completed']);
    expect(r.sim.clock.pendingEvents()).toEqual([]);
  });

  it('gives an always-busy number exactly three calls with max_retries 2 and ends the lead reached-max-retries', async () => {
    const phone = '+14155550401';
    const r = await rig({ startAt: '2026-03-02T10:00:00Z', campaign: { max_retries: 2, retry_interval: 10 }, leads: [phone], outcomes: { [phone]: ['busy'] } });
    await r.start();
    await r.sim.clock.runUntilIdle();
    const calls = await r.calls();
    expect(calls.map((c) => c.status)).toEqual(['busy', 'busy', 'busy']);
    expect(calls.map((c) => c.created_at)).toEqual(['2026-03-02 10:00:00', '2026-03-02 10:10:03', '2026-03-02 10:20:06']);
    expect((await r.leads()).map((l) => l.status)).toEqual(['reached-max-retries']);
    const statuses = leadStatuses(r.sim, r.leadIds[0]!);
    // decisions (Lead transitions): `rescheduled` -> `processing` at the retry time.
    expect(statuses).toEqual([
      'scheduled',
      'processing',
      'rescheduled',
      'processing',
      'rescheduled',
      'processing',
      'reached-max-retries',
    ]);
    const processingAt = r.sim.events
      .history('lead.status')
      .filter((e) => e.data.status === 'processing')
      .map((e) => sql(e.at));
    expect(processingAt).toEqual(calls.map((c) => c.created_at));
    expect(r.campaignStatuses()).toEqual(['in-progress', 'completed']);
  });

  it('queues a due retry as scheduled while every slot is busy, and dials it when one frees', async () => {
    const [busy, long] = ['+14155550411', '+14155550412'];
    const r = await rig({
      startAt: '2026-03-02T10:00:00Z',
      campaign: { max_retries: 1, retry_interval: 10, max_calls_in_parallel: 1 },
      leads: [busy, long],
      outcomes: { [busy]: ['busy'], [long]: [{ kind: 'human', ring_seconds: 1, talk_seconds: 1200 }] },
    });
    await r.start();
    await r.sim.clock.runUntilIdle();
    // The busy lead's retry falls due while the long call holds the only slot.
    expect(leadStatuses(r.sim, r.leadIds[0]!)).toEqual(['scheduled', 'processing', 'rescheduled', 'scheduled', 'processing', 'reached-max-retries']);
  });

  it('gives an always-busy number exactly six calls with max_retries 5', async () => {
    const phone = '+14155550402';
    const r = await rig({ startAt: '2026-03-02T10:00:00Z', campaign: { max_retries: 5, retry_interval: 10 }, leads: [phone], outcomes: { [phone]: ['busy'] } });
    await r.start();
    await r.sim.clock.runUntilIdle();
    const calls = await r.calls();
    expect(calls).toHaveLength(6);
    expect(calls.every((c) => c.status === 'busy' && c.client_phone_number === phone)).toBe(true);
    expect((await r.leads()).map((l) => l.status)).toEqual(['reached-max-retries']);
    expect(leadStatuses(r.sim, r.leadIds[0]!).filter((s) => s === 'rescheduled')).toHaveLength(5);
  });

  // live-platform H.9: "stopping a campaign aborts running calls".
  it('aborts the ringing calls at a stop (failed, no cost), puts their leads back to created, dials nothing more even a day later, and dials them again on restart', async () => {
    const r = await rig({ startAt: '2026-03-02T10:00:00Z', campaign: { max_calls_in_parallel: 2 }, leads: numbers(10, 500) });
    const balance = (await ok(r.sim, 'GET', '/user/me')).total_balance;
    await r.start();
    await r.sim.clock.advance('2s');
    let calls = await r.calls();
    expect(calls.map((c) => [c.status, c.created_at])).toEqual([
      ['ringing', '2026-03-02 10:00:00'],
      ['ringing', '2026-03-02 10:00:00'],
    ]);
    await r.stop();
    // At once, before the clock moves.
    calls = await r.calls();
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      expect(call).toMatchObject({ status: 'failed', duration: 0, total_cost: 0, carrier_cost: 0, answered_by: 'unknown', transcript: '', recording_url: null });
      expect(callStatuses(r.sim, call.id)).toEqual(['initiated', 'ringing', 'failed']);
    }
    expect((await ok(r.sim, 'GET', '/user/me')).total_balance).toBe(balance);
    expect(r.sim.clock.pendingEvents().filter((e) => e.type.startsWith('call.'))).toEqual([]);
    await r.sim.clock.advance('1d');
    expect(await r.calls()).toHaveLength(2);
    const leads = await r.leads();
    expect(leads.map((l) => l.status)).toEqual(['created', 'created', ...Array(8).fill('scheduled')]);
    // The aborted attempt counts (decision: leads go back to created).
    expect(r.leadIds.map((id) => r.sim.db.leads.get(id)!.attempts)).toEqual([1, 1, ...Array(8).fill(0)]);
    expect(leadStatuses(r.sim, r.leadIds[0]!)).toEqual(['scheduled', 'processing', 'created']);
    expect(r.sim.clock.pendingEvents().filter((e) => e.type === 'campaign.dial' || e.type === 'lead.retry')).toEqual([]);
    expect(r.campaignStatuses()).toEqual(['in-progress', 'stopped']);

    await r.start();
    await r.sim.clock.runUntilIdle();
    calls = await r.calls();
    expect(calls).toHaveLength(12);
    expect(calls.slice(2).every((c) => c.status === 'completed')).toBe(true);
    expect(calls.slice(2).map((c) => c.client_phone_number).sort()).toEqual(numbers(10, 500));
    expect((await r.leads()).every((l) => l.status === 'completed')).toBe(true);
    expect(r.leadIds.map((id) => r.sim.db.leads.get(id)!.attempts)).toEqual([2, 2, ...Array(8).fill(1)]);
    expect(r.campaignStatuses()).toEqual(['in-progress', 'stopped', 'in-progress', 'completed']);
  });

  it('ends a call two minutes into ten minutes `ended` at once at a stop, billed for the two minutes, and dials that lead no more until a restart', async () => {
    const phone = '+14155550701';
    const r = await rig({
      startAt: '2026-03-02T10:00:00Z',
      assistant: { is_webhook_active: true, webhook_url: 'https://hooks.example.test/calls', send_webhook_only_on_completed: false },
      leads: [phone],
      outcomes: { [phone]: [{ kind: 'human', ring_seconds: 5, talk_seconds: 600 }] },
    });
    const balance = (await ok(r.sim, 'GET', '/user/me')).total_balance;
    await r.start();
    // Placed at 10:00:00, ringing at :01, answered at :06: two minutes of talk at 10:02:06.
    await r.sim.clock.advance('126s');
    expect((await r.calls())[0]!.status).toBe('in-progress');
    await r.stop();
    const [call] = await r.calls();
    expect(call).toMatchObject({ status: 'ended', duration: 120, answered_by: 'human', updated_at: '2026-03-02 10:02:06' });
    expect(callStatuses(r.sim, call!.id)).toEqual(['initiated', 'ringing', 'in-progress', 'ended']);
    // decisions: Billing defaults: 120 s of AI time and two started carrier minutes, as any ended call.
    expect(call!.total_cost).toBeGreaterThan(0);
    expect((await ok(r.sim, 'GET', '/user/me')).total_balance).toBeCloseTo(balance - call!.total_cost, 5);
    expect(call!.transcript.split('\n')[0]).toMatch(/^Assistant: /);
    const deliveries = r.sim.control.webhooks.deliveries().data;
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]!.payload).toMatchObject({ id: call!.id, status: 'ended', duration: 120, lead: { status: 'created' } });
    expect((await r.leads()).map((l) => l.status)).toEqual(['created']);
    expect(r.sim.db.leads.get(r.leadIds[0]!)!.attempts).toBe(1);
    // The ten minutes pass: nothing more happens to the call, and the lead is not dialed.
    await r.sim.clock.advance('1h');
    expect(await r.calls()).toHaveLength(1);
    expect((await r.calls())[0]).toMatchObject({ status: 'ended', duration: 120 });
    expect((await r.leads())[0]!.status).toBe('created');
    await r.start();
    await r.sim.clock.advance('1s');
    const again = await r.calls();
    expect(again).toHaveLength(2);
    expect(again[1]).toMatchObject({ client_phone_number: phone, status: 'ringing' });
  });

  it('retries a goal-incomplete answer when retry_on_goal_incomplete is on and completes the lead on the second call', async () => {
    const phone = '+14155550601';
    const r = await rig({
      startAt: '2026-03-02T10:00:00Z',
      assistant: { post_call_schema: [{ name: 'booked', type: 'bool', description: 'Whether a demo was booked' }] },
      campaign: { goal_completion_variable: 'booked', retry_on_goal_incomplete: true, retry_interval: 10 },
      leads: [phone],
      outcomes: { [phone]: ['goal-incomplete', 'human'] },
    });
    await r.start();
    await r.sim.clock.runUntilIdle();
    const calls = await r.calls();
    expect(calls.map((c) => [c.status, c.answered_by, c.variables.booked])).toEqual([
      ['ended_by_customer', 'human', false],
      ['completed', 'human', true],
    ]);
    expect(ms(calls[1]!.created_at)).toBe(endedAt(r.sim, calls[0]!.id) + 10 * 60_000);
    expect((await r.leads()).map((l) => l.status)).toEqual(['completed']);
  });

  it('completes a goal-incomplete lead after one call when retry_on_goal_incomplete is off', async () => {
    const phone = '+14155550602';
    const r = await rig({
      startAt: '2026-03-02T10:00:00Z',
      assistant: { post_call_schema: [{ name: 'booked', type: 'bool', description: 'Whether a demo was booked' }] },
      campaign: { goal_completion_variable: 'booked', retry_on_goal_incomplete: false, retry_interval: 10 },
      leads: [phone],
      outcomes: { [phone]: ['goal-incomplete', 'human'] },
    });
    await r.start();
    await r.sim.clock.runUntilIdle();
    expect((await r.calls()).map((c) => [c.status, c.variables.booked])).toEqual([['ended_by_customer', false]]);
    expect((await r.leads()).map((l) => l.status)).toEqual(['completed']);
  });

  it('treats a number ending in 0005 as goal-incomplete: retried while the goal is unmet, up to max_retries', async () => {
    const r = await rig({
      startAt: '2026-03-02T10:00:00Z',
      assistant: { post_call_schema: [{ name: 'booked', type: 'bool', description: 'Whether a demo was booked' }] },
      campaign: { goal_completion_variable: 'booked', retry_on_goal_incomplete: true, max_retries: 1, retry_interval: 10 },
      leads: ['+14155550005'],
    });
    await r.start();
    await r.sim.clock.runUntilIdle();
    const calls = await r.calls();
    expect(calls.map((c) => [c.status, c.answered_by, c.variables.booked])).toEqual([
      ['ended_by_customer', 'human', false],
      ['ended_by_customer', 'human', false],
    ]);
    expect((await r.leads()).map((l) => l.status)).toEqual(['reached-max-retries']);
  });

  it('dials the first secondary contact right after a busy primary and completes the lead and the contact when a human answers', async () => {
    const contact = '+14155550702';
    const r = await rig({
      startAt: '2026-03-02T10:00:00Z',
      leads: [{ phone_number: '+14155550001', secondary_contacts: [{ phone_number: contact }, { phone_number: '+14155550703' }] }],
    });
    await r.start();
    await r.sim.clock.runUntilIdle();
    const calls = await r.calls();
    expect(calls.map((c) => [c.client_phone_number, c.status, c.answered_by])).toEqual([
      ['+14155550001', 'busy', 'unknown'],
      [contact, 'completed', 'human'],
    ]);
    // The contact is dialed as soon as the primary's call ended.
    expect(ms(calls[1]!.created_at)).toBe(endedAt(r.sim, calls[0]!.id));
    const [lead] = await r.leads();
    expect(lead!.status).toBe('completed');
    expect(lead!.secondary_contacts.map((c) => [c.phone_number, c.status])).toEqual([
      [contact, 'completed'],
      ['+14155550703', 'created'],
    ]);
  });

  it('starts the next attempt with the primary retry_interval after the last contact was not reached', async () => {
    const primary = '+14155550001';
    const contacts = ['+14155550002', '+14155550004'];
    const r = await rig({
      startAt: '2026-03-02T10:00:00Z',
      campaign: { max_retries: 1, retry_interval: 10 },
      leads: [{ phone_number: primary, secondary_contacts: contacts.map((phone_number) => ({ phone_number })) }],
    });
    await r.start();
    await r.sim.clock.runUntilIdle();
    const calls = await r.calls();
    expect(calls.map((c) => [c.client_phone_number, c.status])).toEqual([
      [primary, 'busy'],
      [contacts[0], 'no-answer'],
      [contacts[1], 'failed'],
      [primary, 'busy'],
      [contacts[0], 'no-answer'],
      [contacts[1], 'failed'],
    ]);
    expect(ms(calls[1]!.created_at)).toBe(endedAt(r.sim, calls[0]!.id));
    expect(ms(calls[2]!.created_at)).toBe(endedAt(r.sim, calls[1]!.id));
    expect(ms(calls[3]!.created_at)).toBe(endedAt(r.sim, calls[2]!.id) + 10 * 60_000);
    expect((await r.leads()).map((l) => l.status)).toEqual(['reached-max-retries']);
  });

  it('marks the campaign completed when nothing is left to dial and mark_complete_when_no_leads is true', async () => {
    const r = await rig({ startAt: '2026-03-02T10:00:00Z', leads: numbers(2, 800) });
    await r.start();
    await r.sim.clock.runUntilIdle();
    const calls = await r.calls();
    expect(calls).toHaveLength(2);
    const completed = r.sim.events.history('campaign.status').filter((e) => e.data.status === 'completed');
    expect(completed.map((e) => [e.data.campaign_id, e.at])).toEqual([[r.campaignId, Math.max(...calls.map((c) => endedAt(r.sim, c.id)))]]);
    expect(r.campaignStatuses()).toEqual(['in-progress', 'completed']);
  });

  it('keeps the campaign in-progress with nothing left to dial when mark_complete_when_no_leads is false, and dials a lead set back to created at once', async () => {
    const r = await rig({ startAt: '2026-03-02T10:00:00Z', campaign: { mark_complete_when_no_leads: false }, leads: numbers(2, 810) });
    await r.start();
    await r.sim.clock.runUntilIdle();
    expect(await r.calls()).toHaveLength(2);
    expect(r.campaignStatuses()).toEqual(['in-progress']);
    expect(r.sim.clock.pendingEvents()).toEqual([]);

    await r.sim.clock.advanceTo('2026-03-02T12:00:00Z');
    expect(await ok(r.sim, 'PUT', `/user/leads/${r.leadIds[0]}`, { status: 'created' })).toEqual({ message: expect.any(String) });
    await r.sim.clock.advance(0);
    const calls = await r.calls();
    expect(calls.map((c) => [c.client_phone_number, c.created_at])[2]).toEqual([numbers(1, 810)[0], '2026-03-02 12:00:00']);
  });

  it('dials a lead set back to created again when its completed campaign is restarted', async () => {
    const r = await rig({ startAt: '2026-03-02T10:00:00Z', leads: ['+14155550821'] });
    await r.start();
    await r.sim.clock.runUntilIdle();
    expect(r.campaignStatuses()).toEqual(['in-progress', 'completed']);
    await r.sim.clock.advanceTo('2026-03-02T12:00:00Z');
    await ok(r.sim, 'PUT', `/user/leads/${r.leadIds[0]}`, { status: 'created' });
    await r.sim.clock.advance(0);
    // A completed campaign does not dial by itself.
    expect(await r.calls()).toHaveLength(1);
    expect((await r.leads()).map((l) => l.status)).toEqual(['created']);
    await r.start();
    await r.sim.clock.runUntilIdle();
    const calls = await r.calls();
    expect(calls.map((c) => [c.client_phone_number, c.created_at])).toEqual([
      ['+14155550821', '2026-03-02 10:00:00'],
      ['+14155550821', '2026-03-02 12:00:00'],
    ]);
    expect((await r.leads()).map((l) => l.status)).toEqual(['completed']);
    expect(r.campaignStatuses()).toEqual(['in-progress', 'completed', 'in-progress', 'completed']);
  });

  it('rotates the campaign phone numbers as caller ids and uses only the remaining one after the other is released', async () => {
    const sim = createSimulator({ seed: 1, startAt: '2026-03-02T10:00:00Z' });
    const a = sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550910' });
    const b = sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550920' });
    const assistant = await ok(sim, 'POST', '/user/assistant', pipelineAssistant({ phone_number_id: a.id }));
    const campaign = await ok(sim, 'POST', '/user/campaign', {
      name: 'Rotation',
      assistant_id: assistant.data.id,
      phone_number_ids: [a.id, b.id],
      max_calls_in_parallel: 1,
      mark_complete_when_no_leads: false,
    });
    for (const phone of numbers(4, 930)) await ok(sim, 'POST', '/user/lead', { campaign_id: campaign.data.id, phone_number: phone });
    await ok(sim, 'POST', '/user/campaigns/update-status', { campaign_id: campaign.data.id, action: 'start' });
    await sim.clock.runUntilIdle();
    expect((await callsOf(sim)).map((c) => c.assistant_phone_number)).toEqual([a.phone_number, b.phone_number, a.phone_number, b.phone_number]);

    expect(await ok(sim, 'DELETE', `/user/phone-numbers/${b.id}`)).toEqual({ message: expect.any(String) });
    for (const phone of numbers(3, 940)) await ok(sim, 'POST', '/user/lead', { campaign_id: campaign.data.id, phone_number: phone });
    await sim.clock.runUntilIdle();
    const calls = await callsOf(sim);
    expect(calls).toHaveLength(7);
    expect(calls.slice(4).map((c) => c.assistant_phone_number)).toEqual([a.phone_number, a.phone_number, a.phone_number]);
  });

  it('leaves the second lead scheduled with campaign.idle insufficient_balance when the balance covered one worst-case call, and resumes when the balance is raised', async () => {
    const first = '+14155551001';
    const second = '+14155551002';
    const r = await rig({
      startAt: '2026-03-02T10:00:00Z',
      assistant: { max_duration: 60 },
      campaign: { max_calls_in_parallel: 1 },
      leads: [first, second],
      outcomes: { [first]: [{ kind: 'human', ring_seconds: 5, talk_seconds: 50 }] },
    });
    // Worst case of one call: 60 s of AI at 0.10/min plus one carrier minute at 0.01 = 0.11 USD.
    r.sim.control.accounts.patch(1, { balance: 0.11 });
    await r.start();
    await r.sim.clock.advance('1h');
    let calls = await r.calls();
    expect(calls.map((c) => [c.client_phone_number, c.status])).toEqual([[first, 'completed']]);
    expect((await r.leads()).map((l) => l.status)).toEqual(['completed', 'scheduled']);
    // 50 s of AI (0.083334) plus one carrier minute (0.01) left 0.016666.
    expect((await ok(r.sim, 'GET', '/user/me')).total_balance).toBe(0.016666);
    const idle = r.sim.events.history('campaign.idle');
    expect(idle.map((e) => [e.data.reason, e.at])).toEqual([['insufficient_balance', endedAt(r.sim, calls[0]!.id)]]);
    expect(r.campaignStatuses()).toEqual(['in-progress']);

    r.sim.control.accounts.patch(1, { balance: 10 });
    await r.sim.clock.advance(0);
    calls = await r.calls();
    expect(calls.map((c) => [c.client_phone_number, c.created_at])).toEqual([
      [first, '2026-03-02 10:00:00'],
      [second, '2026-03-02 11:00:00'],
    ]);
    await r.sim.clock.runUntilIdle();
    expect((await r.leads()).map((l) => l.status)).toEqual(['completed', 'completed']);
    expect(idleReasons(r.sim)).toEqual(['insufficient_balance']);
  });

  it('dials nothing when the balance is one micro-dollar short of the worst case of a call', async () => {
    const r = await rig({ startAt: '2026-03-02T10:00:00Z', assistant: { max_duration: 60 }, leads: ['+14155551011'] });
    r.sim.control.accounts.patch(1, { balance: 0.109999 });
    await r.start();
    await r.sim.clock.advance('1h');
    expect(await r.calls()).toEqual([]);
    expect((await r.leads()).map((l) => l.status)).toEqual(['scheduled']);
    expect(idleReasons(r.sim)).toEqual(['insufficient_balance']);
  });

  it('cancels the pending retry of a rescheduled lead that is deleted', async () => {
    const phone = '+14155551101';
    const r = await rig({ startAt: '2026-03-02T10:00:00Z', campaign: { retry_interval: 10 }, leads: [phone], outcomes: { [phone]: ['busy'] } });
    await r.start();
    await r.sim.clock.advance('1m');
    expect((await r.leads()).map((l) => l.status)).toEqual(['rescheduled']);
    expect(pending(r.sim)).toEqual([{ type: 'lead.retry', at: '2026-03-02T10:10:03.000Z' }]);
    expect(await ok(r.sim, 'DELETE', `/user/leads/${r.leadIds[0]}`)).toEqual({ message: expect.any(String) });
    expect(r.sim.clock.pendingEvents().filter((e) => e.type === 'lead.retry')).toEqual([]);
    await r.sim.clock.advance('1d');
    expect(await r.calls()).toHaveLength(1);
  });

  it('cancels the pending dial and retry events of a running campaign that is deleted', async () => {
    const busy = '+14155551201';
    const r = await rig({
      startAt: '2026-03-02T16:58:00Z',
      campaign: { timezone: 'UTC', allowed_hours_start_time: '09:00', allowed_hours_end_time: '17:00', max_calls_in_parallel: 1, retry_interval: 10 },
      leads: [busy, '+14155551202', '+14155551203'],
      outcomes: { [busy]: ['busy'], '+14155551202': [{ kind: 'human', ring_seconds: 5, talk_seconds: 120 }] },
    });
    await r.start();
    await r.sim.clock.advance('5m');
    // The busy lead waits for its retry; the third lead waits for tomorrow's window.
    expect(pending(r.sim)).toEqual([
      { type: 'lead.retry', at: '2026-03-02T17:08:03.000Z' },
      { type: 'campaign.dial', at: '2026-03-03T09:00:00.000Z' },
    ]);
    expect(await ok(r.sim, 'DELETE', `/user/campaign/${r.campaignId}`)).toEqual({ message: expect.any(String) });
    expect(r.sim.clock.pendingEvents().filter((e) => e.type === 'campaign.dial' || e.type === 'lead.retry')).toEqual([]);
    await r.sim.clock.advance('3d');
    expect(await callsOf(r.sim)).toHaveLength(2);
  });

  it('dials a lead added to a running campaign at once', async () => {
    const r = await rig({
      startAt: '2026-03-02T10:00:00Z',
      campaign: { max_calls_in_parallel: 3 },
      leads: ['+14155551301'],
      outcomes: { '+14155551301': [{ kind: 'human', ring_seconds: 5, talk_seconds: 1200 }] },
    });
    await r.start();
    await r.sim.clock.advance('10m');
    await r.addLead('+14155551302');
    await r.sim.clock.advance(0);
    const calls = await r.calls();
    expect(calls.map((c) => [c.client_phone_number, c.status, c.created_at])).toEqual([
      ['+14155551301', 'in-progress', '2026-03-02 10:00:00'],
      ['+14155551302', 'initiated', '2026-03-02 10:10:00'],
    ]);
  });

  it('produces identical call lists, lead lists and event histories for the same seed and script', async () => {
    const play = async () => {
      const r = await rig({
        seed: 7,
        startAt: '2026-03-06T15:50:00Z',
        assistant: { post_call_schema: [{ name: 'booked', type: 'bool', description: 'Whether a demo was booked' }] },
        campaign: {
          ...BERLIN_OFFICE,
          max_calls_in_parallel: 2,
          max_retries: 2,
          retry_interval: 10,
          retry_on_voicemail: true,
          goal_completion_variable: 'booked',
          retry_on_goal_incomplete: true,
        },
        leads: [
          '+14155551401',
          '+14155550001',
          '+14155550003',
          '+14155550005',
          { phone_number: '+14155550002', secondary_contacts: [{ phone_number: '+14155551402' }] },
          { phone_number: '+14155551403', variables: { tier: 'gold' } },
          ...numbers(4, 1410),
        ],
        outcomes: { '+14155551401': ['busy', 'voicemail', 'human'] },
      });
      r.sim.control.outcomes.forLeadVariables({ tier: 'gold' }, ['no-answer', 'goal-incomplete', 'human']);
      await r.start();
      await r.sim.clock.advance('3d');
      await r.sim.clock.runUntilIdle();
      return {
        calls: JSON.stringify((await request(r.sim, 'GET', '/user/calls?per_page=100')).body),
        leads: JSON.stringify((await request(r.sim, 'GET', '/user/leads?per_page=100')).body),
        events: JSON.stringify(r.sim.events.history()),
        count: (await r.calls()).length,
      };
    };
    const a = await play();
    const b = await play();
    expect(a.count).toBeGreaterThan(10);
    expect(a.calls).toBe(b.calls);
    expect(a.leads).toBe(b.leads);
    expect(a.events).toBe(b.events);
  });

  it('makes 10·1 + 10·4 + 10·1 + 10·4 calls for ten leads each of human, no-answer, voicemail and busy with max_retries 3', async () => {
    const mix = ['human', 'no-answer', 'voicemail', 'busy'] as const;
    const sim = createSimulator({ seed: 1, startAt: '2026-03-02T00:00:00Z' });
    sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: CALLER });
    const assistant = await ok(sim, 'POST', '/user/assistant', pipelineAssistant({ phone_number_id: 1 }));
    const campaign = await ok(sim, 'POST', '/user/campaign', { name: 'Mix', assistant_id: assistant.data.id, max_calls_in_parallel: 10, max_retries: 3, retry_interval: 10 });
    sim.control.outcomes.set({ rules: mix.map((outcome) => ({ match: { lead_variables: { mix: outcome } }, outcomes: [outcome] })) });
    for (let i = 0; i < 40; i++) {
      await ok(sim, 'POST', '/user/lead', { campaign_id: campaign.data.id, phone_number: `+1212${String(2_000_000 + i).padStart(7, '0')}`, variables: { mix: mix[i % 4] } });
    }
    await ok(sim, 'POST', '/user/campaigns/update-status', { campaign_id: campaign.data.id, action: 'start' });
    await sim.clock.runUntilIdle();
    const calls = await callsOf(sim);
    expect(calls).toHaveLength(10 * 1 + 10 * 4 + 10 * 1 + 10 * 4);
    const byStatus: Record<string, number> = {};
    for (const call of calls) byStatus[call.status] = (byStatus[call.status] ?? 0) + 1;
    expect(byStatus).toEqual({ completed: 10, 'no-answer': 40, ended: 10, busy: 40 });
    const leads = await leadsOf(sim, campaign.data.id);
    const byMix = (outcome: string) => leads.filter((l) => l.variables.mix === outcome).map((l) => l.status);
    expect(byMix('human')).toEqual(Array(10).fill('completed'));
    expect(byMix('no-answer')).toEqual(Array(10).fill('reached-max-retries'));
    expect(byMix('voicemail')).toEqual(Array(10).fill('completed'));
    expect(byMix('busy')).toEqual(Array(10).fill('reached-max-retries'));
    expect((await ok(sim, 'GET', '/user/campaigns'))[0].status).toBe('completed');
  });
});
