/**
 * A whole recorded session for the recording tests (issue 28): an assistant on a number,
 * a campaign with leads started and run on the upstream's clock through its /__sim
 * routes, a call, a chat conversation, a knowledge base with a file document, and errors.
 * `driveSession` runs it through any `Call` (HTTP through the recording proxy, or
 * in-process); `recordInProcess` records a simulator's answers as a HAR without a server.
 */
import { HarWriter, type RecordedExchange } from '../../src/recording/har-writer.js';
import { answerText } from '../../src/core/json.js';
import { loadScenario } from '../../src/scenario/load.js';
import { playScenario } from '../../src/scenario/runner.js';
import { createSimulator, type Simulator } from '../../src/simulator.js';
import { pipelineAssistant } from './fixtures.js';

export const KEY = 'sim_test_key';
export const UPSTREAM_START = '2026-03-02T09:00:00Z';

type Json = Record<string, any>;
export interface Sent {
  body?: unknown;
  /** A multipart body: text fields and one file. */
  form?: { fields: Record<string, string>; file: { name: string; bytes: Uint8Array } };
  /** No Authorization header. */
  anonymous?: boolean;
}
export type Call = (method: string, path: string, sent?: Sent) => Promise<{ status: number; body: Json }>;

/** A multipart/form-data body of text fields and one file. */
export function multipart(fields: Record<string, string>, file: { name: string; bytes: Uint8Array }, boundary = 'voxsim-test-boundary'): { type: string; bytes: Buffer } {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`), Buffer.from(file.bytes), Buffer.from(`\r\n--${boundary}--\r\n`));
  return { type: `multipart/form-data; boundary=${boundary}`, bytes: Buffer.concat(parts) };
}

/** The request headers and body bytes of a call. */
export function requestParts(sent: Sent = {}): { headers: Record<string, string>; bytes: Buffer | null } {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (!sent.anonymous) headers.authorization = `Bearer ${KEY}`;
  if (sent.form) {
    const { type, bytes } = multipart(sent.form.fields, sent.form.file);
    return { headers: { ...headers, 'content-type': type }, bytes };
  }
  if (sent.body === undefined) return { headers, bytes: null };
  return { headers: { ...headers, 'content-type': 'application/json' }, bytes: Buffer.from(JSON.stringify(sent.body)) };
}

/** A Call over HTTP to `base` (e.g. the recording proxy's URL). */
export function httpCall(base: string): Call {
  return async (method, path, sent) => {
    const { headers, bytes } = requestParts(sent);
    const res = await fetch(`${base}${path}`, { method, headers, ...(bytes && { body: new Uint8Array(bytes) }) });
    const text = await res.text();
    return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Json) };
  };
}

/** A scenario written from a session (`session.yaml`) played on a fresh simulator. */
export async function playSession(text: string) {
  const sim = createSimulator();
  try {
    return await playScenario(sim, loadScenario(text, 'session.yaml'));
  } finally {
    sim.dispose();
  }
}

/**
 * Records a simulator's answers as a HAR in-process: each call is answered by `sim.handle`
 * and written as an exchange with `baseUrl` before its path; wall time starts at `wallStart`
 * and moves 20 ms per exchange.
 */
export function recordInProcess(sim: Simulator, baseUrl = 'https://platform.example.test/api', wallStart = Date.parse('2026-11-20T15:00:00Z')) {
  const writer = new HarWriter('', 'test');
  let wall = wallStart;
  const call: Call = async (method, path, sent) => {
    const { headers, bytes } = requestParts(sent);
    const multipartBody = sent?.form !== undefined;
    const res = await sim.handle({ method, path, headers, url: `${baseUrl}${path}`, ...(multipartBody ? { bytes } : { body: bytes === null ? null : bytes.toString() }) });
    const text = answerText(res.body);
    const exchange: RecordedExchange = {
      startedAt: wall,
      durationMs: 5,
      method,
      url: `${baseUrl}${path}`,
      requestHeaders: Object.entries(headers),
      requestBody: bytes,
      status: res.status,
      statusText: '',
      responseHeaders: [['Content-Type', 'application/json'], ...Object.entries(res.headers ?? {})],
      responseBody: Buffer.from(text),
    };
    writer.add(exchange);
    wall += 20;
    return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Json) };
  };
  return { call, har: () => writer.log(), writer };
}

/** The session: what every recording test drives through its upstream. Answers the ids it made. */
export async function driveSession(call: Call): Promise<{ assistant: number; campaign: number; conversation: string; knowledgebase: number }> {
  const ok = async (method: string, path: string, sent?: Sent, status = [200, 201]) => {
    const res = await call(method, path, sent);
    if (!status.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  await ok('GET', '/__sim/clock');
  await ok('GET', '/user/me');
  const number = await ok('POST', '/__sim/phone-numbers', { body: { account_id: 1, type: 'sip', phone_number: '+14155550100' } });
  const assistant = (await ok('POST', '/user/assistant', { body: pipelineAssistant({ phone_number_id: number.id, fillers: true }, 'live') })).data;
  const read = (await ok('GET', `/user/assistant/${assistant.id}`)).data;
  const campaign = (await ok('POST', '/user/campaign', { body: { name: 'Spring renewals', assistant_id: assistant.id, max_calls_in_parallel: 2, retry_interval: 10 } })).data;
  for (const phone_number of ['+14155510001', '+14155510003', '+14155514444']) await ok('POST', '/user/lead', { body: { campaign_id: campaign.id, phone_number } });
  await ok('POST', '/user/campaigns/update-status', { body: { campaign_id: campaign.id, action: 'start' } });
  await ok('POST', '/__sim/clock/advance', { body: { by: '30m' } });
  await ok('GET', `/user/leads?campaign_id=${campaign.id}`);
  const calls = await ok('GET', '/user/calls');
  await ok('GET', `/user/calls/${calls.data[0].id}`);
  await ok('POST', '/user/make_call', { body: { assistant_id: assistant.id, phone_number: '+14155519999' } });
  await ok('POST', '/__sim/clock/advance', { body: { by: '10m' } });
  const conversation = await ok('POST', '/conversations', { body: { assistant_id: read.uuid, type: 'test' }, anonymous: true });
  const uuid = conversation.conversation_id as string;
  await ok('POST', `/conversations/${uuid}/messages`, { body: { message: 'Hi, when are you open?' }, anonymous: true });
  await ok('GET', `/conversations/${uuid}`, { anonymous: true });
  const kb = (await ok('POST', '/user/knowledgebases', { body: { name: 'Product manual' } })).data;
  await ok('POST', `/user/knowledgebases/${kb.id}/documents`, { form: { fields: { name: 'FAQ', type: 'txt' }, file: { name: 'faq.txt', bytes: Buffer.from('Open 9 to 5.\n') } } });
  await ok('GET', `/user/knowledgebases/${kb.id}/documents`);
  // Errors: a refused body, a missing key.
  await ok('POST', '/user/assistant', { body: { name: '' } }, [422]);
  await ok('GET', '/user/me', { anonymous: true }, [401]);
  return { assistant: assistant.id, campaign: campaign.id, conversation: uuid, knowledgebase: kb.id };
}
