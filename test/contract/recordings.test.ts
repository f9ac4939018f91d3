/**
 * Recordings one can download (live-platform H.7), on both wires and both transports: a
 * recorded call's `recording_url`, in its reads and its post-call payload, is the
 * simulator's own public link to a valid MP3 of the call's length; Range requests get
 * their part; deleting the call makes it 404.
 */
import { expect, it } from 'vitest';
import { contract, type Api } from '../support/api.js';
import { pipelineAssistant } from '../support/fixtures.js';
import { parseBuffer } from 'music-metadata';
import { mp3Facts } from '../support/mp3.js';

const CALLER = '+14155550100';
/** The post-call receiver: answers at once, so no delivery goes to the network. */
const deliver = async () => ({ status: 200, body: '', duration_ms: 0 });
const HOOK = 'https://hooks.example.test/calls';

async function assistant(api: Api, overrides: Record<string, unknown> = {}): Promise<number> {
  const number = api.sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: CALLER }).id;
  const res = await api.post(
    '/user/assistant',
    pipelineAssistant({ phone_number_id: number, record: true, is_webhook_active: true, webhook_url: HOOK, send_webhook_only_on_completed: false, ...overrides }, api.sim.wire),
  );
  expect(res.status).toBe(201);
  return res.body.data.id as number;
}

/** Places one call, lets it end; answers it as GET /user/calls/{id} shows it and its post-call payload. */
async function oneCall(api: Api, assistantId: number, phone = '+14155550123') {
  expect((await api.post('/user/make_call', { assistant_id: assistantId, phone_number: phone })).status).toBe(200);
  await api.sim.clock.runUntilIdle();
  const id = Math.max(...((await api.get('/user/calls')).body.data as { id: number }[]).map((c) => c.id));
  const call = (await api.get(`/user/calls/${id}`)).body;
  const delivery = api.sim.control.webhooks.deliveries({ kind: 'post_call' }).data.find((d) => (d.payload as { id: number }).id === id);
  return { call, payload: delivery?.payload as Record<string, any> | undefined };
}

/** A download as any HTTP client makes it: no key. */
async function download(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { status: res.status, type: res.headers.get('content-type'), range: res.headers.get('content-range'), bytes: new Uint8Array(await res.arrayBuffer()) };
}

function recordingSuite(wire: 'spec' | 'live') {
  contract(
    `recordings you can download (${wire} wire)`,
    (api) => {
      it('gives a recorded call a link under the base URL, the same in its read, its list row and its post-call payload', async () => {
        const { call, payload } = await oneCall(api(), await assistant(api()));
        const base = api().transport === 'msw' ? 'http://api.voxsim.test/api' : /^http:\/\/127\.0\.0\.1:\d+\/api$/;
        const url = call.recording_url as string;
        const [, origin] = /^(.*)\/files\/sim\/rec-\d+-[0-9a-f]{32}\/recording\.mp3$/.exec(url) ?? [];
        expect(origin).toMatch(typeof base === 'string' ? new RegExp(`^${base.replace(/[.]/g, '\\.')}$`) : base);
        expect(url).toContain(`/rec-${call.id}-`);
        expect(payload!.recording_url).toBe(url);
        const listed = (await api().get('/user/calls')).body.data.find((c: { id: number }) => c.id === call.id);
        expect(listed.recording_url).toBe(url);
      });

      it('downloads without a key as audio/mpeg: a valid MP3 whose length is the call\'s within 1 s', async () => {
        const { call } = await oneCall(api(), await assistant(api()));
        expect(call.duration).toBeGreaterThan(10);
        const got = await download(call.recording_url);
        expect(got.status).toBe(200);
        expect(got.type).toBe('audio/mpeg');
        const facts = mp3Facts(got.bytes);
        expect(facts).toMatchObject({ bitrate: 32_000, sampleRate: 48_000, channels: 1 });
        expect(Math.abs(facts.seconds - call.duration)).toBeLessThanOrEqual(1);
        // And as a maintained audio metadata parser reads it, frame by frame.
        const { format } = await parseBuffer(got.bytes, { mimeType: 'audio/mpeg' }, { duration: true });
        expect(format).toMatchObject({ container: 'MPEG', codec: 'MPEG 1 Layer 3', sampleRate: 48_000, numberOfChannels: 1, bitrate: 32_000 });
        expect(Math.abs(format.duration! - call.duration)).toBeLessThanOrEqual(1);
      });

      it('answers bytes=0-99 with 206 and the first 100 bytes', async () => {
        const { call } = await oneCall(api(), await assistant(api()));
        const whole = await download(call.recording_url);
        const part = await download(call.recording_url, { range: 'bytes=0-99' });
        expect(part.status).toBe(206);
        expect(part.type).toBe('audio/mpeg');
        expect(part.bytes.length).toBe(100);
        expect(part.range).toBe(`bytes 0-99/${whole.bytes.length}`);
        expect([...part.bytes]).toEqual([...whole.bytes.subarray(0, 100)]);
      });

      it('answers 404 once the call is deleted', async () => {
        const { call } = await oneCall(api(), await assistant(api()));
        expect((await download(call.recording_url)).status).toBe(200);
        const deleted = await api().del(`/user/calls/${call.id}`);
        expect(deleted.status).toBe(200);
        const gone = await download(call.recording_url);
        expect(gone.status).toBe(404);
        expect(JSON.parse(new TextDecoder().decode(gone.bytes))).toStrictEqual({ message: 'File not found.' });
      });

      it('gives a voicemail a recording of its own length, and a busy call none', async () => {
        const id = await assistant(api());
        const voicemail = await oneCall(api(), id, '+14155550003');
        expect(voicemail.call.answered_by).toBe('machine');
        const got = await download(voicemail.call.recording_url);
        expect(Math.abs(mp3Facts(got.bytes).seconds - voicemail.call.duration)).toBeLessThanOrEqual(1);
        const busy = await oneCall(api(), id, '+14155550001');
        expect(busy.call.status).toBe('busy');
        expect(busy.call.recording_url).toBeNull();
        expect(busy.payload!.recording_url).toBeNull();
      });

      it('leaves recording_url out of the payload without include_recording_in_webhook, and null without record', async () => {
        const quiet = await oneCall(api(), await assistant(api(), { include_recording_in_webhook: false }));
        expect(quiet.call.recording_url).toMatch(/\/recording\.mp3$/);
        expect(quiet.payload).not.toHaveProperty('recording_url');
        await api().put(`/user/assistant/${quiet.call.assistant_id}`, { record: false });
        const unrecorded = await oneCall(api(), quiet.call.assistant_id);
        expect(unrecorded.call.recording_url).toBeNull();
      });

      it('shows a call inserted with its own recording_url as given', async () => {
        const assistantId = await assistant(api());
        const inserted = await api().post('/__sim/calls', { assistant_id: assistantId, client_phone_number: '+14155550123', duration: 30, recording_url: 'https://recordings.example.test/1.mp3' });
        expect(inserted.status).toBe(201);
        expect((await api().get(`/user/calls/${inserted.body.id}`)).body.recording_url).toBe('https://recordings.example.test/1.mp3');
      });
    },
    { wire, deliver },
  );
}

recordingSuite('spec');
recordingSuite('live');
