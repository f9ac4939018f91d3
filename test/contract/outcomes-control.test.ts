/**
 * The outcome and inbound-call control routes (ARCHITECTURE §6: PUT/GET /__sim/outcomes
 * with the outcome rule shape, POST /__sim/calls/inbound; §4 Scripted outcomes; issue 5)
 * over both transports, and the same operations through `sim.control` in-process giving
 * the same bodies.
 */
import { expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator.js';
import { contract, START, type Api } from '../support/api.js';
import { simRefusal } from '../support/expect.js';
import { multimodalAssistant, pipelineAssistant } from '../support/fixtures.js';
import type { OutcomeRuleInput } from '../../src/types.js';

const OUTBOUND_NUMBER = '+14155550100';
const INBOUND_NUMBER = '+14155550101';
const SPARE_NUMBER = '+14155550102';
const CALLER = '+14155550177';
const NO_ASSISTANT = { message: 'No inbound assistant answers this number.' };

/** Every match kind and an outcome object with every field. */
const FULL_RULES: OutcomeRuleInput[] = [
  { match: { phone_number: '+14155550123' }, outcomes: ['busy', 'voicemail', 'human'] },
  { match: { campaign_id: 3 }, outcomes: ['no-answer'] },
  { match: { lead_variables: { tier: 'gold' } }, outcomes: ['goal-incomplete', 'failed'] },
  {
    match: {},
    outcomes: [
      {
        kind: 'human',
        answered_by: 'human',
        status: 'ended_by_customer',
        ring_seconds: 4,
        talk_seconds: 90,
        transcript: ['Assistant: Hello.', { role: 'customer', content: 'Hi.' }],
        variables: { booked: true },
        evaluation: { score: 9 },
      },
    ],
  },
];

function fresh(): Simulator {
  return createSimulator({ seed: 1, startAt: START });
}

function invalid(field: string, message: string) {
  return { message, errors: { [field]: [message] } };
}

contract('control: outcome rules', (api) => {
  it('answers 200 with the rules, match {} filled in for a rule without match', async () => {
    const res = await api().put('/__sim/outcomes', { rules: [{ outcomes: ['busy'] }] });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ rules: [{ match: {}, outcomes: ['busy'] }] });
  });

  it('keeps every match kind and every outcome object field as given', async () => {
    const res = await api().put('/__sim/outcomes', { rules: FULL_RULES });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ rules: FULL_RULES });
  });

  it('lists no rules on a fresh simulator', async () => {
    const res = await api().get('/__sim/outcomes');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ rules: [] });
  });

  it('lists the rules in the order they were given', async () => {
    await api().put('/__sim/outcomes', { rules: FULL_RULES });
    const res = await api().get('/__sim/outcomes');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ rules: FULL_RULES });
  });

  it('replaces every rule on a second PUT', async () => {
    await api().put('/__sim/outcomes', { rules: FULL_RULES });
    await api().put('/__sim/outcomes', { rules: [{ match: { campaign_id: 1 }, outcomes: ['failed'] }] });
    expect((await api().get('/__sim/outcomes')).body).toStrictEqual({ rules: [{ match: { campaign_id: 1 }, outcomes: ['failed'] }] });
  });

  it('clears every rule with an empty list', async () => {
    await api().put('/__sim/outcomes', { rules: FULL_RULES });
    const res = await api().put('/__sim/outcomes', { rules: [] });
    expect(res.body).toStrictEqual({ rules: [] });
    expect((await api().get('/__sim/outcomes')).body).toStrictEqual({ rules: [] });
  });

  it('accepts the edges ring_seconds 0 and 600 and talk_seconds 0', async () => {
    const rules = [{ match: {}, outcomes: [{ ring_seconds: 0, talk_seconds: 0 }, { ring_seconds: 600 }] }];
    const res = await api().put('/__sim/outcomes', { rules });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ rules });
  });

  it.each([
    ['an unknown outcome name', [{ outcomes: ['nope'] }], 'rules.0.outcomes.0', 'The selected rules.0.outcomes.0 is invalid.'],
    ['an empty outcomes list', [{ outcomes: [] }], 'rules.0.outcomes', 'The rules.0.outcomes must have at least 1 items.'],
    ['ring_seconds -1', [{ outcomes: [{ ring_seconds: -1 }] }], 'rules.0.outcomes.0.ring_seconds', 'The rules.0.outcomes.0.ring seconds must be between 0 and 600.'],
    ['ring_seconds 601', [{ outcomes: [{ ring_seconds: 601 }] }], 'rules.0.outcomes.0.ring_seconds', 'The rules.0.outcomes.0.ring seconds must be between 0 and 600.'],
    ['a rule without outcomes', [{ match: {} }], 'rules.0.outcomes', 'The rules.0.outcomes field is required.'],
    ['outcomes that are not a list', [{ outcomes: 'busy' }], 'rules.0.outcomes', 'The rules.0.outcomes must be an array.'],
    ['campaign_id 0', [{ match: { campaign_id: 0 }, outcomes: ['busy'] }], 'rules.0.match.campaign_id', 'The rules.0.match.campaign id must be at least 1.'],
    ['lead_variables that are not an object', [{ match: { lead_variables: 'gold' }, outcomes: ['busy'] }], 'rules.0.match.lead_variables', 'The rules.0.match.lead variables must be an object.'],
    ['a bad outcome in the second rule', [{ outcomes: ['busy'] }, { outcomes: ['nope'] }], 'rules.1.outcomes.0', 'The selected rules.1.outcomes.0 is invalid.'],
    ['an unknown key in a rule', [{ outcome: ['busy'], outcomes: ['busy'] }], 'rules.0', 'The outcome field is not allowed in rules.0.'],
    ['an unknown key in a match', [{ match: { phone_numbr: '+14155550123' }, outcomes: ['busy'] }], 'rules.0.match', 'The phone_numbr field is not allowed in rules.0.match.'],
    ['an unknown key in an outcome object', [{ outcomes: ['voicemail', { kind: 'human', talk_secs: 30 }] }], 'rules.0.outcomes.1', 'The talk_secs field is not allowed in rules.0.outcomes.1.'],
    [
      'an unknown key in a transcript line',
      [{ outcomes: [{ transcript: [{ role: 'customer', content: 'Hi.', extra: 1 }] }] }],
      'rules.0.outcomes.0.transcript.0',
      'The extra field is not allowed in rules.0.outcomes.0.transcript.0.',
    ],
  ])('rejects %s with 422 shape B naming the field', async (_, rules, field, message) => {
    const res = await api().put('/__sim/outcomes', { rules });
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual(invalid(field, message));
  });

  it('rejects a body without rules with 422 shape B', async () => {
    const res = await api().put('/__sim/outcomes', {});
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual(invalid('rules', 'The rules field is required.'));
  });

  it('keeps the previous rules when a PUT is rejected', async () => {
    await api().put('/__sim/outcomes', { rules: [{ outcomes: ['busy'] }] });
    await api().put('/__sim/outcomes', { rules: [{ outcomes: ['busy'] }, { outcomes: [] }] });
    expect((await api().get('/__sim/outcomes')).body).toStrictEqual({ rules: [{ match: {}, outcomes: ['busy'] }] });
  });

  it('keeps the previous rules when a PUT with an unknown key in an outcome is rejected', async () => {
    await api().put('/__sim/outcomes', { rules: [{ outcomes: ['busy'] }] });
    const res = await api().put('/__sim/outcomes', { rules: [{ outcomes: [{ kind: 'human', talk_secs: 30 }] }] });
    expect(res.status).toBe(422);
    expect((await api().get('/__sim/outcomes')).body).toStrictEqual({ rules: [{ match: {}, outcomes: ['busy'] }] });
  });

  it('empties the rules on POST /__sim/reset', async () => {
    await api().put('/__sim/outcomes', { rules: FULL_RULES });
    expect((await api().post('/__sim/reset', {})).status).toBe(200);
    expect((await api().get('/__sim/outcomes')).body).toStrictEqual({ rules: [] });
  });

  it('sets the same rules in-process with the same answer', async () => {
    const res = await api().put('/__sim/outcomes', { rules: FULL_RULES });
    expect(fresh().control.outcomes.set({ rules: FULL_RULES })).toStrictEqual(res.body);
  });

  it('lists the same rules in-process', async () => {
    await api().put('/__sim/outcomes', { rules: FULL_RULES });
    const res = await api().get('/__sim/outcomes');
    expect(api().sim.control.outcomes.list()).toStrictEqual(res.body);
  });

  it('shows over HTTP the rules set in-process', async () => {
    api().sim.control.outcomes.set({ rules: [{ outcomes: ['voicemail'] }] });
    expect((await api().get('/__sim/outcomes')).body).toStrictEqual({ rules: [{ match: {}, outcomes: ['voicemail'] }] });
  });

  it('rejects the same bad rules in-process with the same 422', async () => {
    const res = await api().put('/__sim/outcomes', { rules: [{ outcomes: [{ ring_seconds: -1 }] }] });
    expect(await simRefusal(() => fresh().control.outcomes.set({ rules: [{ outcomes: [{ ring_seconds: -1 }] }] }))).toStrictEqual({ status: 422, body: res.body });
  });

  it('rejects the same unknown key in-process with the same 422', async () => {
    const res = await api().put('/__sim/outcomes', { rules: [{ outcomes: [{ kind: 'human', talk_secs: 30 }] }] });
    // @ts-expect-error the input type refuses the key too
    expect(await simRefusal(() => fresh().control.outcomes.set({ rules: [{ outcomes: [{ kind: 'human', talk_secs: 30 }] }] }))).toStrictEqual({ status: 422, body: res.body });
  });

  it('rejects a forNumber outcome with an unknown key with 422 shape B and adds nothing', async () => {
    const sim = api().sim;
    // @ts-expect-error the input type refuses the key too
    expect(await simRefusal(() => sim.control.outcomes.forNumber('+14155550123', [{ kind: 'human', talk_secs: 30 }]))).toStrictEqual({
      status: 422,
      body: invalid('outcomes.0', 'The talk_secs field is not allowed in outcomes.0.'),
    });
    expect((await api().get('/__sim/outcomes')).body).toStrictEqual({ rules: [] });
  });

  it('adds forNumber, forCampaign and forLeadVariables rules after the others, answering every rule', async () => {
    const sim = api().sim;
    sim.control.outcomes.set({ rules: [{ outcomes: ['busy'] }] });
    sim.control.outcomes.forNumber('+14155550123', ['voicemail', 'human']);
    sim.control.outcomes.forCampaign(2, ['failed']);
    const answer = sim.control.outcomes.forLeadVariables({ tier: 'gold' }, [{ kind: 'human', talk_seconds: 30 }]);
    const expected = {
      rules: [
        { match: {}, outcomes: ['busy'] },
        { match: { phone_number: '+14155550123' }, outcomes: ['voicemail', 'human'] },
        { match: { campaign_id: 2 }, outcomes: ['failed'] },
        { match: { lead_variables: { tier: 'gold' } }, outcomes: [{ kind: 'human', talk_seconds: 30 }] },
      ],
    };
    expect(answer).toStrictEqual(expected);
    expect((await api().get('/__sim/outcomes')).body).toStrictEqual(expected);
  });

  it('rejects a forNumber rule with an unknown outcome with 422 shape B and adds nothing', async () => {
    const sim = api().sim;
    // @ts-expect-error the input type refuses the outcome too
    expect(await simRefusal(() => sim.control.outcomes.forNumber('+14155550123', ['nope']))).toStrictEqual({
      status: 422,
      body: invalid('outcomes.0', 'The selected outcomes.0 is invalid.'),
    });
    expect((await api().get('/__sim/outcomes')).body).toStrictEqual({ rules: [] });
  });
});

