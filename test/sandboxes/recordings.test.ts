/**
 * A sandbox's recordings on a real server (live-platform H.7): the link of a sandbox's
 * call names the server's own URL and the sandbox's scope, downloads without a key from
 * that sandbox, and is no other sandbox's.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../src/cli.js';
import { pipelineAssistant } from '../support/fixtures.js';
import { mp3Facts } from '../support/mp3.js';

let running: RunningServer;

beforeAll(async () => {
  running = await serve({ port: 0, host: '127.0.0.1', seed: 1, basePath: '/api', start: '2026-03-02T09:00:00Z', quiet: true, openSandboxes: true });
});
afterAll(() => running.close());

async function call(method: string, path: string, key: string | undefined, body?: unknown) {
  const res = await fetch(`${running.url}${path}`, {
    method,
    headers: { ...(key && { authorization: `Bearer ${key}` }), 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** A sandbox with one recorded call that has ended; answers its key and the call. */
async function sandboxWithCall() {
  const key = (await call('POST', '/__sim/sandboxes', undefined, {})).body.api_key as string;
  const number = (await call('POST', '/__sim/phone-numbers', key, { account_id: 1, type: 'sip', phone_number: '+14155550100' })).body.id;
  const assistant = (await call('POST', '/user/assistant', key, pipelineAssistant({ phone_number_id: number, record: true }))).body.data.id;
  expect((await call('POST', '/user/make_call', key, { assistant_id: assistant, phone_number: '+14155550123' })).status).toBe(200);
  expect((await call('POST', '/__sim/clock/advance', key, { by: '30m' })).status).toBe(200);
  const [row] = (await call('GET', '/user/calls', key)).body.data;
  return { key, call: row as { id: number; duration: number; recording_url: string } };
}

it("downloads a sandbox's recording from that sandbox, under the server's URL, without a key", async () => {
  const { call: recorded } = await sandboxWithCall();
  expect(recorded.recording_url.startsWith(`${running.url}/files/`)).toBe(true);
  // The sandbox's scope, not the server's own simulator's (`sim`).
  expect(recorded.recording_url).toMatch(/\/files\/[0-9a-f]{20}\/rec-1-[0-9a-f]{32}\/recording\.mp3$/);
  const res = await fetch(recorded.recording_url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('audio/mpeg');
  const facts = mp3Facts(new Uint8Array(await res.arrayBuffer()));
  expect(Math.abs(facts.seconds - recorded.duration)).toBeLessThanOrEqual(1);
});

it("gives two sandboxes' first calls different links, each served by its own sandbox, and 404 once the call is deleted", async () => {
  const first = await sandboxWithCall();
  const second = await sandboxWithCall();
  expect(first.call.id).toBe(second.call.id);
  expect(first.call.recording_url).not.toBe(second.call.recording_url);
  expect((await fetch(second.call.recording_url)).status).toBe(200);
  expect((await call('DELETE', `/user/calls/${second.call.id}`, second.key)).status).toBe(200);
  const gone = await fetch(second.call.recording_url);
  expect(gone.status).toBe(404);
  expect(await gone.json()).toStrictEqual({ message: 'File not found.' });
  // The other sandbox's recording is still there.
  expect((await fetch(first.call.recording_url)).status).toBe(200);
});
