/** The comparison rules of drift (src/recording/compare.ts): shapes, closed-set values, echoes, id kinds and the id map. */
import { describe, expect, it } from 'vitest';
import { compareBodies, compareEchoes, compareExchange, fieldKind, IdMap, idsIn, isClosedValue, jsonPath, paramKind, routeKind } from '../../src/recording/compare.js';

describe('shape comparison', () => {
  it('names keys missing and extra at every depth with their JSON paths', () => {
    expect(compareBodies({ data: { a: 1, b: { c: 1 } } }, { data: { a: 1, b: { d: 1 } } })).toEqual([
      { path: '$.data.b.c', kind: 'missing', recorded: 1 },
      { path: '$.data.b.d', kind: 'extra', voxsim: 1 },
    ]);
  });

  it('names a JSON type that differs and does not descend into it', () => {
    expect(compareBodies({ transcript: [{ text: 'x' }] }, { transcript: 'Assistant: x' })).toEqual([{ path: '$.transcript', kind: 'type', recorded: 'array', voxsim: 'string' }]);
    expect(compareBodies({ n: null }, { n: 'x' })).toEqual([{ path: '$.n', kind: 'type', recorded: 'null', voxsim: 'string' }]);
  });

  it('pairs array items by index up to the shorter list', () => {
    expect(compareBodies([{ a: 1 }, { a: 1 }, { a: 1 }], [{ a: 2 }, { b: 1 }])).toEqual([
      { path: '$[1].a', kind: 'missing', recorded: 1 },
      { path: '$[1].b', kind: 'extra', voxsim: 1 },
    ]);
  });

  it('writes odd keys in brackets', () => {
    expect(jsonPath(['data', 0, 'odd key'])).toBe('$.data[0]["odd key"]');
  });
});

describe('closed-set values', () => {
  it('compares statuses, types, enums and booleans', () => {
    expect(compareBodies({ status: 'completed', type: 'outbound', answered_by: 'human', ok: true, error_code: 'X' }, { status: 'busy', type: 'outbound', answered_by: 'machine', ok: false, error_code: 'Y' }).map((d) => d.path)).toEqual([
      '$.status',
      '$.answered_by',
      '$.ok',
      '$.error_code',
    ]);
  });

  it('does not compare ids, timestamps, generated text or money', () => {
    expect(compareBodies({ id: 1, uuid: 'a', created_at: '2026-01-01', name: 'x', summary: 'y', total_cost: 0.5, price: '1.00' }, { id: 2, uuid: 'b', created_at: '2027-01-01', name: 'z', summary: 'w', total_cost: 0.7, price: '2.00' })).toEqual([]);
    expect(isClosedValue('status', '2026-03-02 09:00:00')).toBe(false);
    expect(isClosedValue('call_status', 'ended')).toBe(true);
  });

  it('compares the request values an answer echoes', () => {
    expect(compareEchoes({ name: 'Sales' }, { data: { name: 'Sales' } }, { name: 'Sales' }, { data: { name: 'Other' } })).toEqual([{ path: '$.data.name', kind: 'value', recorded: 'Sales', voxsim: 'Other' }]);
    // Not an echo in the recording (the platform transformed it): left to the shape comparison.
    expect(compareEchoes({ fillers: true }, { data: { fillers: 1 } }, { fillers: true }, { data: { fillers: true } })).toEqual([]);
  });

  it('reports the status first and an echo only once', () => {
    expect(compareExchange({ status: 201, body: { status: 'a' }, request: { status: 'a' } }, { status: 200, body: { status: 'b' }, request: { status: 'a' } })).toEqual([
      { path: 'status', kind: 'status', recorded: 201, voxsim: 200 },
      { path: '$.status', kind: 'value', recorded: 'a', voxsim: 'b' },
    ]);
  });
});

describe('id kinds and mapping', () => {
  it('reads the kind of a route, a route parameter and a field', () => {
    expect(routeKind('/user/knowledgebases/:knowledgebaseId/documents')).toBe('document');
    expect(routeKind('/user/phone-numbers/sip-trunks/:id')).toBe('sip_trunk');
    expect(routeKind('/user/campaigns/update-status')).toBe('campaign');
    // Catalog lists under a resource's path hold fixture ids.
    expect(routeKind('/user/assistants/voices')).toBeUndefined();
    expect(paramKind('/user/assistant/:id', 'id')).toBe('assistant');
    expect(paramKind('/conversations/:uuid/messages', 'uuid')).toBe('conversation');
    expect(paramKind('/user/knowledgebases/:knowledgebaseId/documents/:documentId', 'knowledgebaseId')).toBe('knowledgebase');
    expect(fieldKind('label_ids')).toBe('label');
    expect(fieldKind('language_id')).toBeUndefined();
    expect(fieldKind('id', 'call')).toBe('call');
  });

  it('finds the ids of created kinds in an answer, with their kinds', () => {
    expect(idsIn({ data: [{ id: 7, assistant_id: 3, voice_id: 1, calls: [{ id: 9 }] }] }, 'campaign').map((f) => `${f.kind} ${f.value}`)).toEqual(['campaign 7', 'assistant 3', 'call 9']);
  });

  it('maps the platform ids to voxsim ids at the same places, one to one', () => {
    const ids = new IdMap();
    expect(ids.learn({ data: { id: 812, uuid: 'u-1' } }, { data: { id: 1, uuid: 'v-1' } }, 'assistant').length).toBe(2);
    expect(ids.get('assistant', 812)).toBe(1);
    expect(ids.get('assistant', 'u-1')).toBe('v-1');
    expect(ids.get('campaign', 812)).toBeUndefined();
    // voxsim's 1 is taken: another platform id cannot map onto it.
    expect(ids.set('assistant', 813, 1)).toBe(false);
  });

  it('pairs list items only when both lists have the same length', () => {
    const ids = new IdMap();
    expect(ids.learn({ data: [{ id: 77 }, { id: 101 }] }, { data: [{ id: 1 }] }, 'assistant')).toEqual([]);
    expect(ids.learn({ data: [{ id: 77 }, { id: 101 }] }, { data: [{ id: 1 }, { id: 2 }] }, 'assistant').length).toBe(2);
  });
});
