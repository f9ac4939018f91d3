/**
 * The docs' examples as written (live-platform G.3) on the live wire: numbers of E.164's
 * form (item 2), input read trimmed with empty strings as null (item 3) and the reference's
 * error texts (item 4); the spec wire keeps its stricter number check and reads input as sent.
 * The reference's own request examples are test/contract/reference-examples.test.ts.
 */
import { expect, it } from 'vitest';
import { ASSISTANT_MESSAGES } from '../../src/domain/assistants/errors.js';
import { contract, type Api } from '../support/api.js';
import { multimodalAssistant, pipelineAssistant } from '../support/fixtures.js';

/** The reference's recipient: E.164's form, though no US number is that short. */
const DOC_NUMBER = '+1234567890';
const INVALID_PHONE = {
  success: false,
  error: 'Invalid phone number format. Use E.164 format (e.g., +14155551234).',
  error_code: 'INVALID_PHONE',
};

/** An outbound pipeline assistant (id 1) with a SIP number to call from. */
async function caller(api: Api): Promise<void> {
  const number = api.sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' });
  const res = await api.post('/user/assistant', pipelineAssistant({ phone_number_id: number.id }, api.sim.wire));
  expect(res.status).toBe(201);
}

function sessionStatus(api: Api, phone: string) {
  return api.get('/user/whatsapp/session-status', { query: { sender_id: 1, recipient_phone: phone } });
}

contract(
  'live G.3 item 2: numbers of E.164 form are accepted on the live wire',
  (api) => {
    it('opens the window of +1234567890 through the control API and reports it open', async () => {
      const inbound = await api().post('/__sim/msgapp/inbound', { sender_id: 1, from: DOC_NUMBER, text: 'Hi' });
      expect(inbound.status).toBe(201);
      expect(inbound.body).toMatchObject({ conversation_id: 1, session_status: { is_open: true, expires_at: '2026-03-03T09:00:00Z' } });
      const status = await sessionStatus(api(), DOC_NUMBER);
      expect(status.body).toMatchObject({ success: true, has_conversation: true, conversation_id: 1, session_status: { is_open: true } });
    });

    it('sends a free-form message to +1234567890 once its window is open', async () => {
      await api().post('/__sim/msgapp/inbound', { sender_id: 1, from: DOC_NUMBER, text: 'Hi' });
      const res = await api().post('/user/whatsapp/send-freeform', { sender_id: 1, recipient_phone: DOC_NUMBER, message: 'Your table is ready.' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, conversation_id: 1, message_id: 2, session_status: { is_open: true } });
      const conversation = (await api().get('/user/conversations')).body.data[0];
      expect(conversation.customer).toStrictEqual({ name: null, phone: DOC_NUMBER });
    });

    it('reads the platform\'s normalisation: spaces, dashes and parentheses dropped, 00 for +', async () => {
      await api().post('/__sim/msgapp/inbound', { sender_id: 1, from: '00 1 (234) 567-890', text: 'Hi' });
      expect((await sessionStatus(api(), DOC_NUMBER)).body).toMatchObject({ has_conversation: true, conversation_id: 1 });
    });

    it('takes 7 and 15 digits and refuses 6 and 16, a leading 0 and letters, with INVALID_PHONE', async () => {
      for (const phone of ['+1234567', '+123456789012345']) {
        const res = await sessionStatus(api(), phone);
        expect(res.status, phone).toBe(200);
        expect(res.body, phone).toMatchObject({ success: true, has_conversation: false });
      }
      for (const phone of ['+123456', '+1234567890123456', '+0123456789', '+12345abc90']) {
        const res = await sessionStatus(api(), phone);
        expect(res.status, phone).toBe(422);
        expect(res.body, phone).toStrictEqual(INVALID_PHONE);
      }
    });

    it('calls +1234567890 with make_call, and a scripted outcome for that number applies', async () => {
      await caller(api());
      api().sim.control.outcomes.forNumber(DOC_NUMBER, ['busy']);
      const made = await api().post('/user/make_call', { assistant_id: 1, phone_number: DOC_NUMBER });
      expect(made.status).toBe(200);
      expect(made.body).toStrictEqual({ message: 'Call initiated successfully', call_id: 1, status: 'initiated' });
      await api().sim.clock.advance('5m');
      expect((await api().get('/user/calls/1')).body).toMatchObject({ id: 1, client_phone_number: DOC_NUMBER, status: 'busy' });
    });

    it('takes +1234567890 as a lead of a campaign and as a control number, whose country is its calling code\'s (US)', async () => {
      await caller(api());
      await api().post('/user/campaign', { name: 'Spring', assistant_id: 1 });
      const lead = await api().post('/user/lead', { campaign_id: 1, phone_number: DOC_NUMBER });
      expect(lead.status).toBe(200);
      expect(lead.body.data).toMatchObject({ phone_number: DOC_NUMBER });
      const added = await api().post('/__sim/phone-numbers', { account_id: 1, type: 'caller_id', phone_number: '+4412345678' });
      expect(added.status).toBe(201);
      expect(added.body).toMatchObject({ phone_number: '+4412345678', country_code: 'GB' });
      const us = await api().post('/__sim/phone-numbers', { account_id: 1, type: 'caller_id', phone_number: DOC_NUMBER });
      expect(us.body).toMatchObject({ phone_number: DOC_NUMBER, country_code: 'US' });
    });
  },
  { wire: 'live' },
);

