/**
 * Same seed + same requests + same clock moves = byte-identical responses
 * (ARCHITECTURE §2 Randomness).
 */
import { describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../src/simulator.js';
import { multimodalAssistant, pipelineAssistant } from './support/fixtures.js';

type Request = { method: string; path: string; body?: unknown; key?: string };
type Step = Request | { advance: string } | { from: (sim: Simulator) => Request };

const SCRIPT: Step[] = [
  { method: 'POST', path: '/__sim/accounts', body: { balance: 7.25 } },
  { method: 'POST', path: '/__sim/accounts', body: {} },
  { method: 'GET', path: '/__sim/accounts' },
  { method: 'POST', path: '/__sim/phone-numbers', body: { account_id: 1, type: 'sip', phone_number: '+14155550130' } },
  { method: 'POST', path: '/user/assistant', body: pipelineAssistant({ phone_number_id: 1 }) },
  { advance: '17m' },
  { method: 'POST', path: '/user/assistant', body: multimodalAssistant() },
  { method: 'POST', path: '/user/assistant', body: pipelineAssistant({ voice_id: 999 }) },
  { method: 'PUT', path: '/user/assistant/2', body: { mode: 'dualplex', voice_id: 20 } },
  { advance: '3h' },
  { method: 'GET', path: '/user/assistants/get' },
  { method: 'GET', path: '/user/assistants/outbound' },
  { method: 'GET', path: '/user/assistant/1' },
  { method: 'GET', path: '/user/knowledgebases' },
  { method: 'GET', path: '/user/tools' },
  { method: 'GET', path: '/user/assistants/phone-numbers?type=inbound' },
  { method: 'GET', path: '/user/phone-numbers/search?country_code=GB&contains=79' },
  { method: 'GET', path: '/user/phone-numbers/search' },
  { method: 'POST', path: '/user/campaign', body: { name: 'Spring', assistant_id: 1, phone_number_ids: [1] } },
  { method: 'POST', path: '/user/lead', body: { campaign_id: 1, phone_number: '(415) 555-0101', secondary_contacts: [{ phone_number: '212 555 0102' }] } },
  { method: 'POST', path: '/user/campaigns/update-status', body: { campaign_id: 1, action: 'start' } },
  { method: 'POST', path: '/user/make_call', body: { assistant_id: 1, phone_number: '+14155550103' } },
  { advance: '2d' },
  { method: 'GET', path: '/user/leads?campaign_id=1' },
  { method: 'GET', path: '/user/calls' },
  { method: 'GET', path: '/user/phone-numbers/all' },
  { method: 'PUT', path: '/__sim/replies', body: { rules: [{ when: 'price', reply: 'It is 10 USD, {{name}}.', set_variables: { asked: true } }] } },
  { from: (sim) => ({ method: 'POST', path: '/conversations', body: { assistant_id: sim.db.assistants.get(1)!.uuid, variables: { name: 'Ann' } } }) },
  { from: (sim) => ({ method: 'POST', path: `/conversations/${sim.db.conversations.get(1)!.uuid}/messages`, body: { message: 'What is the price?' } }) },
  { method: 'POST', path: '/user/msgapp/send', body: { sender_id: 1, template_id: 2, recipient_phone: '+14155550177' } },
  { method: 'POST', path: '/__sim/msgapp/inbound', body: { sender_id: 1, from: '+14155550177', text: 'hello', name: 'Bo' } },
  { method: 'POST', path: '/user/msgapp/send-freeform', body: { sender_id: 1, recipient_phone: '+14155550177', message: 'Hi Bo' } },
  { advance: '1h' },
  { method: 'GET', path: '/user/conversations' },
  { from: (sim) => ({ method: 'GET', path: `/conversations/${sim.db.conversations.get(1)!.uuid}` }) },
  { method: 'GET', path: '/user/msgapp/session-status?sender_id=1&recipient_phone=%2B14155550177' },
  { method: 'DELETE', path: '/user/assistant/1' },
  { method: 'GET', path: '/user/me' },
  { method: 'GET', path: '/__sim/clock' },
];

/** Plays SCRIPT; with `watch`, a watcher follows the event stream and reads the overview after every step. */
async function play(sim: Simulator, watch = false): Promise<string[]> {
  const bodies: string[] = [];
  if (watch) sim.events.subscribe({ since: 0 }, (e) => void JSON.stringify(e));
  for (const step of SCRIPT) {
    if (watch) await sim.handle({ method: 'GET', path: '/__sim/overview' });
    if ('advance' in step) {
      await sim.clock.advance(step.advance);
      continue;
    }
    const request = 'from' in step ? step.from(sim) : step;
    const res = await sim.handle({
      method: request.method,
      path: request.path,
      headers: { authorization: `Bearer ${request.key ?? 'sim_test_key'}` },
      body: request.body === undefined ? null : JSON.stringify(request.body),
    });
    bodies.push(`${res.status} ${JSON.stringify(res.body)}`);
  }
  return bodies;
}

describe('determinism', () => {
  it('gives byte-identical responses for the same seed, requests and clock moves', async () => {
    const a = await play(createSimulator({ seed: 42, startAt: '2026-03-02T09:00:00Z' }));
    const b = await play(createSimulator({ seed: 42, startAt: '2026-03-02T09:00:00Z' }));
    expect(a).toHaveLength(SCRIPT.filter((s) => !('advance' in s)).length);
    expect(a.join('\n')).toBe(b.join('\n'));
  });

  it('gives the same responses while a watcher follows the event stream and the overview', async () => {
    const plain = await play(createSimulator({ seed: 42, startAt: '2026-03-02T09:00:00Z' }));
    const watched = createSimulator({ seed: 42, startAt: '2026-03-02T09:00:00Z' });
    expect((await play(watched, true)).join('\n')).toBe(plain.join('\n'));
    // The watcher saw every kind of event the script causes.
    const types = new Set(watched.events.history().map((e) => e.type));
    expect([...types].sort()).toEqual(
      expect.arrayContaining(['call.status', 'campaign.status', 'clock.advanced', 'conversation.started', 'lead.status', 'msgapp.window_opened', 'request.answered']),
    );
  });

  it('gives different generated values for a different seed', async () => {
    const a = await play(createSimulator({ seed: 42, startAt: '2026-03-02T09:00:00Z' }));
    const b = await play(createSimulator({ seed: 43, startAt: '2026-03-02T09:00:00Z' }));
    expect(a[0]).not.toBe(b[0]);
    expect(a.join('\n')).not.toBe(b.join('\n'));
  });

  it('replays identically after a reset to the same seed', async () => {
    const sim = createSimulator({ seed: 42, startAt: '2026-03-02T09:00:00Z' });
    const first = await play(sim);
    sim.reset();
    expect(await play(sim)).toEqual(first);
  });
});
