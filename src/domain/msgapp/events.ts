/** The clock events of the messaging channel: the 24-hour window closing (ARCHITECTURE §4 Messaging sessions), a message's statuses (live-platform H.4). */
import { id } from '../../core/fields.js';
import { onClock, type ClockHandler } from '../routing.js';
import { MESSAGE_STATUS_EVENT, SESSION_CLOSE_EVENT, advanceMessageStatus, closeWindow, type MessageStatusPayload, type SessionClosePayload } from './service.js';

export const msgappEvents: readonly ClockHandler[] = [
  onClock<SessionClosePayload>(SESSION_CLOSE_EVENT, { account_id: id, session_id: id }, closeWindow),
  // live-platform H.4: a sent message's next delivery status.
  onClock<MessageStatusPayload>(MESSAGE_STATUS_EVENT, { account_id: id, message_id: id }, advanceMessageStatus),
];
