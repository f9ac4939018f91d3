/**
 * The compact call row (src/domain/calls/row.ts): it reads, takes patches and writes
 * JSON exactly as the plain record it stands for, whatever its times and values; rows of
 * one placement share a head; a snapshot's row comes back compact only when it has a
 * call's fields in their order.
 */
import { describe, expect, it } from 'vitest';
import { CallHeads, CallRow, callCodec, callRow, recordingUrl } from '../../src/domain/calls/row.js';
import { NO_VALUES, type Call, type CallFields } from '../../src/domain/calls/schema.js';

const T0 = Date.parse('2026-03-02T09:00:00Z');

/** The plain record `callRow` stands for, built the way records were built before rows were compact. */
function plainRow(id: number, f: CallFields): Record<string, unknown> {
  return {
    id,
    campaign_id: f.campaign_id ?? null,
    campaign_name: f.campaign_name ?? null,
    lead_id: f.lead_id ?? null,
    contact_id: f.contact_id ?? null,
    duration: f.duration ?? 0,
    status: f.status ?? 'initiated',
    transcript: f.transcript ?? '',
    variables: f.variables ?? NO_VALUES,
    input_variables: f.input_variables ?? NO_VALUES,
    evaluation: f.evaluation ?? NO_VALUES,
    webhook_response: f.webhook_response ?? null,
    carrier_cost_micros: f.carrier_cost_micros ?? 0,
    total_cost_micros: f.total_cost_micros ?? 0,
    answered_by: f.answered_by ?? 'unknown',
    recording_url: f.recording_url ?? null,
    plan: f.plan ?? null,
    event_id: f.event_id ?? null,
    answered_at: f.answered_at ?? null,
    ended_at: f.ended_at ?? null,
    updated_at: f.updated_at ?? f.created_at,
    account_id: f.account_id,
    assistant_id: f.assistant_id,
    assistant_name: f.assistant_name,
    type: f.type,
    assistant_phone_number: f.assistant_phone_number,
    client_phone_number: f.client_phone_number,
    created_at: f.created_at,
  };
}

const base: CallFields = {
  account_id: 1,
  assistant_id: 3,
  assistant_name: 'Sales',
  campaign_id: 4,
  campaign_name: 'Spring',
  lead_id: 9,
  type: 'outbound',
  assistant_phone_number: '+14155550100',
  client_phone_number: '+14155550123',
  input_variables: { name: 'Ada' },
  created_at: T0,
};

/** Times a row must keep exactly: whole ms near and far from each other, before 1970, fractions, the limits of a Date. */
const TIMES = [T0, T0 + 1, T0 + 2 ** 30 - 1, T0 + 2 ** 30, T0 + 2 ** 31 + 7, T0 - 2 ** 30 - 3, -1, 0, -8.64e15, 8.64e15, T0 + 0.5, 1e-9];

describe('CallRow', () => {
  it('writes the JSON of the plain record, field for field and in order', () => {
    const fields: CallFields = {
      ...base,
      status: 'completed',
      duration: 61,
      transcript: 'Assistant: Hi',
      variables: { ok: true },
      evaluation: { ok: true },
      answered_by: 'human',
      answered_at: T0 + 3_000,
      ended_at: T0 + 64_000,
      updated_at: T0 + 64_000,
      carrier_cost_micros: 20_000,
      total_cost_micros: 170_000,
      recording_url: recordingUrl(7),
      webhook_response: { status: 200 },
    };
    const row = callRow(7, fields);
    expect(JSON.stringify(row)).toBe(JSON.stringify(plainRow(7, fields)));
    expect(Object.keys((row as CallRow).toJSON())).toEqual(Object.keys(plainRow(7, fields)));
  });

  it('keeps every time exactly, as created and after patches, null where null', () => {
    for (const created of TIMES) {
      for (const other of TIMES) {
        const row = callRow(1, { ...base, created_at: created, updated_at: other, answered_at: other, ended_at: null });
        expect([row.created_at, row.updated_at, row.answered_at, row.ended_at]).toEqual([created, other, other, null]);
        Object.assign(row, { ended_at: other, updated_at: created });
        expect([row.created_at, row.updated_at, row.answered_at, row.ended_at]).toEqual([created, created, other, other]);
        // Moving the creation time keeps the other times where they were.
        Object.assign(row, { created_at: other });
        expect([row.created_at, row.updated_at, row.answered_at, row.ended_at]).toEqual([other, created, other, other]);
      }
    }
  });

  it('answers a recording URL of its own id and keeps any other as given', () => {
    const row = callRow(12, base);
    expect(row.recording_url).toBeNull();
    row.recording_url = recordingUrl(12);
    expect(row.recording_url).toBe('https://recordings.voxsim.test/calls/12.mp3');
    row.recording_url = recordingUrl(13);
    expect(row.recording_url).toBe('https://recordings.voxsim.test/calls/13.mp3');
    row.recording_url = 'https://example.test/a.mp3';
    expect(row.recording_url).toBe('https://example.test/a.mp3');
    row.recording_url = null;
    expect(row.recording_url).toBeNull();
  });

  it('shares the head of the calls of one placement, and a row that changes a shared field changes alone', () => {
    const heads = new CallHeads();
    const a = callRow(1, base, heads);
    const b = callRow(2, { ...base, created_at: T0 + 60_000 }, heads);
    const other = callRow(3, { ...base, campaign_id: 5 }, heads);
    const head = (row: Call) => (row as unknown as { head: object }).head;
    expect(head(a)).toBe(head(b));
    expect(head(other)).not.toBe(head(a));
    Object.assign(b, { assistant_id: null, assistant_name: 'Renamed' });
    expect([a.assistant_id, a.assistant_name, b.assistant_id, b.assistant_name]).toEqual([3, 'Sales', null, 'Renamed']);
  });
});

describe('the calls codec', () => {
  it('writes a row as its plain record and reads the record back as a compact row with the same JSON', () => {
    const codec = callCodec();
    const row = callRow(5, { ...base, status: 'busy', ended_at: T0 + 2 ** 31, recording_url: recordingUrl(5) });
    const plain = structuredClone(codec.plain(row));
    expect(plain).toEqual(plainRow(5, { ...base, status: 'busy', ended_at: T0 + 2 ** 31, recording_url: recordingUrl(5) }));
    const back = codec.row(plain);
    expect(back).toBeInstanceOf(CallRow);
    expect(JSON.stringify(back)).toBe(JSON.stringify(plain));
  });

  it('keeps a snapshot row that is not a call record of this version as the plain object it is', () => {
    const codec = callCodec();
    const plain = plainRow(5, base) as unknown as Call;
    const reordered = Object.fromEntries(Object.entries(plain).reverse()) as unknown as Call;
    const extra = { ...plain, legacy: 1 } as Call;
    const missing = { ...plain } as Partial<Call>;
    delete missing.plan;
    const nulled = { ...plain, duration: null } as unknown as Call;
    for (const odd of [reordered, extra, missing as Call, nulled]) expect(codec.row(odd)).toBe(odd);
    expect(codec.row(plain)).toBeInstanceOf(CallRow);
  });
});
