/**
 * `voxsim trigger KIND --url URL`: one sample event thrown at a receiver under development,
 * as `stripe trigger` does. The event is a real one: a throwaway simulator plays the
 * smallest story that makes it (a campaign call that books, a chat that ends by
 * inactivity, a template message delivered) and its webhook engine writes the body and
 * headers it would send; that request is then sent once to URL with the engine's own
 * transport. The receiver's status and body are printed; exit 1 when it fails (not 2xx,
 * refused, no answer in time), 2 for a usage error.
 */
import { realDeliver, RECEIVER_TIMEOUT_MS, SIGNATURE_HEADER, signatureOf, WebhookTransportError, type DeliverRequest } from '../engine/webhooks.js';
import type { Wire } from '../core/wire.js';
import { createSimulator, type Simulator } from '../simulator.js';
import { parseFlags, usageError, usageMessage } from './help.js';
import { wireOption } from './options.js';

type Out = Pick<Console, 'log' | 'error'>;

/** The events `voxsim trigger` sends, by the name it takes them by. */
export const TRIGGER_KINDS = ['post-call', 'conversation-ended', 'read-receipt'] as const;
export type TriggerKind = (typeof TRIGGER_KINDS)[number];

/** The lines of a trigger that did not get a 2xx. */
export const TRIGGER_MESSAGES = {
  failed: (status: number) => `voxsim trigger: the receiver failed: it answered ${status}`,
  noAnswer: (url: string, reason: string) => `voxsim trigger: no answer from ${url} (${reason})`,
  secretOnlyForReceipts: '--secret signs read-receipt events only (post-call and conversation-ended events are not signed)',
} as const;

/** Where the sample's clock starts: a Monday morning, inside the default calling window. */
const SAMPLE_START = '2026-03-02T09:00:00Z';
const CUSTOMER = '+14155550123';
const CALLER = '+14155550100';
/** A voice of each wire's catalog that suits a pipeline assistant (fixtures/*catalog*.json). */
const PIPELINE_VOICE: Readonly<Record<Wire, number>> = { spec: 1, live: 10 };

/** A request of the sample's story; throws when the simulator refuses it (a bug of the sample, never the user's). */
async function request(sim: Simulator, method: string, path: string, body?: unknown): Promise<any> {
  const res = await sim.handle({ method, path, headers: { authorization: 'Bearer sim_test_key', 'content-type': 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) });
  if (res.status >= 300) throw new Error(`the sample's ${method} ${path} was answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

function assistantBody(wire: Wire, overrides: Record<string, unknown>): Record<string, unknown> {
  return {
    name: 'Ava',
    voice_id: PIPELINE_VOICE[wire],
    language_id: 1,
    type: 'outbound',
    mode: 'pipeline',
    llm_model_id: 1,
    timezone: 'Europe/Berlin',
    initial_message: 'Hello {customer_name}, this is {{assistant_name}} from Acme. Do you have a minute?',
    system_prompt: 'You book product demos for Acme. Be brief and friendly.',
    ...overrides,
  };
}

/** The stories: each makes its simulator queue one delivery of its kind to `url` (a read receipt's answers its sender's signing secret). */
const STORIES: Readonly<Record<TriggerKind, (sim: Simulator, url: string) => Promise<string | void>>> = {
  // A campaign's lead answers and books a demo: the payload has its lead and campaign.
  'post-call': async (sim, url) => {
    const number = sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: CALLER }).id;
    const assistant = await request(sim, 'POST', '/user/assistant', assistantBody(sim.wire, {
      phone_number_id: number,
      record: true,
      is_webhook_active: true,
      webhook_url: url,
      post_call_schema: [{ name: 'demo_booked', type: 'bool', description: 'Whether a demo was booked' }],
    }));
    const campaign = await request(sim, 'POST', '/user/campaign', { name: 'Spring Outreach', assistant_id: assistant.data.id });
    await request(sim, 'POST', '/user/lead', { campaign_id: campaign.data.id, phone_number: CUSTOMER, variables: { customer_name: 'Ann' } });
    sim.control.outcomes.forNumber(CUSTOMER, [{ kind: 'human', talk_seconds: 95, variables: { demo_booked: true } }]);
    await request(sim, 'POST', '/user/campaigns/update-status', { campaign_id: campaign.data.id, action: 'start' });
    await sim.clock.advance('10m');
  },
  // A website chat: a question answered, then the customer goes quiet until the assistant's inactivity timeout.
  'conversation-ended': async (sim, url) => {
    const made = await request(sim, 'POST', '/user/assistant', assistantBody(sim.wire, { conversation_ended_webhook_url: url, conversation_inactivity_timeout: 10 }));
    const assistant = await request(sim, 'GET', `/user/assistant/${made.data.id}`);
    const started = await request(sim, 'POST', '/conversations', { assistant_id: assistant.data.uuid, type: 'widget', variables: { customer_name: 'Ann' } });
    await request(sim, 'POST', `/conversations/${started.conversation_id}/messages`, { message: 'Do you have time for a demo on Tuesday?' });
    await sim.clock.advance('11m');
  },
  // A template message to a customer, sent and then delivered: the event is the delivery's.
  'read-receipt': async (sim, url) => {
    const sender = await request(sim, 'PATCH', '/__sim/msgapp/senders/1', { read_receipts_webhook_url: url });
    await request(sim, 'POST', '/user/msgapp/send', {
      sender_id: 1,
      template_id: 1,
      recipient_phone: CUSTOMER,
      recipient_name: 'Ann',
      variables: { customer_name: 'Ann', appointment_time: 'Tuesday 10:00' },
    });
    await sim.clock.advance('3s');
    return sender.read_receipts_signing_secret as string;
  },
};

/** What a sample's simulator would send: the request, and the signing secret of a read receipt's sender. */
export interface SampleEvent {
  request: DeliverRequest;
  secret?: string;
}

/**
 * The request one sample event of `kind` is sent as, written by a throwaway simulator's
 * webhook engine (its body, its headers, signed as the platform signs it).
 * @example (await sampleEvent('post-call', 'http://127.0.0.1:3000/hook', 'spec')).request.body
 */
export async function sampleEvent(kind: TriggerKind, url: string, wire: Wire): Promise<SampleEvent> {
  const sent: DeliverRequest[] = [];
  const sim = createSimulator({
    seed: 1,
    startAt: SAMPLE_START,
    wire,
    deliver: async (req) => {
      sent.push(req);
      return { status: 200, body: '', duration_ms: 0 };
    },
  });
  try {
    const secret = await STORIES[kind](sim, url);
    // A read receipt's story sends `sent` first: the sample is the later `delivered`, as the reference's example.
    const chosen = kind === 'read-receipt' ? sent.find((r) => (JSON.parse(r.body) as { status?: string }).status === 'delivered') : sent[0];
    if (!chosen) throw new Error(`the sample's story sent no ${kind} event`);
    return { request: chosen, ...(typeof secret === 'string' && { secret }) };
  } finally {
    sim.dispose();
  }
}

