/** A call's built-in evaluation values (live-platform H.1) and the goal variable. */
import { describe, expect, it } from 'vitest';
import { chatBuiltIns, evaluationSchema, isGoalVariable, withBuiltIns } from '../../src/domain/assistants/evaluation.js';
import { callBuiltIns, callSummary, goalValue, type CallFacts } from '../../src/domain/calls/evaluation.js';

const call = (fields: Partial<CallFacts>): CallFacts => ({ plan: null, status: 'completed', answered_by: 'human', duration: 125, variables: {}, ...fields });

describe('callSummary', () => {
  it.each([
    [{ status: 'completed', answered_by: 'human', duration: 125 }, 'The customer answered and the goal was met after 2 min 5 s.'],
    [{ status: 'ended_by_customer', answered_by: 'human', duration: 14 }, 'The customer answered and hung up before the goal was met after 14 s.'],
    [{ status: 'ended_by_assistant', answered_by: 'human', duration: 600 }, 'The customer answered and the assistant ended the call after 10 min.'],
    [{ status: 'ended', answered_by: 'machine', duration: 25 }, 'Voicemail answered and the call ended after 25 s.'],
    [{ status: 'no-answer', answered_by: 'unknown', duration: 0 }, 'Nobody answered and the call rang out.'],
    [{ status: 'failed', answered_by: 'unknown', duration: 0 }, 'Nobody answered and the call failed.'],
  ] as const)('%o reads %s', (facts, text) => {
    expect(callSummary(facts)).toBe(text);
  });
});

describe('callBuiltIns', () => {
  it('is true exactly for a planned human outcome, whatever status the script gave it', () => {
    expect(callBuiltIns(call({ plan: { kind: 'human' } }))!.status).toBe(true);
    expect(callBuiltIns(call({ plan: { kind: 'human' }, status: 'ended_by_assistant' }))!.status).toBe(true);
    for (const kind of ['goal-incomplete', 'voicemail', 'busy', 'no-answer', 'failed']) expect(callBuiltIns(call({ plan: { kind }, status: 'ended' }))!.status).toBe(false);
  });

  it('reads a record without a plan as met when it is completed', () => {
    expect(callBuiltIns(call({ status: 'completed' }))!.status).toBe(true);
    expect(callBuiltIns(call({ status: 'ended_by_customer' }))!.status).toBe(false);
  });

  it('has none while the call is not over', () => {
    for (const status of ['initiated', 'ringing', 'in-progress']) expect(callBuiltIns(call({ status }))).toBeUndefined();
  });
});

describe('withBuiltIns, evaluationSchema, goal variables', () => {
  it('lists the built-ins first; a stored value keeps their place with its own value', () => {
    const values = withBuiltIns({ booked: true, status: false }, { status: true, summary: 'x' });
    expect(Object.entries(values)).toEqual([
      ['status', false],
      ['summary', 'x'],
      ['booked', true],
    ]);
  });

  it("finds a schema item of a built-in's name before the built-in", () => {
    const schema = evaluationSchema([{ name: 'summary', type: 'string', description: 'Agreed' }]);
    expect(schema.find((s) => s.name === 'summary')!.description).toBe('Agreed');
    expect(schema.find((s) => s.name === 'status')!.description).toBe('Whether the call objective was achieved or not.');
  });

  it('takes status as a goal variable without an item, a bool item, and nothing else', () => {
    expect(isGoalVariable([], 'status')).toBe(true);
    expect(isGoalVariable([{ name: 'status', type: 'string', description: 'x' }], 'status')).toBe(false);
    expect(isGoalVariable([{ name: 'booked', type: 'bool', description: 'x' }], 'booked')).toBe(true);
    expect(isGoalVariable([], 'booked')).toBe(false);
  });

  it('reads the goal variable from the stored values, else the built-in status', () => {
    expect(goalValue(call({ plan: { kind: 'human' } }), 'status')).toBe(true);
    expect(goalValue(call({ plan: { kind: 'human' }, variables: { status: false } }), 'status')).toBe(false);
    expect(goalValue(call({ plan: { kind: 'human' } }), 'booked')).toBeUndefined();
  });
});

describe('chatBuiltIns', () => {
  it('is true when the assistant answered the last user message, system messages aside', () => {
    expect(chatBuiltIns([{ role: 'assistant' }, { role: 'user' }, { role: 'assistant' }, { role: 'system' }])).toStrictEqual({
      status: true,
      summary: 'The customer sent 1 message and the assistant answered the last one.',
    });
    expect(chatBuiltIns([{ role: 'user' }, { role: 'assistant' }, { role: 'user' }])).toStrictEqual({
      status: false,
      summary: 'The customer sent 2 messages and the last one was not answered.',
    });
    expect(chatBuiltIns([{ role: 'assistant' }])).toStrictEqual({ status: false, summary: 'The customer sent no message.' });
  });
});
