/**
 * Every limit of the Assistant table (spec: Limits) at both edges, on create and on update.
 */
import { expect, it } from 'vitest';
import { contract } from '../support/api.js';
import { multimodalAssistant, pipelineAssistant } from '../support/fixtures.js';

type Range = { field: string; min: number; max: number; integer: boolean; base?: typeof pipelineAssistant };

const RANGES: Range[] = [
  { field: 'max_duration', min: 20, max: 1200, integer: true },
  { field: 'max_silence_duration', min: 1, max: 360, integer: true },
  { field: 'max_initial_silence_duration', min: 1, max: 120, integer: true },
  { field: 'ringing_time', min: 1, max: 60, integer: true },
  { field: 'reengagement_interval', min: 7, max: 600, integer: true },
  { field: 'conversation_inactivity_timeout', min: 1, max: 1440, integer: true },
  { field: 'min_interrupt_words', min: 0, max: 10, integer: true },
  { field: 'voice_stability', min: 0, max: 1, integer: false },
  { field: 'voice_similarity', min: 0, max: 1, integer: false },
  { field: 'speech_speed', min: 0.7, max: 1.2, integer: false },
  { field: 'llm_temperature', min: 0, max: 1, integer: false },
  { field: 'endpoint_sensitivity', min: 0, max: 5, integer: false },
  { field: 'interrupt_sensitivity', min: 0, max: 5, integer: false },
  { field: 'ambient_sound_volume', min: 0, max: 1, integer: false },
  { field: 'turn_detection_threshold', min: 0, max: 1, integer: false, base: multimodalAssistant },
];

const LENGTHS: { field: string; max: number }[] = [
  { field: 'name', max: 255 },
  { field: 'initial_message', max: 200 },
  { field: 'reengagement_prompt', max: 1000 },
  { field: 'voice_mail_message', max: 1000 },
];

const attr = (field: string) => field.replace(/_/g, ' ');
const step = (r: Range) => (r.integer ? 1 : 0.01);
const round = (n: number) => Math.round(n * 100) / 100;
const edgeCases = RANGES.flatMap((r) => [
  { ...r, label: 'minimum', value: r.min, ok: true },
  { ...r, label: 'maximum', value: r.max, ok: true },
  { ...r, label: 'below the minimum', value: round(r.min - step(r)), ok: false },
  { ...r, label: 'above the maximum', value: round(r.max + step(r)), ok: false },
]);

