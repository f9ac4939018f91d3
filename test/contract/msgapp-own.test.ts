/**
 * Senders and templates of one's own and the messaging limit (live-platform H.5), inbound
 * media and voice notes (H.6) with their files served for download (H.7), and the live
 * wire's conversation-ended payload (H.3).
 */
import { expect, it } from 'vitest';
import type { DeliverRequest } from '../../src/engine/webhooks.js';
import { contract, type Api } from '../support/api.js';
import { createAssistant } from '../support/records.js';

const LIMIT_ERROR = { success: false, error: 'Messaging limit reached: 1 unique recipients in 24 hours.', error_code: 'MESSAGING_LIMIT_UNAVAILABLE' };

async function ownSender(api: Api, fields: Record<string, unknown> = {}) {
  const res = await api.post('/__sim/msgapp/senders', { display_name: 'Bistro Bot', ...fields });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function ownTemplate(api: Api, senderId: number, fields: Record<string, unknown> = {}) {
  const res = await api.post('/__sim/msgapp/templates', { sender_id: senderId, name: 'table_ready', body_text: 'Hi {{1}}, your table for {{2}} is ready.', ...fields });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const send = (api: Api, body: Record<string, unknown>) => api.post('/user/msgapp/send', body);

contract('msgapp: senders and templates of your own', (api) => {
  it('adds a sender with its own limit, listed by the platform with the fixtures', async () => {
    const sender = await ownSender(api(), { messaging_limit: 1, phone_number: '+14155550999' });
    expect(sender).toStrictEqual({
      id: 3,
      phone_number: '+14155550999',
      display_name: 'Bistro Bot',
      status: 'online',
      quality_rating: 'high',
      messaging_limit: 1,
      messaging_limit_formatted: '1',
      assistant_id: null,
      read_receipts_webhook_url: null,
      read_receipts_signing_secret: null,
    });
    const listed = (await api().get('/user/msgapp/senders')).body.data.map((s: { id: number }) => s.id);
    expect(listed).toEqual([1, 3]);
    // Without a number it gets the next free one; a taken one is refused.
    expect((await ownSender(api())).phone_number).toBe('+14155550200');
    const taken = await api().post('/__sim/msgapp/senders', { display_name: 'Again', phone_number: '+14155550999' });
    expect(taken.status).toBe(422);
    expect(taken.body.errors).toStrictEqual({ phone_number: ['The phone number has already been taken.'] });
  });

  it('refuses a sender without a display name or of an unknown account, creating nothing', async () => {
    const missing = await api().post('/__sim/msgapp/senders', {});
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toHaveProperty('display_name');
    const foreign = await api().post('/__sim/msgapp/senders', { display_name: 'X', account_id: 9 });
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors).toHaveProperty('account_id');
    expect((await api().get('/__sim/msgapp/senders')).body.data.map((s: { id: number }) => s.id)).toEqual([1, 2]);
  });

  it('fills a positional template {{1}} {{2}} from variables keyed "1" and "2"', async () => {
    const sender = await ownSender(api());
    const template = await ownTemplate(api(), sender.id);
    expect(template).toMatchObject({ id: 5, sender_id: sender.id, status: 'approved', variables: ['1', '2'], has_variables: true });
    const sent = await send(api(), { sender_id: sender.id, template_id: template.id, recipient_phone: '+14155550123', variables: { 1: 'Ann', 2: 'two' } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const conversation = (await api().get('/user/conversations', { query: { type: 'msgapp' } })).body.data[0];
    const history = (await api().get(`/conversations/${conversation.id}`)).body.history;
    expect(history).toStrictEqual([{ role: 'assistant', content: 'Hi Ann, your table for two is ready.' }]);
    const missing = await send(api(), { sender_id: sender.id, template_id: template.id, recipient_phone: '+14155550123', variables: { 1: 'Ann' } });
    expect(missing.status).toBe(422);
    expect(missing.body.error_code).toBe('VALIDATION_ERROR');
  });

  it('moves a template from pending to approved, and refuses it while pending', async () => {
    const sender = await ownSender(api());
    const template = await ownTemplate(api(), sender.id, { status: 'pending', body_text: 'Hello!', name: 'hello' });
    const refused = await send(api(), { sender_id: sender.id, template_id: template.id, recipient_phone: '+14155550123' });
    expect(refused.status).toBe(422);
    expect(refused.body.error_code).toBe('TEMPLATE_NOT_APPROVED');
    const patched = await api().patch(`/__sim/msgapp/templates/${template.id}`, { status: 'approved' });
    expect(patched.body).toMatchObject({ id: template.id, status: 'approved' });
    expect((await send(api(), { sender_id: sender.id, template_id: template.id, recipient_phone: '+14155550123' })).status).toBe(200);
    const disabled = await api().patch(`/__sim/msgapp/templates/${template.id}`, { status: 'disabled' });
    expect(disabled.body.status).toBe('disabled');
    expect((await api().patch(`/__sim/msgapp/templates/${template.id}`, { status: 'gone' })).status).toBe(422);
    expect((await api().patch('/__sim/msgapp/templates/99', { status: 'approved' })).status).toBe(404);
  });

  it('refuses a template whose variables are not in its body, or of an unknown sender', async () => {
    const bad = await api().post('/__sim/msgapp/templates', { sender_id: 1, name: 'x', body_text: 'Hi {{1}}', variables: ['1', 'name'] });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.variables).toEqual(['Every variable must appear in the body as {{name}}: name does not.']);
    const unknown = await api().post('/__sim/msgapp/templates', { sender_id: 99, name: 'x', body_text: 'Hi' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toHaveProperty('sender_id');
    expect((await api().get('/user/msgapp/senders/1/templates', { query: { status: 'all' } })).body.data).toHaveLength(4);
  });

  it('messaging_limit 1: a second unique recipient within 24 h is refused and nothing is sent or charged; the first may be written again, and after 24 h the second too', async () => {
    const sender = await ownSender(api(), { messaging_limit: 1 });
    const template = await ownTemplate(api(), sender.id, { body_text: 'Hello!', name: 'hello' });
    const body = (to: string) => ({ sender_id: sender.id, template_id: template.id, recipient_phone: to });
    expect((await send(api(), body('+14155550123'))).status).toBe(200);
    const before = (await api().get('/user/me')).body.total_balance;
    const refused = await send(api(), body('+14155550124'));
    expect(refused.status).toBe(422);
    expect(refused.body).toStrictEqual(LIMIT_ERROR);
    expect((await api().get('/user/me')).body.total_balance).toBe(before);
    expect((await api().get('/__sim/msgapp/messages', { query: { sender_id: sender.id } })).body.data).toHaveLength(1);
    expect((await api().get('/user/conversations', { query: { type: 'msgapp' } })).body.data).toHaveLength(1);
    // The same recipient is no new one.
    expect((await send(api(), body('+14155550123'))).status).toBe(200);
    // A rolling 24 h of virtual time: just before, still refused; after, accepted.
    await api().sim.clock.advance('23h59m59s');
    expect((await send(api(), body('+14155550124'))).status).toBe(422);
    // 24 h after the sends to the first recipient, the window holds none of them.
    await api().sim.clock.advance('1s');
    expect((await send(api(), body('+14155550124'))).status).toBe(200);
  });

  it('a limit set on a fixture sender through the patch is enforced, and null lifts it', async () => {
    expect((await api().patch('/__sim/msgapp/senders/1', { messaging_limit: 1 })).body.messaging_limit).toBe(1);
    const body = (to: string) => ({ sender_id: 1, template_id: 2, recipient_phone: to });
    expect((await send(api(), body('+14155550123'))).status).toBe(200);
    expect((await send(api(), body('+14155550124'))).body).toStrictEqual(LIMIT_ERROR);
    await api().patch('/__sim/msgapp/senders/1', { messaging_limit: null });
    expect((await send(api(), body('+14155550124'))).status).toBe(200);
  });
});

const captured: unknown[] = [];
const deliver = async (req: DeliverRequest) => {
  captured.push(JSON.parse(req.body));
  return { status: 200, body: '', duration_ms: 0 };
};

async function download(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { status: res.status, type: res.headers.get('content-type'), range: res.headers.get('content-range'), bytes: new Uint8Array(await res.arrayBuffer()) };
}

contract(
  'msgapp: media, voice notes and the conversation-ended payload (live wire)',
  (api) => {
    async function hookedConversation() {
      captured.length = 0;
      expect((await api().patch('/__sim/accounts/1', { timezone: 'Europe/Berlin' })).status).toBe(200);
      const assistant = await createAssistant(api(), { conversation_ended_webhook_url: 'https://hooks.example.test/ended', conversation_inactivity_timeout: 10 });
      await api().patch('/__sim/msgapp/senders/1', { assistant_id: assistant.id });
      return assistant;
    }

    it('ends a WhatsApp conversation with an image, a voice note and a human takeover with the documented payload, and its attachment downloads without a key', async () => {
      await hookedConversation();
      const image = await api().post('/__sim/msgapp/inbound', { sender_id: 1, from: '+14155550123', media: { type: 'image', filename: 'menu.png', caption: 'This one?' }, name: 'Ann' });
      expect(image.status, JSON.stringify(image.body)).toBe(201);
      await api().sim.clock.advance('1m');
      expect((await api().post('/__sim/msgapp/inbound', { sender_id: 1, from: '+14155550123', voice_note: { transcription: 'Can I book for two?' } })).status).toBe(201);
      const [conversation] = (await api().get('/user/conversations', { query: { type: 'whatsapp' } })).body.data;
      expect((await api().post(`/automate/conversations/${conversation.id}/disable-ai`)).status).toBe(200);
      expect((await api().post('/__sim/msgapp/inbound', { sender_id: 1, from: '+14155550123', media: { type: 'document' } })).status).toBe(201);
      await api().sim.clock.advance('10m');
      const payload = captured.at(-1) as any;
      expect(Object.keys(payload)[0]).toBe('id');
      expect(payload.id).toBe(1);
      expect(payload.type).toBe('whatsapp');
      expect(payload.transcript.map((t: { role: string; content: string }) => [t.role, t.content])).toEqual([
        ['user', 'This one?'],
        ['assistant', expect.any(String)],
        ['user', 'Can I book for two?'],
        ['assistant', expect.any(String)],
        ['system', 'A human agent took over the conversation.'],
        ['user', '[Document]'],
      ]);
      expect(payload.transcript[0]).toStrictEqual({ role: 'user', content: 'This one?', timestamp: '2026-03-02T10:00:00+01:00', timestamp_unix: 1772442000 });
      expect(payload.transcript[2].timestamp).toBe('2026-03-02T10:01:00+01:00');
      expect(payload.formatted_transcript.split('\n')[4]).toBe('System: A human agent took over the conversation.');
      expect(payload.created_at).toBe('2026-03-02T10:00:00+01:00');
      expect(payload.attachments.map((a: { type: string; filename: string }) => [a.type, a.filename])).toEqual([
        ['image', 'menu.png'],
        ['audio', 'voice-note.mp3'],
        ['document', 'document.pdf'],
      ]);
      const [png, mp3, pdf] = payload.attachments.map((a: { url: string }) => a.url);
      expect(png).toMatch(/\/files\/sim\/att-\d+-[0-9a-f]{32}\/menu\.png$/);
      const got = await download(png);
      expect(got.status).toBe(200);
      expect(got.type).toBe('image/png');
      expect([...got.bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      const audio = await download(mp3);
      expect(audio.type).toBe('audio/mpeg');
      expect([...audio.bytes.subarray(0, 2)]).toEqual([0xff, 0xfb]);
      const doc = await download(pdf);
      expect(doc.type).toBe('application/pdf');
      expect(new TextDecoder().decode(doc.bytes.subarray(0, 8))).toBe('%PDF-1.4');
      expect(new TextDecoder().decode(doc.bytes).trimEnd().endsWith('%%EOF')).toBe(true);
    });

    it('serves a range with 206, a range past the end with 416, and a link with a wrong token as 404', async () => {
      await hookedConversation();
      await api().post('/__sim/msgapp/inbound', { sender_id: 1, from: '+14155550123', media: { type: 'video' } });
      await api().sim.clock.advance('20m');
      const url = (captured.at(-1) as any).attachments[0].url as string;
      const whole = await download(url);
      expect(whole.type).toBe('video/mp4');
      expect(new TextDecoder().decode(whole.bytes.subarray(4, 8))).toBe('ftyp');
      const part = await download(url, { range: 'bytes=0-9' });
      expect(part.status).toBe(206);
      expect(part.range).toBe(`bytes 0-9/${whole.bytes.length}`);
      expect([...part.bytes]).toEqual([...whole.bytes.subarray(0, 10)]);
      const past = await download(url, { range: `bytes=${whole.bytes.length}-` });
      expect(past.status).toBe(416);
      expect(past.range).toBe(`bytes */${whole.bytes.length}`);
      const forged = url.replace(/-([0-9a-f])([0-9a-f]{31})\//, (_, first: string, rest: string) => `-${first === '0' ? '1' : '0'}${rest}/`);
      const refused = await api().get(forged.slice(forged.indexOf('/files/')), { key: null });
      expect(refused.status).toBe(404);
      expect(refused.body).toStrictEqual({ message: 'File not found.' });
    });

    it('refuses an inbound message with nothing to say, or with two of text, media and voice note', async () => {
      const none = await api().post('/__sim/msgapp/inbound', { sender_id: 1, from: '+14155550123' });
      expect(none.status).toBe(422);
      const both = await api().post('/__sim/msgapp/inbound', { sender_id: 1, from: '+14155550123', text: 'x', voice_note: { transcription: 'y' } });
      expect(both.status).toBe(422);
      expect(both.body.errors).toStrictEqual({ text: ['Send one of text, media (with its caption) or voice_note.'] });
      const badType = await api().post('/__sim/msgapp/inbound', { sender_id: 1, from: '+14155550123', media: { type: 'sticker' } });
      expect(badType.status).toBe(422);
      expect(badType.body.errors).toHaveProperty(['media.type']);
      expect((await api().get('/user/conversations', { query: { type: 'whatsapp' } })).body.data).toEqual([]);
    });

    it('enabling the AI again adds the resume note, and setting the state it has adds none', async () => {
      await hookedConversation();
      await api().post('/__sim/msgapp/inbound', { sender_id: 1, from: '+14155550123', text: 'Hi' });
      const [conversation] = (await api().get('/user/conversations', { query: { type: 'whatsapp' } })).body.data;
      await api().post(`/automate/conversations/${conversation.id}/disable-ai`);
      await api().post(`/automate/conversations/${conversation.id}/disable-ai`);
      await api().post(`/automate/conversations/${conversation.id}/enable-ai`);
      await api().sim.clock.advance('20m');
      const roles = (captured.at(-1) as any).transcript.filter((t: { role: string }) => t.role === 'system').map((t: { content: string }) => t.content);
      expect(roles).toEqual(['A human agent took over the conversation.', 'The AI assistant resumed the conversation.']);
      expect((captured.at(-1) as any).attachments).toEqual([]);
    });
  },
  { wire: 'live', deliver },
);
