/** The clock events of campaigns: the dialer's runs and leads' retries (ARCHITECTURE §4 Campaign dialing). */
import { id } from '../../core/fields.js';
import { onClock, type ClockHandler } from '../routing.js';
import { DIAL_EVENT, LEAD_RETRY_EVENT, dialCampaign, retryLead, type DialPayload, type LeadRetryPayload } from './dialer.js';

export const campaignEvents: readonly ClockHandler[] = [
  onClock<DialPayload>(DIAL_EVENT, { account_id: id, campaign_id: id }, (ctx, payload) => dialCampaign(ctx, payload)),
  onClock<LeadRetryPayload>(LEAD_RETRY_EVENT, { account_id: id, lead_id: id }, retryLead),
];