/** An outbound assistant (1) on OUTBOUND_NUMBER and an inbound assistant (2) on INBOUND_NUMBER; SPARE_NUMBER held by none. */
async function numbers(api: Api): Promise<void> {
  const outbound = api.sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: OUTBOUND_NUMBER }).id;
  const inbound = api.sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: INBOUND_NUMBER }).id;
  api.sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: SPARE_NUMBER });
  const a = await api.post('/user/assistant', pipelineAssistant({ phone_number_id: outbound }));
  const b = await api.post('/user/assistant', multimodalAssistant({ name: 'Front Desk', phone_number_id: inbound }));
  expect([a.status, b.status]).toStrictEqual([201, 201]);
}

contract('control: inbound calls', (api) => {
  it('answers 201 with the id of the new call', async () => {
    await numbers(api());
    const res = await api().post('/__sim/calls/inbound', { to: INBOUND_NUMBER, from: CALLER });
    expect(res.status).toBe(201);
    expect(res.body).toStrictEqual({ call_id: 1 });
  });

  it('records an initiated inbound call of the assistant that holds the number, from the caller', async () => {
    await numbers(api());
    await api().post('/__sim/calls/inbound', { to: INBOUND_NUMBER, from: CALLER });
    const res = await api().get('/user/calls/1');
    expect(res.body).toMatchObject({
      id: 1,
      type: 'inbound',
      assistant_id: 2,
      assistant_name: 'Front Desk',
      assistant_phone_number: INBOUND_NUMBER,
      client_phone_number: CALLER,
      status: 'initiated',
    });
  });

  it('plays the inbound call to its end when the clock advances', async () => {
    await numbers(api());
    await api().post('/__sim/calls/inbound', { to: INBOUND_NUMBER, from: CALLER });
    await api().post('/__sim/clock/advance', { by: '10m' });
    expect((await api().get('/user/calls/1')).body).toMatchObject({ type: 'inbound', status: 'completed', answered_by: 'human' });
  });

  it('reads the numbers as E.164 after trimming spaces around them', async () => {
    await numbers(api());
    const res = await api().post('/__sim/calls/inbound', { to: ` ${INBOUND_NUMBER} `, from: ` ${CALLER}` });
    expect(res.status).toBe(201);
    expect((await api().get('/user/calls/1')).body).toMatchObject({ assistant_phone_number: INBOUND_NUMBER, client_phone_number: CALLER });
  });

  it('answers 404 shape A for a number of the account that no assistant holds', async () => {
    await numbers(api());
    const res = await api().post('/__sim/calls/inbound', { to: SPARE_NUMBER, from: CALLER });
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual(NO_ASSISTANT);
  });

  it('answers 404 shape A for a number held by an outbound assistant', async () => {
    await numbers(api());
    const res = await api().post('/__sim/calls/inbound', { to: OUTBOUND_NUMBER, from: CALLER });
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual(NO_ASSISTANT);
  });

  it('answers 404 shape A for a number not on the platform', async () => {
    const res = await api().post('/__sim/calls/inbound', { to: '+14155550199', from: CALLER });
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual(NO_ASSISTANT);
  });

  it('creates no call when it answers 404', async () => {
    await numbers(api());
    await api().post('/__sim/calls/inbound', { to: OUTBOUND_NUMBER, from: CALLER });
    expect((await api().get('/user/calls')).body).toMatchObject({ data: [], total: 0 });
  });

  it.each([
    ['a to that is not E.164', { to: '4155550101', from: CALLER }, 'to', 'The to must be a valid phone number in E.164 format.'],
    ['a to too short to be a number', { to: '+1415555', from: CALLER }, 'to', 'The to must be a valid phone number in E.164 format.'],
    ['a from that is not a number', { to: INBOUND_NUMBER, from: 'abc' }, 'from', 'The from must be a valid phone number in E.164 format.'],
    ['a to that is not a string', { to: 14155550101, from: CALLER }, 'to', 'The to must be a string.'],
  ])('rejects %s with 422 shape B', async (_, body, field, message) => {
    await numbers(api());
    const res = await api().post('/__sim/calls/inbound', body);
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual(invalid(field, message));
  });

  it('rejects a body without to and from with 422 shape B naming both', async () => {
    const res = await api().post('/__sim/calls/inbound', {});
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual({
      message: 'The to field is required. (and 1 more error)',
      errors: { to: ['The to field is required.'], from: ['The from field is required.'] },
    });
  });

  it('creates no call when it answers 422', async () => {
    await numbers(api());
    await api().post('/__sim/calls/inbound', { to: INBOUND_NUMBER, from: 'abc' });
    expect((await api().get('/user/calls')).body).toMatchObject({ data: [], total: 0 });
  });

  it('rings in-process with the same answer', async () => {
    await numbers(api());
    const res = await api().post('/__sim/calls/inbound', { to: INBOUND_NUMBER, from: CALLER });
    expect(api().sim.control.calls.inbound({ to: INBOUND_NUMBER, from: CALLER })).toStrictEqual({ call_id: res.body.call_id + 1 });
    expect((await api().get('/user/calls/2')).body).toMatchObject({ type: 'inbound', assistant_phone_number: INBOUND_NUMBER, client_phone_number: CALLER });
  });

  it('refuses an unanswered number in-process with the same 404', async () => {
    const res = await api().post('/__sim/calls/inbound', { to: SPARE_NUMBER, from: CALLER });
    expect(await simRefusal(() => fresh().control.calls.inbound({ to: SPARE_NUMBER, from: CALLER }))).toStrictEqual({ status: 404, body: res.body });
  });

  it('refuses a bad number in-process with the same 422', async () => {
    const res = await api().post('/__sim/calls/inbound', { to: INBOUND_NUMBER, from: 'abc' });
    expect(await simRefusal(() => fresh().control.calls.inbound({ to: INBOUND_NUMBER, from: 'abc' }))).toStrictEqual({ status: 422, body: res.body });
  });
});