/** `--timeout`: seconds the receiver has to answer, 0.1 to 600. */
function timeoutOption(text: string | undefined): number {
  if (text === undefined) return RECEIVER_TIMEOUT_MS;
  const seconds = Number(text);
  if (text.trim() === '' || !Number.isFinite(seconds) || seconds < 0.1 || seconds > 600) throw new Error(`--timeout must be a number of seconds from 0.1 to 600, got "${text}"`);
  return Math.round(seconds * 1000);
}

/** `--url`: an http or https URL. */
function urlOption(text: string | undefined): string {
  if (text === undefined) throw new Error('--url is required: the receiver to send the event to');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`--url must be an http or https URL, got "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`--url must be an http or https URL, got "${text}"`);
  return text;
}

/** `voxsim trigger KIND --url URL [--secret S] [--wire spec|live] [--timeout SECONDS]` (its `--help` is the main's). */
export async function triggerCommand(args: string[], out: Out): Promise<number> {
  const command = 'trigger';
  let kind: TriggerKind;
  let url: string;
  let wire: Wire;
  let timeoutMs: number;
  let secret: string | undefined;
  try {
    const { values, positionals } = parseFlags(command, args);
    const [given, ...extra] = positionals;
    if (given === undefined) throw new Error(`No event kind given: one of ${TRIGGER_KINDS.join(', ')}`);
    if (extra.length > 0) throw new Error(`One event kind at a time, got ${positionals.length}: ${positionals.join(' ')}`);
    if (!(TRIGGER_KINDS as readonly string[]).includes(given)) throw new Error(`Unknown event kind "${given}": one of ${TRIGGER_KINDS.join(', ')}`);
    kind = given as TriggerKind;
    url = urlOption(values.url);
    wire = wireOption(values.wire) ?? 'spec';
    timeoutMs = timeoutOption(values.timeout);
    secret = values.secret;
    if (secret !== undefined && kind !== 'read-receipt') throw new Error(TRIGGER_MESSAGES.secretOnlyForReceipts);
    if (secret === '') throw new Error('--secret must not be empty');
  } catch (error) {
    return usageError(out, usageMessage(error as Error, command), command);
  }
  const sample = await sampleEvent(kind, url, wire);
  const headers = { ...sample.request.headers };
  if (kind === 'read-receipt') {
    // The receiver verifies with its secret: the body signed with --secret, else with the sample sender's (printed).
    if (secret !== undefined) headers[SIGNATURE_HEADER] = signatureOf(sample.request.body, secret);
    else out.log(`Signed with the sample sender's secret ${sample.secret} (--secret S signs with yours).`);
  }
  out.log(`Sent a ${kind} event (${wire} wire, ${Buffer.byteLength(sample.request.body)} bytes) to ${url}`);
  try {
    const answer = await realDeliver({ url, body: sample.request.body, headers, timeoutMs });
    out.log(`The receiver answered ${answer.status}${answer.truncated ? ' (its body cut at 64 KB)' : ''}`);
    if (answer.body !== '') out.log(answer.body);
    if (answer.status >= 200 && answer.status < 300) return 0;
    out.error(TRIGGER_MESSAGES.failed(answer.status));
    return 1;
  } catch (error) {
    if (!(error instanceof WebhookTransportError)) throw error;
    out.error(TRIGGER_MESSAGES.noAnswer(url, `${error.reason}: ${error.message}`));
    return 1;
  }
}