contract('assistant limits on create', (api) => {
  it.each(edgeCases.filter((c) => c.ok))('accepts $field at its $label ($value) and stores it', async ({ field, value, base }) => {
    const res = await api().post('/user/assistant', (base ?? pipelineAssistant)({ [field]: value }));
    expect(res.status).toBe(201);
    const read = await api().get(`/user/assistant/${res.body.data.id}`);
    expect(read.body.data[field]).toBe(value);
  });

  it.each(edgeCases.filter((c) => !c.ok))('rejects $field $label ($value) with 422 shape B', async ({ field, value, min, max, base }) => {
    const res = await api().post('/user/assistant', (base ?? pipelineAssistant)({ [field]: value }));
    expect(res.status).toBe(422);
    const message = `The ${attr(field)} must be between ${min} and ${max}.`;
    expect(res.body).toEqual({ message, errors: { [field]: [message] } });
    expect(api().sim.db.assistants.size).toBe(0);
  });

  it.each(RANGES.filter((r) => r.integer))('rejects a decimal $field with the integer rule', async ({ field, min }) => {
    const res = await api().post('/user/assistant', pipelineAssistant({ [field]: min + 0.5 }));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ [field]: [`The ${attr(field)} must be an integer.`] });
  });

  it.each(RANGES)('rejects $field sent as a string', async ({ field, min, integer, base }) => {
    const res = await api().post('/user/assistant', (base ?? pipelineAssistant)({ [field]: String(min) }));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ [field]: [`The ${attr(field)} must be ${integer ? 'an integer' : 'a number'}.`] });
  });

  it.each(LENGTHS)('accepts $field of exactly $max characters', async ({ field, max }) => {
    const res = await api().post('/user/assistant', pipelineAssistant({ [field]: 'a'.repeat(max) }));
    expect(res.status).toBe(201);
    const read = await api().get(`/user/assistant/${res.body.data.id}`);
    expect(read.body.data[field]).toHaveLength(max);
  });

  it.each(LENGTHS)('rejects $field of $max + 1 characters', async ({ field, max }) => {
    const res = await api().post('/user/assistant', pipelineAssistant({ [field]: 'a'.repeat(max + 1) }));
    expect(res.status).toBe(422);
    const message = `The ${attr(field)} may not be greater than ${max} characters.`;
    expect(res.body).toEqual({ message, errors: { [field]: [message] } });
  });

  it('rejects an empty name as missing', async () => {
    const res = await api().post('/user/assistant', pipelineAssistant({ name: '' }));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ name: ['The name field is required.'] });
  });

  it.each([
    [1, true],
    [30, true],
    [0, false],
    [31, false],
  ])('checks the collect_keypad timeout %s against 1-30', async (timeout, ok) => {
    const res = await api().post('/user/assistant', pipelineAssistant({ tools: [{ type: 'collect_keypad', timeout }] }));
    if (ok) {
      expect(res.status).toBe(201);
      const read = await api().get(`/user/assistant/${res.body.data.id}`);
      expect(read.body.data.tools).toEqual([{ type: 'collect_keypad', timeout }]);
    } else {
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ 'tools.0.timeout': ['The tools.0.timeout must be between 1 and 30.'] });
    }
  });

  it.each([
    ['name', 'abc', true],
    ['name', 'a'.repeat(16), true],
    ['name', 'ab', false],
    ['name', 'a'.repeat(17), false],
    ['description', 'abc', true],
    ['description', 'd'.repeat(255), true],
    ['description', 'ab', false],
    ['description', 'd'.repeat(256), false],
  ])('checks post_call_schema %s of length %#', async (key, value, ok) => {
    const item = { name: 'goal_met', type: 'bool', description: 'Whether the demo was booked', [key]: value };
    const res = await api().post('/user/assistant', pipelineAssistant({ post_call_schema: [item] }));
    if (ok) {
      expect(res.status).toBe(201);
      const read = await api().get(`/user/assistant/${res.body.data.id}`);
      expect(read.body.data.post_call_schema).toEqual([item]);
    } else {
      const [min, max] = key === 'name' ? [3, 16] : [3, 255];
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ [`post_call_schema.0.${key}`]: [`The post call schema.0.${key} must be between ${min} and ${max} characters.`] });
    }
  });
});

contract('assistant limits on update', (api) => {
  async function existing(base = pipelineAssistant) {
    const res = await api().post('/user/assistant', base());
    return res.body.data.id as number;
  }

  it.each(edgeCases.filter((c) => c.ok))('accepts $field at its $label ($value)', async ({ field, value, base }) => {
    const id = await existing(base);
    const res = await api().put(`/user/assistant/${id}`, { [field]: value });
    expect(res.status).toBe(200);
    const read = await api().get(`/user/assistant/${id}`);
    expect(read.body.data[field]).toBe(value);
  });

  it.each(edgeCases.filter((c) => !c.ok))('rejects $field $label ($value) and keeps the stored value', async ({ field, value, min, max, base }) => {
    const id = await existing(base);
    const before = await api().get(`/user/assistant/${id}`);
    const res = await api().put(`/user/assistant/${id}`, { [field]: value });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ [field]: [`The ${attr(field)} must be between ${min} and ${max}.`] });
    const after = await api().get(`/user/assistant/${id}`);
    expect(after.body).toEqual(before.body);
  });

  it.each(LENGTHS)('accepts $field of $max characters and rejects $max + 1', async ({ field, max }) => {
    const id = await existing();
    expect((await api().put(`/user/assistant/${id}`, { [field]: 'b'.repeat(max) })).status).toBe(200);
    const res = await api().put(`/user/assistant/${id}`, { [field]: 'c'.repeat(max + 1) });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ [field]: [`The ${attr(field)} may not be greater than ${max} characters.`] });
    const read = await api().get(`/user/assistant/${id}`);
    expect(read.body.data[field]).toBe('b'.repeat(max));
  });
});
