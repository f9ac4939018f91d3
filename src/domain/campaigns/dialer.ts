/**
 * The campaign dialer (ARCHITECTURE §4 Campaign dialing; decisions: Lead transitions,
 * Campaign states, Balance and dialing, Voicemail no retry). A started campaign queues
 * its `created` leads as `scheduled` and keeps at most `max_calls_in_parallel` calls in
 * flight, inside its calling window; outside it, it sleeps until the window opens (one
 * clock event). Each attempt is one call; an attempt not answered by a human goes on
 * to the lead's secondary contacts in order. Retries come `retry_interval` minutes after
 * the attempt ended, at most `max_retries` of them.
 */
import type { Assistant } from '../assistants/schema.js';
import { coversOneCall } from '../calls/billing.js';
import { goalValue } from '../calls/evaluation.js';
import { groupStatusKey } from '../calls/groups.js';
import { abortCall, IN_FLIGHT_STATUSES, placeCall, sendPostCallWebhook } from '../calls/lifecycle.js';
import type { Call } from '../calls/schema.js';
import type { AccountCtx } from '../context.js';
import { moveLead, setLeadStatus } from '../leads/records.js';
import { campaignStatusKey, DIALABLE_LEAD_STATUSES, type Lead, type SecondaryContact } from '../leads/schema.js';
import type { PhoneNumber } from '../phone-numbers/schema.js';
import { usableNumber } from '../phone-numbers/service.js';
import type { Campaign, CampaignStatus, IdleReason } from './schema.js';
import { nextWindowStart } from './windows.js';

/** The dialer's event: queue new leads and dial while slots are free (ARCHITECTURE §4). */
export const DIAL_EVENT = 'campaign.dial';
export interface DialPayload {
  account_id: number;
  campaign_id: number;
}

/** A lead's retry falls due. */
export const LEAD_RETRY_EVENT = 'lead.retry';
export interface LeadRetryPayload {
  account_id: number;
  lead_id: number;
}

/** The fields a dial and an ended call write into the campaign, in place (`Table.changing`). */
const DIAL_FIELDS = ['rotation', 'in_flight'] as const satisfies readonly (keyof Campaign)[];
/** The fields a due retry clears in its lead. */
const RETRY_FIELDS = ['next_attempt_at', 'retry_event_id'] as const satisfies readonly (keyof Lead)[];

/** Moves a campaign to `status`, replacing its pending dial event; emits `campaign.status`. */
export function setCampaignStatus(ctx: AccountCtx, campaign: Campaign, status: CampaignStatus, dialEventId: number | null): Campaign {
  if (campaign.dial_event_id !== null) ctx.cancel(campaign.dial_event_id);
  // Rows are updated in place: read the old status first.
  const before = campaign.status;
  const updated = ctx.campaigns.update(campaign.id, { status, dial_event_id: dialEventId, idle_reason: null, updated_at: ctx.now() });
  if (status !== before) ctx.emit('campaign.status', { campaign_id: campaign.id, status });
  return updated;
}

/** Schedules a dial event of the campaign now; answers its id. */
export function scheduleDial(ctx: AccountCtx, campaign: Campaign): number {
  return ctx.schedule<DialPayload>(ctx.now(), DIAL_EVENT, { account_id: ctx.account.id, campaign_id: campaign.id });
}

/** Wakes a running campaign's dialer now (new or re-queued leads, a raised balance). */
export function requestDial(ctx: AccountCtx, campaign: Campaign): void {
  if (campaign.status !== 'in-progress') return;
  if (campaign.dial_event_id !== null) ctx.cancel(campaign.dial_event_id);
  ctx.campaigns.update(campaign.id, { dial_event_id: scheduleDial(ctx, campaign) });
}

/**
 * The ids a campaign calls from, in rotation order: its `phone_number_ids`, else its
 * assistant's number (decisions: make_call; a campaign start needs a caller number).
 */
function callerIds(campaign: Campaign, assistant: Assistant | undefined): number[] {
  if (campaign.phone_number_ids.length > 0) return campaign.phone_number_ids;
  return assistant?.phone_number_id == null ? [] : [assistant.phone_number_id];
}

