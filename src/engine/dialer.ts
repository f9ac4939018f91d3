/**
 * The campaign dialer (ARCHITECTURE §4 Campaign dialing; decisions: Lead transitions,
 * Campaign states, Balance and dialing, Voicemail no retry). A started campaign queues
 * its `created` leads as `scheduled` and keeps at most `max_calls_in_parallel` calls in
 * flight, inside its calling window; outside it, it sleeps until the window opens (one
 * clock event). Each attempt is one call; an attempt not answered by a human goes on
 * to the lead's secondary contacts in order. Retries come `retry_interval` minutes after
 * the attempt ended, at most `max_retries` of them.
 */
import type { Call } from '../domain/calls/schema.js';
import { createCallRecord, worstCaseCost } from '../domain/calls/service.js';
import type { Campaign } from '../domain/campaigns/schema.js';
import { DIAL_EVENT, setCampaignStatus, type DialPayload } from '../domain/campaigns/service.js';
import type { AccountCtx } from '../domain/context.js';
import type { Lead, LeadStatus } from '../domain/leads/schema.js';
import { isUsable } from '../domain/phone-numbers/service.js';
import { beginCall } from './calls.js';
import { nextWindowStart } from './windows.js';

export const LEAD_RETRY_EVENT = 'lead.retry';
export interface LeadRetryPayload {
  account_id: number;
  lead_id: number;
}

/** Leads that still have a dial ahead of them. */
const OPEN_STATUSES: readonly LeadStatus[] = ['created', 'scheduled', 'processing', 'rescheduled'];

function setLeadStatus(ctx: AccountCtx, lead: Lead, status: LeadStatus, patch: Partial<Lead> = {}): Lead {
  // Rows are updated in place: read the old status first.
  const before = lead.status;
  const updated = ctx.leads.update(lead.id, { status, updated_at: ctx.now(), ...patch });
  if (status !== before) ctx.emit('lead.status', { lead_id: lead.id, campaign_id: lead.campaign_id, status });
  return updated;
}

/** Pauses dialing for a reason, once per reason (`campaign.idle` on the event stream). */
function idle(ctx: AccountCtx, campaign: Campaign, reason: string): Campaign {
  if (campaign.idle_reason === reason) return campaign;
  ctx.emit('campaign.idle', { campaign_id: campaign.id, reason });
  return ctx.campaigns.update(campaign.id, { idle_reason: reason });
}

/** The caller number of the next dial: the campaign's numbers in rotation, else the assistant's. */
function callerNumber(ctx: AccountCtx, campaign: Campaign, assistantNumberId: number | null): string | undefined {
  const ids = campaign.phone_number_ids.length > 0 ? campaign.phone_number_ids : assistantNumberId === null ? [] : [assistantNumberId];
  for (let i = 0; i < ids.length; i++) {
    const number = ctx.phoneNumbers.get(ids[(campaign.rotation + i) % ids.length]!);
    if (number && isUsable(number)) {
      ctx.campaigns.update(campaign.id, { rotation: campaign.rotation + i + 1 });
      return number.phone_number;
    }
  }
  return undefined;
}

/** The number the lead's current attempt dials next, and its contact when it is not the primary. */
function target(ctx: AccountCtx, lead: Lead): { phone: string; contactId: number | null } {
  if (lead.chain < 0) return { phone: lead.phone_number, contactId: null };
  const contact = ctx.secondaryContacts.where('lead', lead.id).find((c) => c.position === lead.chain);
  return contact ? { phone: contact.phone_number, contactId: contact.id } : { phone: lead.phone_number, contactId: null };
}

/** Places the call of a scheduled lead (`processing`). */
function dialLead(ctx: AccountCtx, campaign: Campaign, lead: Lead, caller: string): void {
  const assistant = ctx.assistants.get(campaign.assistant_id)!;
  const { phone, contactId } = target(ctx, lead);
  setLeadStatus(ctx, lead, 'processing');
  if (contactId !== null) ctx.secondaryContacts.update(contactId, { status: 'processing', updated_at: ctx.now() });
  const call = createCallRecord(ctx, {
    assistant,
    assistant_phone_number: caller,
    client_phone_number: phone,
    type: 'outbound',
    campaign,
    lead_id: lead.id,
    contact_id: contactId,
    input_variables: lead.variables,
  });
  ctx.campaigns.update(campaign.id, { in_flight: campaign.in_flight + 1 });
  beginCall(ctx, call, { phone_number: phone, campaign_id: campaign.id, lead_variables: lead.variables });
}

/** Completes a running campaign with nothing left to dial, when `mark_complete_when_no_leads`. */
function maybeComplete(ctx: AccountCtx, campaign: Campaign): void {
  if (campaign.status !== 'in-progress' || !campaign.mark_complete_when_no_leads || campaign.in_flight > 0) return;
  for (const status of OPEN_STATUSES) if (ctx.leads.countOwnKey('campaign_status', `${campaign.id}:${status}`) > 0) return;
  setCampaignStatus(ctx, campaign, 'completed', null);
}

/**
 * The dial event: queue new leads, then dial scheduled leads while a slot is free,
 * the window is open, the balance covers a call and a caller number is left.
 */
