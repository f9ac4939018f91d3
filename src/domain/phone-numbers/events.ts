/** The clock events of phone numbers: the end of a billing period (decisions: Billing period). */
import { id } from '../../core/fields.js';
import { onClock, type ClockHandler } from '../routing.js';
import { PERIOD_END_EVENT, endBillingPeriod, type PeriodEndPayload } from './service.js';

export const phoneNumberEvents: readonly ClockHandler[] = [onClock<PeriodEndPayload>(PERIOD_END_EVENT, { account_id: id, phone_number_id: id }, endBillingPeriod)];