/**
 * The caller numbers a campaign can use now (usableNumber: a released number has left
 * service). The start check, the dialer's rotation and the country leads are read in
 * all use this list.
 */
export function callerNumbers(ctx: AccountCtx, campaign: Campaign, assistant: Assistant | undefined): PhoneNumber[] {
  return callerIds(campaign, assistant).flatMap((id) => usableNumber(ctx, id) ?? []);
}

/** Pauses dialing for a reason, once per reason (`campaign.idle` on the event stream). */
function idle(ctx: AccountCtx, campaign: Campaign, reason: IdleReason): Campaign {
  if (campaign.idle_reason === reason) return campaign;
  ctx.emit('campaign.idle', { campaign_id: campaign.id, reason });
  return ctx.campaigns.update(campaign.id, { idle_reason: reason });
}

/**
 * The caller number of the next dial and the rotation after it: the campaign's caller
 * ids in rotation, skipping those out of service.
 */
function nextCaller(ctx: AccountCtx, campaign: Campaign, assistant: Assistant): { number: string; rotation: number } | undefined {
  if (campaign.phone_number_ids.length === 0) {
    // The assistant's number alone (callerIds), without building a list of one per dial.
    const number = usableNumber(ctx, assistant.phone_number_id);
    return number && { number: number.phone_number, rotation: campaign.rotation + 1 };
  }
  const ids = campaign.phone_number_ids;
  for (let i = 0; i < ids.length; i++) {
    const number = usableNumber(ctx, ids[(campaign.rotation + i) % ids.length]!);
    if (number) return { number: number.phone_number, rotation: campaign.rotation + i + 1 };
  }
  return undefined;
}

/** The secondary contact the lead's current attempt dials, when it is not the primary. */
function targetContact(ctx: AccountCtx, lead: Lead): SecondaryContact | undefined {
  return lead.chain < 0 ? undefined : ctx.secondaryContacts.where('lead', lead.id).find((c) => c.position === lead.chain);
}

/** Places the call of a scheduled lead (`processing`) from `caller`, moving the rotation on, and takes a slot. */
function dialLead(ctx: AccountCtx, campaign: Campaign, assistant: Assistant, lead: Lead, caller: { number: string; rotation: number }): void {
  const contact = targetContact(ctx, lead);
  setLeadStatus(ctx, lead, 'processing');
  if (contact) ctx.secondaryContacts.update(contact.id, { status: 'processing', updated_at: ctx.now() });
  placeCall(ctx, {
    assistant,
    assistant_phone_number: caller.number,
    client_phone_number: contact ? contact.phone_number : lead.phone_number,
    type: 'outbound',
    campaign,
    lead_id: lead.id,
    contact_id: contact ? contact.id : null,
    input_variables: lead.variables,
    lead_variables: lead.variables,
  });
  const moving = ctx.campaigns.changing(campaign, DIAL_FIELDS);
  campaign.rotation = caller.rotation;
  campaign.in_flight++;
  ctx.campaigns.changed(campaign, moving);
}

/** Completes a running campaign with nothing left to dial, when `mark_complete_when_no_leads`. */
function maybeComplete(ctx: AccountCtx, campaign: Campaign): void {
  if (campaign.status !== 'in-progress' || !campaign.mark_complete_when_no_leads || campaign.in_flight > 0) return;
  for (const status of [...DIALABLE_LEAD_STATUSES, 'processing' as const]) if (ctx.leads.countOwnKey('campaign_status', campaignStatusKey(campaign.id, status)) > 0) return;
  setCampaignStatus(ctx, campaign, 'completed', null);
}

/**
 * The dial event: queue new leads, then dial scheduled leads while a slot is free,
 * the window is open, the balance covers a call and a caller number is left.
 */
export function dialCampaign(ctx: AccountCtx, payload: DialPayload, due?: Lead): void {
  const campaign = ctx.campaigns.get(payload.campaign_id);
  if (campaign) dialRow(ctx, campaign, payload, due);
}

