/** The clock events of the messaging channel: the 24-hour window closing (ARCHITECTURE §4 Messaging sessions). */
import { id } from '../../core/fields.js';
import { onClock, type ClockHandler } from '../routing.js';
import { SESSION_CLOSE_EVENT, closeWindow, type SessionClosePayload } from './service.js';

export const msgappEvents: readonly ClockHandler[] = [onClock<SessionClosePayload>(SESSION_CLOSE_EVENT, { account_id: id, session_id: id }, closeWindow)];
