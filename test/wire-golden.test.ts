/**
 * The spec wire does not drift: a fixed script of requests and clock moves, touching
 * every resource of the specification and its errors, is answered byte for byte as it
 * was when `test/golden/spec-wire.json` was recorded. Record again only on purpose:
 * `RECORD_GOLDEN=1 npx vitest run test/wire-golden.test.ts`.
 */
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../src/simulator.js';
import { multimodalAssistant, pipelineAssistant } from './support/fixtures.js';

const GOLDEN = fileURLToPath(new URL('./golden/spec-wire.json', import.meta.url));
const AUTH = { authorization: 'Bearer sim_test_key' };

interface Exchange {
  request: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

type Step = [method: string, path: string, body?: unknown, key?: string | null] | ['advance', string];

const STEPS: Step[] = [
  ['GET', '/user/me'],
  ['GET', '/user/assistants/voices?mode=pipeline'],
  ['GET', '/user/assistants/languages'],
  ['GET', '/user/assistants/models?type=llm'],
  ['GET', '/user/knowledgebases'],
  ['GET', '/user/tools'],
  ['GET', '/user/phone-numbers/search?country_code=US'],
  ['POST', '/__sim/phone-numbers', { account_id: 1, type: 'sip', phone_number: '+14155550100' }],
  ['POST', '/__sim/phone-numbers', { account_id: 1, type: 'sip', phone_number: '+14155550101' }],
  ['GET', '/user/phone-numbers/all'],
  ['POST', '/user/assistant', pipelineAssistant({ phone_number_id: 1, webhook_url: 'https://hooks.example.test/calls', is_webhook_active: true, post_call_schema: [{ name: 'booked', type: 'bool', description: 'Booked a demo' }], post_call_evaluation: true, record: true })],
  ['POST', '/user/assistant', multimodalAssistant({ phone_number_id: 2, conversation_ended_webhook_url: 'https://hooks.example.test/ended', conversation_inactivity_timeout: 10 })],
  ['POST', '/user/assistant', { name: '' }],
  ['GET', '/user/assistant/1'],
  ['GET', '/user/assistant/2'],
  ['GET', '/user/assistant/99'],
  ['PUT', '/user/assistant/1', { name: 'Renamed', llm_temperature: 0.4 }],
  ['GET', '/user/assistants/get?per_page=1&page=2'],
  ['GET', '/user/assistants/outbound'],
  ['POST', '/user/campaign', { name: 'Spring', assistant_id: 1, max_calls_in_parallel: 2, retry_interval: 10, retry_on_voicemail: true, goal_completion_variable: 'booked' }],
  ['GET', '/user/campaigns'],
  ['POST', '/user/lead', { campaign_id: 1, phone_number: '(415) 555-0003', variables: { name: 'Ann' } }],
  ['POST', '/user/lead', { campaign_id: 1, phone_number: '+14155550123', secondary_contacts: [{ phone_number: '+14155550124' }] }],
  ['POST', '/user/lead', { campaign_id: 1, phone_number: '+14155550001' }],
  ['POST', '/user/lead', { campaign_id: 1, phone_number: 'abc' }],
  ['PUT', '/user/leads/3', { variables: { tier: 'gold' } }],
  ['GET', '/user/leads?campaign_id=1'],
  ['POST', '/user/campaigns/update-status', { campaign_id: 1, action: 'start' }],
  ['POST', '/user/campaigns/update-status', { campaign_id: 1, action: 'start' }],
  ['advance', '30m'],
  ['GET', '/user/leads?campaign_id=1&per_page=2'],
  ['GET', '/user/calls'],
  ['GET', '/user/calls/1'],
  ['GET', '/user/calls?status=completed&campaign_id=1'],
  ['POST', '/user/make_call', { assistant_id: 1, phone_number: '+14155550177', variables: { name: 'Bo' } }],
  ['POST', '/user/make_call', { assistant_id: 1, phone_number: '12' }],
  ['advance', '10m'],
  ['GET', '/user/calls/4'],
  ['DELETE', '/user/calls/99'],
  ['POST', '/user/campaigns/update-status', { campaign_id: 1, action: 'stop' }],
  ['GET', '/__sim/webhooks/deliveries'],
  ['POST', '/conversations', { assistant_id: '$uuid2', type: 'widget', variables: { customer_name: 'Cy' } }],
  ['POST', '/conversations/$conv/messages', { message: 'What are your hours?' }],
  ['GET', '/conversations/$conv'],
  ['GET', '/conversations/00000000-0000-4000-8000-000000000000'],
  ['GET', '/user/conversations'],
  ['POST', '/automate/conversations/$conv/disable-ai'],
  ['POST', '/assistants/2/enable-conversation-ended-webhook', { webhook_url: 'https://hooks.example.test/ended2' }],
  ['advance', '15m'],
  ['GET', '/user/msgapp/senders'],
  ['GET', '/user/msgapp/senders/1/templates'],
  ['GET', '/user/msgapp/session-status?sender_id=1&recipient_phone=%2B14155550150'],
  ['POST', '/user/msgapp/send-freeform', { sender_id: 1, recipient_phone: '+14155550150', message: 'Hi' }],
  ['POST', '/user/msgapp/send', { sender_id: 1, template_id: 1, recipient_phone: '+14155550150', variables: {} }],
  ['POST', '/user/msgapp/send', { sender_id: 1, template_id: 1, recipient_phone: '+14155550150', recipient_name: 'Dee', variables: { customer_name: 'Dee', appointment_time: 'Tuesday 10:00' } }],
  ['POST', '/user/msgapp/send', { sender_id: 2, template_id: 1, recipient_phone: '+14155550150' }],
  ['POST', '/__sim/msgapp/inbound', { sender_id: 1, from: '+14155550150', text: 'Thanks!' }],
  ['POST', '/user/msgapp/send-freeform', { sender_id: 1, recipient_phone: '+14155550150', message: 'You are welcome' }],
  ['advance', '25h'],
  ['POST', '/user/msgapp/send-freeform', { sender_id: 1, recipient_phone: '+14155550150', message: 'Still there?' }],
  ['GET', '/user/msgapp/session-status?sender_id=1&recipient_phone=%2B14155550150'],
  ['DELETE', '/user/leads/2'],
  ['DELETE', '/user/campaign/1'],
  ['DELETE', '/user/phone-numbers/2'],
  ['DELETE', '/user/assistant/2'],
  ['GET', '/user/me', undefined, null],
  ['GET', '/user/nothing'],
];

async function play(sim: Simulator): Promise<Exchange[]> {
  const refs: Record<string, string> = {};
  const fill = (text: string) => text.replace(/\$(\w+)/g, (_, name: string) => refs[name] ?? `$${name}`);
  const out: Exchange[] = [];
  for (const step of STEPS) {
    if (step[0] === 'advance') {
      await sim.clock.advance(step[1]);
      continue;
    }
    const [method, rawPath, body, key] = step;
    const path = fill(rawPath);
    const res = await sim.handle({
      method,
      path,
      headers: key === null ? {} : key === undefined ? AUTH : { authorization: `Bearer ${key}` },
      body: body === undefined ? null : fill(JSON.stringify(body)),
    });
    out.push({ request: `${method} ${path}`, status: res.status, headers: res.headers ?? {}, body: JSON.stringify(res.body) });
    const data = (res.body as { data?: { uuid?: string; id?: number } })?.data;
    if (data?.uuid && data.id !== undefined) refs[`uuid${data.id}`] = data.uuid;
    const conversation = (res.body as { conversation_id?: unknown }).conversation_id;
    if (path === '/conversations' && typeof conversation === 'string') refs.conv = conversation;
  }
  return out;
}

it('answers a fixed script on the spec wire byte for byte as recorded', async () => {
  const sim = createSimulator({ seed: 7, startAt: '2026-03-02T09:00:00Z', deliver: async () => ({ status: 200, body: '{"ok":true}', duration_ms: 3 }) });
  const exchanges = await play(sim);
  if (process.env.RECORD_GOLDEN === '1' || !existsSync(GOLDEN)) {
    // A missing golden file is recorded once and the run fails, so it is never silently new.
    mkdirSync(fileURLToPath(new URL('./golden/', import.meta.url)), { recursive: true });
    writeFileSync(GOLDEN, `${JSON.stringify(exchanges, null, 1)}\n`);
    if (process.env.RECORD_GOLDEN !== '1') throw new Error(`Recorded ${GOLDEN}; run again to compare.`);
  }
  const recorded = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Exchange[];
  expect(exchanges.map((e) => e.request)).toEqual(recorded.map((e) => e.request));
  for (const [i, exchange] of exchanges.entries()) expect(exchange, recorded[i]!.request).toEqual(recorded[i]);
});