contract('live G.3 item 2: the spec wire keeps its check that a number could be dialled', (api) => {
  it('refuses +1234567890 on the control API, make_call and the session status', async () => {
    const inbound = await api().post('/__sim/msgapp/inbound', { sender_id: 1, from: DOC_NUMBER, text: 'Hi' });
    expect(inbound.status).toBe(422);
    expect(inbound.body.errors).toStrictEqual({ from: ['The from must be a valid phone number in E.164 format.'] });
    await caller(api());
    const made = await api().post('/user/make_call', { assistant_id: 1, phone_number: DOC_NUMBER });
    expect(made.status).toBe(400);
    const status = await api().get('/user/msgapp/session-status', { query: { sender_id: 1, recipient_phone: DOC_NUMBER } });
    expect(status.body.error_code).toBe('INVALID_PHONE');
    expect((await api().get('/user/calls')).body.data).toEqual([]);
  });
});

contract(
  'live G.3 item 3: input read trimmed, an empty string as null',
  (api) => {
    it('trims every string of a JSON body before validating and storing it', async () => {
      const res = await api().post('/user/assistant', pipelineAssistant({ name: '  Sales  ', timezone: ' Europe/Berlin\n', variables: { city: '\tBerlin ' } }, 'live'));
      expect(res.status).toBe(201);
      expect(res.body.data.name).toBe('Sales');
      expect((await api().get('/user/assistant/1')).body.data).toMatchObject({ name: 'Sales', timezone: 'Europe/Berlin', variables: { city: 'Berlin' } });
    });

    it('reads a required string that is empty after trimming as missing', async () => {
      const res = await api().post('/user/assistant', pipelineAssistant({ name: '   ' }, 'live'));
      expect(res.status).toBe(422);
      expect(res.body).toStrictEqual({ message: 'Validation failed', errors: { name: ['The name field is required.'] } });
      expect((await api().get('/user/assistants')).body).toEqual([]);
    });

    it('clears a nullable field sent empty', async () => {
      await api().post('/user/assistant', pipelineAssistant({ voice_mail_message: 'Call me back.' }, 'live'));
      const res = await api().put('/user/assistant/1', { voice_mail_message: ' ' });
      expect(res.status).toBe(200);
      expect((await api().get('/user/assistant/1')).body.data).toMatchObject({ voice_mail_message: null, name: 'Sales Assistant' });
    });

    it('refuses an optional field that takes no null, sent empty, as the empty string it was, changing nothing', async () => {
      await api().post('/user/assistant', pipelineAssistant({}, 'live'));
      const res = await api().put('/user/assistant/1', { name: '  ' });
      expect(res.status).toBe(422);
      expect(res.body).toStrictEqual({ message: 'Validation failed', errors: { name: ['The name field is required.'] } });
      expect((await api().get('/user/assistant/1')).body.data.name).toBe('Sales Assistant');
    });

    it('keeps an empty item of a list null in its place, refused by the list\'s rule', async () => {
      const res = await api().post('/user/assistant', pipelineAssistant({ secondary_language_ids: [2], post_call_schema: [{ name: 'status', type: 'bool', description: ' ' }] }, 'live'));
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['post_call_schema.0.description']);
    });

    it('keeps a __proto__ key of a body as data while trimming', async () => {
      await api().post('/user/assistant', pipelineAssistant({}, 'live'));
      const variables = JSON.parse('{"__proto__": " polluted ", "city": " Berlin "}');
      const res = await api().put('/user/assistant/1', { variables });
      expect(res.status).toBe(200);
      const read = (await api().get('/user/assistant/1')).body.data.variables;
      expect(Object.getOwnPropertyDescriptor(read, '__proto__')?.value).toBe('polluted');
      expect(read.city).toBe('Berlin');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('trims the query: an unencoded + arrives as a space and the number reads without it', async () => {
      const res = await api().get('/user/whatsapp/session-status?sender_id=1&recipient_phone=+1234567890');
      expect(res.status).toBe(422);
      expect(res.body).toStrictEqual(INVALID_PHONE);
    });

    it('matches customer_phone by substring, so an unencoded +49… still finds the conversation', async () => {
      await api().post('/__sim/msgapp/inbound', { sender_id: 1, from: '+49123456789', text: 'Hallo' });
      const res = await api().get('/user/conversations?customer_phone=+49123456789');
      expect(res.status).toBe(200);
      expect(res.body.data.map((c: { customer: { phone: string } }) => c.customer.phone)).toEqual(['+49123456789']);
    });

    it('leaves out a query parameter that is empty after trimming', async () => {
      await api().post('/__sim/msgapp/inbound', { sender_id: 1, from: '+49123456789', text: 'Hallo' });
      const res = await api().get('/user/conversations', { query: { customer_phone: ' ', per_page: '' } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ per_page: 15, data: [{ customer: { phone: '+49123456789' } }] });
    });

    it('does not trim the control API\'s own input', async () => {
      const res = await api().post('/__sim/accounts', { name: ' Padded ', api_key: 'sim_padded_key' });
      expect(res.status).toBe(201);
      expect(res.body.name).toBe(' Padded ');
    });
  },
  { wire: 'live' },
);

contract('live G.3 item 3: the spec wire reads input as it is sent', (api) => {
  it('stores a padded name as given and refuses a blank one by its length rule', async () => {
    await api().post('/user/assistant', pipelineAssistant({ name: '  Sales  ' }));
    expect((await api().get('/user/assistant/1')).body.data.name).toBe('  Sales  ');
    const res = await api().post('/user/assistant', pipelineAssistant({ name: '' }));
    expect(res.body.errors).toStrictEqual({ name: ['The name field is required.'] });
  });

  it('matches customer_phone exactly', async () => {
    await api().post('/__sim/msgapp/inbound', { sender_id: 1, from: '+14155550123', text: 'Hi' });
    expect((await api().get('/user/conversations', { query: { customer_phone: '14155550123' } })).body.data).toEqual([]);
    expect((await api().get('/user/conversations', { query: { customer_phone: '+14155550123' } })).body.data).toHaveLength(1);
  });
});

contract(
  'live G.3 item 4: the reference\'s error texts on the live wire',
  (api) => {
    it('takes speech_speed 0.7 and 1.2 and refuses 0.69 and 1.21 with the reference\'s text, on create and update', async () => {
      for (const [id, speed] of [[1, 0.7], [2, 1.2]] as const) {
        const res = await api().post('/user/assistant', pipelineAssistant({ speech_speed: speed }, 'live'));
        expect(res.body.data.id).toBe(id);
      }
      const refused = { message: 'Validation failed', errors: { speech_speed: ['Speech speed must be between 0.7 and 1.2.'] } };
      for (const speed of [0.69, 1.21]) {
        expect((await api().post('/user/assistant', pipelineAssistant({ speech_speed: speed }, 'live'))).body).toStrictEqual(refused);
        expect((await api().put('/user/assistant/1', { speech_speed: speed })).body).toStrictEqual(refused);
      }
      expect((await api().get('/user/assistant/1')).body.data.speech_speed).toBe('0.7');
    });

    it('refuses interruptions off and prompt knowledge on a dualplex assistant with the reference\'s texts', async () => {
      const body = multimodalAssistant({ mode: 'dualplex', allow_interruptions: false, knowledgebase_mode: 'prompt' }, 'live');
      const res = await api().post('/user/assistant', body);
      expect(res.status).toBe(422);
      expect(res.body).toStrictEqual({
        message: 'Validation failed',
        errors: {
          allow_interruptions: ['Interruptions cannot be disabled in multimodal or dualplex mode.'],
          knowledgebase_mode: ['Only function_call mode is available for multimodal assistants.'],
        },
      });
    });
  },
  { wire: 'live' },
);

contract('live G.3 item 4: the spec wire keeps its own texts', (api) => {
  it('refuses speech_speed 1.21 and interruptions off on multimodal with the spec wire\'s texts', async () => {
    const speed = await api().post('/user/assistant', pipelineAssistant({ speech_speed: 1.21 }));
    expect(speed.body.errors).toStrictEqual({ speech_speed: [ASSISTANT_MESSAGES.speechSpeedBetween] });
    expect(ASSISTANT_MESSAGES.speechSpeedBetween).toBe('The speech speed must be between 0.7 and 1.2.');
    const interruptions = await api().post('/user/assistant', multimodalAssistant({ allow_interruptions: false }));
    expect(interruptions.body.errors).toStrictEqual({ allow_interruptions: [ASSISTANT_MESSAGES.interruptionsRequired] });
  });
});
