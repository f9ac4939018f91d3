/** The SMS operation (live-platform C.5): 200 on success, as the Activepieces piece expects exactly. */
import { withMessage } from '../../core/answers.js';
import { ok } from '../../core/http.js';
import { userRoute } from '../routing.js';
import { SendSmsBody, SentSmsRecord, serialiseSentSms } from './schema.js';
import { SMS_MESSAGES, sendSms } from './service.js';

export const smsRoutes = [
  userRoute({
    method: 'POST', path: '/user/sms', body: SendSmsBody, responses: () => ({ 200: withMessage(SentSmsRecord) }),
    handle: ({ ctx, body }) => ok({ message: SMS_MESSAGES.sent, data: serialiseSentSms(sendSms(ctx, body)) }),
  }),
];
