/** The SMS operation (live-platform C.5): 200 on success, as the Activepieces piece expects exactly. */
import { ok } from '../../core/http.js';
import { userRoute } from '../routing.js';
import { SendSmsBody, serialiseSentSms } from './schema.js';
import { SMS_MESSAGES, sendSms } from './service.js';

export const smsRoutes = [
  userRoute({
    method: 'POST', path: '/user/sms', body: SendSmsBody,
    handle: ({ ctx, body }) => ok({ message: SMS_MESSAGES.sent, data: serialiseSentSms(sendSms(ctx, body)) }),
  }),
];