/**
 * `dialCampaign` for a campaign row already read (an ended call, a due retry, read once
 * per event); `payload` is the event's, reused for the next window's dial, else made then.
 */
function dialRow(ctx: AccountCtx, campaign: Campaign, payload: DialPayload | undefined, due?: Lead): void {
  // Whatever dial event was pending is superseded by this run.
  if (campaign.dial_event_id !== null) {
    ctx.cancel(campaign.dial_event_id);
    campaign = ctx.campaigns.update(campaign.id, { dial_event_id: null });
  }
  if (campaign.status !== 'in-progress') return;
  // decisions: Lead transitions: created -> scheduled when a started campaign queues it.
  const created = campaignStatusKey(campaign.id, 'created');
  if (ctx.leads.countOwnKey('campaign_status', created) > 0) for (const lead of ctx.leads.where('campaign_status', created)) setLeadStatus(ctx, lead, 'scheduled');

  const assistant = ctx.assistants.get(campaign.assistant_id);
  // A retry that fell due is dialed first, straight from `rescheduled` (decisions: Lead transitions).
  let preferred = due?.status === 'rescheduled' ? due : undefined;
  // The campaign's id does not change while it dials: its queue's key is worked out once.
  const scheduled = campaignStatusKey(campaign.id, 'scheduled');
  while (campaign.in_flight < campaign.max_calls_in_parallel) {
    const lead = preferred ?? ctx.leads.first('campaign_status', scheduled);
    if (!lead || !assistant) break;
    const now = ctx.now();
    const opens = nextWindowStart(now, campaign);
    if (opens === undefined) {
      campaign = idle(ctx, campaign, 'no_allowed_days');
      break;
    }
    if (opens > now) {
      // One event for the next window, no polling (ARCHITECTURE §4).
      const eventId = ctx.schedule<DialPayload>(opens, DIAL_EVENT, payload ?? { account_id: ctx.account.id, campaign_id: campaign.id });
      idle(ctx, campaign, 'outside_window');
      campaign = ctx.campaigns.update(campaign.id, { dial_event_id: eventId });
      break;
    }
    if (!coversOneCall(ctx.account, assistant.max_duration)) {
      // decisions: Balance and dialing: the lead stays scheduled until the balance is raised.
      campaign = idle(ctx, campaign, 'insufficient_balance');
      break;
    }
    const caller = nextCaller(ctx, campaign, assistant);
    if (caller === undefined) {
      campaign = idle(ctx, campaign, 'no_caller_number');
      break;
    }
    if (campaign.idle_reason !== null) campaign = ctx.campaigns.update(campaign.id, { idle_reason: null });
    // Rows are updated in place: `campaign` is the row, current after each dial.
    dialLead(ctx, campaign, assistant, lead, caller);
    preferred = undefined;
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
  const campaign = call.campaign_id === null ? undefined : ctx.campaigns.get(call.campaign_id);
  if (campaign) {
    const moving = ctx.campaigns.changing(campaign, DIAL_FIELDS);
    campaign.in_flight = Math.max(0, campaign.in_flight - 1);
    ctx.campaigns.changed(campaign, moving);
  }
  const lead = call.lead_id === null ? undefined : ctx.leads.get(call.lead_id);
  if (lead && campaign) settleLead(ctx, campaign, lead, call);
  // The row read above is the campaign's (rows change in place): dialed without reading it again.
  if (campaign) dialRow(ctx, campaign, undefined);
}

function settleLead(ctx: AccountCtx, campaign: Campaign, lead: Lead, call: Call): void {
  const human = call.answered_by === 'human';
  // The contact may be gone (a restored call of a contact that is no longer there): read as gone, as a call's lead is.
  const contact = call.contact_id === null ? undefined : ctx.secondaryContacts.get(call.contact_id);
  if (contact) ctx.secondaryContacts.update(contact.id, { status: human ? 'completed' : 'created', updated_at: ctx.now() });
  // The lead's contacts are its account's: counted by their own key, without listing them.
  const contacts = ctx.secondaryContacts.countOwnKey('lead', lead.id);
  const nextContact = lead.chain + 1;
  if (!human && nextContact < contacts) {
    // decisions: secondary contacts are dialed, in order, when the primary's attempt is not answered by a human.
    moveLead(ctx, lead, 'scheduled', lead.attempts, nextContact, lead.next_attempt_at, lead.retry_event_id);
    return;
  }
  const attempts = lead.attempts + 1;
  const goal = campaign.goal_completion_variable;
  let retry: boolean;
  // live-platform H.1: the goal variable may be the built-in `status`, read from the call's facts unless stored.
  if (human) retry = goal !== null && campaign.retry_on_goal_incomplete && goalValue(call, goal) !== true;
  else if (call.answered_by === 'machine') retry = campaign.retry_on_voicemail;
  else retry = true;
  if (!retry) {
    moveLead(ctx, lead, 'completed', attempts, -1, lead.next_attempt_at, lead.retry_event_id);
    return;
  }
  if (attempts > campaign.max_retries) {
    moveLead(ctx, lead, 'reached-max-retries', attempts, -1, lead.next_attempt_at, lead.retry_event_id);
    return;
  }
  const at = ctx.now() + campaign.retry_interval * 60_000;
  const eventId = ctx.schedule<LeadRetryPayload>(at, LEAD_RETRY_EVENT, { account_id: ctx.account.id, lead_id: lead.id });
  moveLead(ctx, lead, 'rescheduled', attempts, -1, at, eventId);
}

/**
 * A retry is due: dialed at once (`rescheduled` -> `processing`) when the campaign runs
 * and can dial; otherwise it waits `scheduled` (a stopped campaign dials it when restarted).
 */
export function retryLead(ctx: AccountCtx, payload: LeadRetryPayload): void {
  const lead = ctx.leads.get(payload.lead_id);
  if (!lead || lead.status !== 'rescheduled') return;
  const moving = ctx.leads.changing(lead, RETRY_FIELDS);
  lead.next_attempt_at = null;
  lead.retry_event_id = null;
  ctx.leads.changed(lead, moving);
  const campaign = ctx.campaigns.get(lead.campaign_id);
  if (campaign?.status === 'in-progress') dialRow(ctx, campaign, undefined, lead);
  else setLeadStatus(ctx, lead, 'scheduled');
}

/**
 * A stop aborts the campaign's calls in flight (live-platform H.9): each ends at once
 * (`abortCall`), frees its slot, and its lead counts the attempt and goes back to
 * `created` (decision), so a restart dials it again; a secondary contact being dialed
 * goes back to `created` too. Then the post-call webhook goes out per the assistant's
 * settings, as for any ended call. Nothing is dialed: the campaign is no longer running.
 */
export function abortCampaignCalls(ctx: AccountCtx, campaign: Campaign): void {
  if (campaign.in_flight === 0) return;
  const inFlight: Call[] = [];
  for (const group of ctx.callGroups()) {
    if (group.campaign_id !== campaign.id) continue;
    for (const status of IN_FLIGHT_STATUSES) inFlight.push(...ctx.calls.where('group_status', groupStatusKey(group.id, status)));
  }
  // In the order they were placed: their events and webhooks follow one another as the calls did.
  inFlight.sort((a, b) => a.id - b.id);
  for (const call of inFlight) {
    const ended = abortCall(ctx, call);
    if (!ended) continue;
    const moving = ctx.campaigns.changing(campaign, DIAL_FIELDS);
    campaign.in_flight = Math.max(0, campaign.in_flight - 1);
    ctx.campaigns.changed(campaign, moving);
    const lead = ended.lead_id === null ? undefined : ctx.leads.get(ended.lead_id);
    const contact = ended.contact_id === null ? undefined : ctx.secondaryContacts.get(ended.contact_id);
    if (contact) ctx.secondaryContacts.update(contact.id, { status: 'created', updated_at: ctx.now() });
    if (lead) moveLead(ctx, lead, 'created', lead.attempts + 1, -1, lead.next_attempt_at, lead.retry_event_id);
    sendPostCallWebhook(ctx, ended);
  }
}
