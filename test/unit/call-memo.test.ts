import { describe, expect, it } from 'vitest';
import { CallMemo } from '../../src/domain/calls/memo.js';
import type { CallPlan } from '../../src/domain/calls/schema.js';

const plan = (patch: Partial<CallPlan> = {}): CallPlan => ({
  kind: 'voicemail',
  source: 'rule',
  answered_by: 'machine',
  final_status: 'ended',
  ring_seconds: 12,
  talk_seconds: 20,
  transcript: 'Customer: Hi, leave a message.',
  variables: null,
  evaluation: null,
  ...patch,
});

describe('CallMemo', () => {
  it('builds a text once per kind, head and combination, and answers the same text after', () => {
    const memo = new CallMemo();
    let built = 0;
    const build = (text: string) => () => {
      built++;
      return text;
    };
    const first = memo.text('human', 'Hello!', 7, build('Assistant: Hello!\nCustomer: Hi.'));
    expect(memo.text('human', 'Hello!', 7, build('never built'))).toBe(first);
    expect(memo.text('human', 'Hello!', 8, build('eight'))).toBe('eight');
    expect(memo.text('human', 'Hi!', 7, build('other head'))).toBe('other head');
    expect(memo.text('voicemail', 'Hello!', 7, build('other kind'))).toBe('other kind');
    expect(built).toBe(4);
  });

  it('answers the plan another call holds when every field is equal, and keeps the first', () => {
    const memo = new CallMemo();
    const first = plan();
    expect(memo.plan(first)).toBe(first);
    const again = plan();
    expect(memo.plan(again)).toBe(first);
    for (const patch of [{ ring_seconds: 13 }, { talk_seconds: 21 }, { source: 'magic' as const }, { final_status: 'completed' as const }, { transcript: 'Customer: Other.' }]) {
      const differs = plan(patch);
      expect(memo.plan(differs)).toBe(differs);
    }
  });

  it('answers by fields the plan another call holds, and builds one equal to them only when none is held', () => {
    const memo = new CallMemo();
    const held = plan();
    memo.plan(held);
    expect(memo.planOf('voicemail', 'rule', 'machine', 'ended', 12, 20, 'Customer: Hi, leave a message.')).toBe(held);
    const built = memo.planOf('busy', 'rule', 'unknown', 'busy', 2, 0, '');
    expect(built).toStrictEqual(plan({ kind: 'busy', answered_by: 'unknown', final_status: 'busy', ring_seconds: 2, talk_seconds: 0, transcript: '' }));
    expect(memo.planOf('busy', 'rule', 'unknown', 'busy', 2, 0, '')).toBe(built);
    expect(memo.plan(plan({ kind: 'busy', answered_by: 'unknown', final_status: 'busy', ring_seconds: 2, talk_seconds: 0, transcript: '' }))).toBe(built);
    const beyond = memo.planOf('human', 'rule', 'human', 'completed', 5, 2_000_000, '');
    expect(beyond.talk_seconds).toBe(2_000_000);
    expect(memo.planOf('human', 'rule', 'human', 'completed', 5, 2_000_000, '')).not.toBe(beyond);
  });

  it('never shares a plan that carries scripted variables or evaluation, or numbers beyond its packing', () => {
    const memo = new CallMemo();
    for (const patch of [{ variables: { booked: true } }, { evaluation: { score: 3 } }, { talk_seconds: 2_000_000 }, { ring_seconds: 1.5 }]) {
      const a = plan(patch);
      const b = plan(patch);
      expect(memo.plan(a)).toBe(a);
      expect(memo.plan(b)).toBe(b);
    }
  });
});
