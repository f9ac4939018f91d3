/** The clock events of chat conversations: the inactivity timer (ARCHITECTURE §4 Chat conversations). */
import { id } from '../../core/fields.js';
import { onClock, type ClockHandler } from '../routing.js';
import { INACTIVITY_EVENT, endByInactivity, type InactivityPayload } from './service.js';

export const conversationEvents: readonly ClockHandler[] = [onClock<InactivityPayload>(INACTIVITY_EVENT, { account_id: id, conversation_id: id }, endByInactivity)];