export function dialCampaign(ctx: AccountCtx, payload: DialPayload, due?: Lead): void {
  let campaign = ctx.campaigns.get(payload.campaign_id);
  if (!campaign) return;
  // Whatever dial event was pending is superseded by this run.
  if (campaign.dial_event_id !== null) {
    ctx.cancel(campaign.dial_event_id);
    campaign = ctx.campaigns.update(campaign.id, { dial_event_id: null });
  }
  if (campaign.status !== 'in-progress') return;
  // decisions: Lead transitions: created -> scheduled when a started campaign queues it.
  for (const lead of ctx.leads.where('campaign_status', `${campaign.id}:created`)) setLeadStatus(ctx, lead, 'scheduled');

  const assistant = ctx.assistants.get(campaign.assistant_id);
  // A retry that fell due is dialed first, straight from `rescheduled` (decisions: Lead transitions).
  let preferred = due?.status === 'rescheduled' ? due : undefined;
  while (campaign.in_flight < campaign.max_calls_in_parallel) {
    const lead = preferred ?? ctx.leads.first('campaign_status', `${campaign.id}:scheduled`);
    if (!lead || !assistant) break;
    const now = ctx.now();
    const opens = nextWindowStart(now, campaign);
    if (opens === undefined) {
      campaign = idle(ctx, campaign, 'no_allowed_days');
      break;
    }
    if (opens > now) {
      // One event for the next window, no polling (ARCHITECTURE §4).
      const eventId = ctx.schedule<DialPayload>(opens, DIAL_EVENT, payload);
      idle(ctx, campaign, 'outside_window');
      campaign = ctx.campaigns.update(campaign.id, { dial_event_id: eventId });
      break;
    }
    if (ctx.account.balance_micros < worstCaseCost(ctx, assistant.max_duration)) {
      // decisions: Balance and dialing: the lead stays scheduled until the balance is raised.
      campaign = idle(ctx, campaign, 'insufficient_balance');
      break;
    }
    const caller = callerNumber(ctx, campaign, assistant.phone_number_id);
    if (caller === undefined) {
      campaign = idle(ctx, campaign, 'no_caller_number');
      break;
    }
    if (campaign.idle_reason !== null) campaign = ctx.campaigns.update(campaign.id, { idle_reason: null });
    dialLead(ctx, ctx.campaigns.get(campaign.id)!, lead, caller);
    preferred = undefined;
    campaign = ctx.campaigns.get(campaign.id)!;
  }
  // A due retry that could not be dialed now waits in the queue.
  if (preferred) setLeadStatus(ctx, preferred, 'scheduled');
  maybeComplete(ctx, campaign);
}

/**
 * What an ended campaign call means for its lead: the next secondary contact, a retry,
 * or the end (decisions: Lead transitions, Voicemail no retry; ARCHITECTURE §4 retry
 * rules). Then the freed slot is filled.
 */
export function campaignCallEnded(ctx: AccountCtx, call: Call): void {
  let campaign = call.campaign_id === null ? undefined : ctx.campaigns.get(call.campaign_id);
  if (campaign) campaign = ctx.campaigns.update(campaign.id, { in_flight: Math.max(0, campaign.in_flight - 1) });
  const lead = call.lead_id === null ? undefined : ctx.leads.get(call.lead_id);
  if (lead && campaign) settleLead(ctx, campaign, lead, call);
  if (campaign) dialCampaign(ctx, { account_id: ctx.account.id, campaign_id: campaign.id });
}

function settleLead(ctx: AccountCtx, campaign: Campaign, lead: Lead, call: Call): void {
  const human = call.answered_by === 'human';
  if (call.contact_id !== null) ctx.secondaryContacts.update(call.contact_id, { status: human ? 'completed' : 'created', updated_at: ctx.now() });
  const contacts = ctx.secondaryContacts.where('lead', lead.id);
  const nextContact = lead.chain + 1;
  if (!human && nextContact < contacts.length) {
    // decisions: secondary contacts are dialed, in order, when the primary's attempt is not answered by a human.
    setLeadStatus(ctx, lead, 'scheduled', { chain: nextContact });
    return;
  }
  const attempts = lead.attempts + 1;
  const goal = campaign.goal_completion_variable;
  let retry: boolean;
  if (human) retry = goal !== null && campaign.retry_on_goal_incomplete && call.variables[goal] !== true;
  else if (call.answered_by === 'machine') retry = campaign.retry_on_voicemail;
  else retry = true;
  if (!retry) {
    setLeadStatus(ctx, lead, 'completed', { attempts, chain: -1 });
    return;
  }
  if (attempts > campaign.max_retries) {
    setLeadStatus(ctx, lead, 'reached-max-retries', { attempts, chain: -1 });
    return;
  }
  const at = ctx.now() + campaign.retry_interval * 60_000;
  const eventId = ctx.schedule<LeadRetryPayload>(at, LEAD_RETRY_EVENT, { account_id: ctx.account.id, lead_id: lead.id });
  setLeadStatus(ctx, lead, 'rescheduled', { attempts, chain: -1, next_attempt_at: at, retry_event_id: eventId });
}

/**
 * A retry is due: dialed at once (`rescheduled` -> `processing`) when the campaign runs
 * and can dial; otherwise it waits `scheduled` (a stopped campaign dials it when restarted).
 */
export function retryLead(ctx: AccountCtx, payload: LeadRetryPayload): void {
  const found = ctx.leads.get(payload.lead_id);
  if (!found || found.status !== 'rescheduled') return;
  const lead = ctx.leads.update(found.id, { next_attempt_at: null, retry_event_id: null });
  const campaign = ctx.campaigns.get(lead.campaign_id);
  if (campaign?.status === 'in-progress') dialCampaign(ctx, { account_id: ctx.account.id, campaign_id: campaign.id }, lead);
  else setLeadStatus(ctx, lead, 'scheduled');
}
