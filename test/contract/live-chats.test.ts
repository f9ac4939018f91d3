/**
 * Chats as the reference documents them: the built-in status and summary in the live
 * conversation-ended payload (live-platform H.1), and the prompt variables in a chat's
 * greeting (H.8, both wires).
 */
import { expect, it } from 'vitest';
import type { DeliverRequest } from '../../src/engine/webhooks.js';
import { contract, type Api } from '../support/api.js';
import { createAssistant, startConversation } from '../support/records.js';

const HOOK = 'https://hooks.example.test/ended';
const captured: any[] = [];
const capture = {
  deliver: async (req: DeliverRequest) => {
    captured.push(JSON.parse(req.body));
    return { status: 200, body: '', duration_ms: 0 };
  },
};

/** A widget conversation of an assistant with a conversation-ended webhook; answers its uuid. */
async function hookedChat(api: Api, overrides: Record<string, unknown> = {}) {
  captured.length = 0;
  const assistant = await createAssistant(api, { conversation_ended_webhook_url: HOOK, conversation_inactivity_timeout: 10, ...overrides });
  return { assistant, uuid: await startConversation(api, assistant.uuid) };
}

const say = (api: Api, uuid: string, message: string) => api.post(`/conversations/${uuid}/messages`, { message }, { key: null });

contract(
  'live H.1: the conversation-ended payload has the built-in status and summary',
  (api) => {
    it('starts extracted_variables with status true and a summary when the assistant answered the last message, then the schema items', async () => {
      const { uuid } = await hookedChat(api(), { post_call_schema: [{ name: 'booked', type: 'bool', description: 'Booked a table' }] });
      await api().put('/__sim/replies', { rules: [{ when: 'book', reply: 'Booked!', set_variables: { booked: true } }] });
      expect((await say(api(), uuid, 'Can I book for two?')).status).toBe(200);
      expect((await say(api(), uuid, 'Thanks')).status).toBe(200);
      await api().sim.clock.advance('10m');
      expect(captured).toHaveLength(1);
      expect(captured[0].extracted_variables).toStrictEqual({
        status: true,
        summary: 'The customer sent 2 messages and the assistant answered the last one.',
        booked: true,
      });
      expect(Object.keys(captured[0].extracted_variables)).toEqual(['status', 'summary', 'booked']);
    });

    it('gives status false when the last message was not answered (AI off), and when the customer said nothing', async () => {
      const { uuid } = await hookedChat(api());
      await say(api(), uuid, 'Hello?');
      expect((await api().post(`/automate/conversations/${uuid}/disable-ai`)).status).toBe(200);
      await say(api(), uuid, 'Anyone there?');
      await api().sim.clock.advance('10m');
      expect(captured[0].extracted_variables).toStrictEqual({ status: false, summary: 'The customer sent 2 messages and the last one was not answered.' });

      const silent = await hookedChat(api());
      expect(silent.uuid).not.toBe(uuid);
      await api().sim.clock.advance('10m');
      expect(captured.at(-1).extracted_variables).toStrictEqual({ status: false, summary: 'The customer sent no message.' });
    });

    it('lets a reply rule set status and summary, in the built-ins\' places', async () => {
      const { uuid } = await hookedChat(api());
      await api().put('/__sim/replies', { rules: [{ when: 'cancel', reply: 'Cancelled.', set_variables: { summary: 'Cancelled a booking.', status: false } }] });
      await say(api(), uuid, 'Please cancel');
      await api().sim.clock.advance('10m');
      expect(captured[0].extracted_variables).toStrictEqual({ status: false, summary: 'Cancelled a booking.' });
    });
  },
  { wire: 'live', ...capture },
);

contract(
  'spec wire: the conversation-ended payload has no built-ins',
  (api) => {
    it('keeps extracted_variables to the schema items', async () => {
      const { uuid } = await hookedChat(api(), { post_call_schema: [{ name: 'booked', type: 'bool', description: 'Booked a table' }] });
      await api().put('/__sim/replies', { rules: [{ when: 'book', reply: 'Booked!', set_variables: { booked: true } }] });
      await say(api(), uuid, 'Can I book?');
      await api().sim.clock.advance('10m');
      expect(captured[0].extracted_variables).toStrictEqual({ booked: true });
    });
  },
  capture,
);

function greetingSuite(wire: 'spec' | 'live') {
  contract(
    `H.8: a chat's greeting fills the prompt variables (${wire} wire)`,
    (api) => {
      it('fills {name}, {{name}} and the system variables, the phones empty for a web chat', async () => {
        const assistant = await createAssistant(api(), {
          name: 'Ava',
          timezone: 'Europe/Berlin',
          initial_message: 'Hallo {customer_name}, hier ist {{assistant_name}} am {{current_date}} um {{current_time}} ({{assistant_id}}). [{{customer_phone}}|{{assistant_phone}}] {{unknown}} {other}',
        });
        const res = await api().post('/conversations', { assistant_id: assistant.uuid, variables: { customer_name: 'Max' } }, { key: null });
        expect(res.status).toBe(200);
        // 09:00 UTC is 10:00 in Berlin.
        expect(res.body.history[0].content).toBe(`Hallo Max, hier ist Ava am 2026-03-02 um 10:00 (${assistant.uuid}). [|] {{unknown}} {other}`);
      });

      it('greets as written when there is no placeholder', async () => {
        const assistant = await createAssistant(api(), { initial_message: 'Hi there.' });
        const res = await api().post('/conversations', { assistant_id: assistant.uuid }, { key: null });
        expect(res.body.history[0].content).toBe('Hi there.');
      });
    },
    { wire },
  );
}

greetingSuite('spec');
greetingSuite('live');
