/**
 * Leads (spec: Lead; List leads; Update lead; decisions: Create lead, Delete lead,
 * Dates in filters, Ids that point elsewhere).
 */
import { parsePhone, readE164, type CountryCode } from '../../core/phone.js';
import type { Wire } from '../../core/wire.js';
import { shapeA } from '../../core/errors.js';
import { texts } from '../../core/wire.js';
import { ErrorBag, attributeName } from '../../core/validation.js';
import type { Campaign } from '../campaigns/schema.js';
import { callerNumbers, requestDial } from '../campaigns/dialer.js';
import type { AccountCtx } from '../context.js';
import { changeLead, removeLead } from './records.js';
import { dateWindow, partialNumberFilter } from '../filters.js';
import { campaignStatusKey, CLIENT_LEAD_STATUSES, type CreateLeadInput, type Lead, type LeadListQuery, type SecondaryContact, type UpdateLeadInput } from './schema.js';

export const LEAD_MESSAGES = {
  // live-platform D.5: a pair is the specification's text and the live platform's.
  created: texts('Lead created successfully.', 'Lead created successfully'),
  updated: texts('Lead updated successfully.', 'Lead successfully updated'),
  deleted: texts('Lead deleted successfully.', 'Lead deleted successfully'),
  notFound: texts('Lead not found.', 'Lead not found'),
  invalidNumber: (attribute: string) => `The ${attribute} is not a valid phone number.`,
  duplicate: 'The phone number has already been added to this campaign.',
  statusNotSettable: 'The status may only be set to created, completed or reached-max-retries.',
} as const;

export const leadErrors = {
  notFound: () => shapeA(404, LEAD_MESSAGES.notFound),
};

/**
 * The country a national number is read in: the campaign's first caller number's
 * (callerNumbers), else US. Divergence: the platform does not say.
 */
export function defaultCountry(ctx: AccountCtx, campaign: Campaign): CountryCode {
  const [first] = callerNumbers(ctx, campaign, ctx.assistants.get(campaign.assistant_id));
  return (first?.country_code as CountryCode | undefined) ?? 'US';
}

/**
 * Reads national or messy input as E.164 (spec: Lead: input is formatted automatically).
 * A number must be possible for its country (see readE164), not necessarily assigned; on
 * the live wire a number of E.164's form passes as it is (live-platform G.3 item 2: the
 * reference's lead example is `+1234567890`).
 * @example normalisePhone('(415) 555-0123', 'US') // '+14155550123'
 */
export function normalisePhone(text: string, country: CountryCode, wire: Wire = 'spec'): string | undefined {
  const parsed = parsePhone(text.trim(), country);
  if (parsed?.isPossible()) return parsed.number;
  return wire === 'live' ? readE164(text, 'live')?.number : undefined;
}

function ownCampaign(ctx: AccountCtx, id: number, bag: ErrorBag): Campaign | undefined {
  const campaign = ctx.campaigns.get(id);
  if (!campaign) bag.rule('campaign_id', 'exists');
  return campaign;
}

function isDuplicate(ctx: AccountCtx, campaignId: number, phone: string, selfId?: number): boolean {
  return ctx.leads.where('number', phone).some((l) => l.campaign_id === campaignId && l.id !== selfId);
}

/**
 * Adds a lead, `created`, with its secondary contacts (decisions: Create lead).
 * @example createLead(ctx, { campaign_id: 1, phone_number: '415 555 0123' })
 */
export function createLead(ctx: AccountCtx, input: CreateLeadInput): Lead {
  const bag = new ErrorBag();
  const campaign = ownCampaign(ctx, input.campaign_id, bag);
  const country = campaign ? defaultCountry(ctx, campaign) : 'US';
  const phone = normalisePhone(input.phone_number, country, ctx.wire);
  if (!phone) bag.add('phone_number', LEAD_MESSAGES.invalidNumber('phone number'));
  else if (campaign && !input.allow_dupplicate && isDuplicate(ctx, campaign.id, phone)) bag.add('phone_number', LEAD_MESSAGES.duplicate);
  const contactNumbers = (input.secondary_contacts ?? []).map((contact, i) => {
    const normalised = normalisePhone(contact.phone_number, country, ctx.wire);
    if (!normalised) bag.add(`secondary_contacts.${i}.phone_number`, LEAD_MESSAGES.invalidNumber(attributeName(['secondary_contacts', i, 'phone_number'])));
    return normalised;
  });
  bag.throwIfAny();

  const now = ctx.now();
  // One object literal per lead (a campaign may hold a million): its fields in the order leads have always had.
  const lead = ctx.leads.insertRow((id, accountId) => ({
    id,
    campaign_id: campaign!.id,
    phone_number: phone!,
    variables: input.variables ?? {},
    status: 'created',
    attempts: 0,
    chain: -1,
    next_attempt_at: null,
    retry_event_id: null,
    created_at: now,
    updated_at: now,
    account_id: accountId,
  }));
  (input.secondary_contacts ?? []).forEach((contact, i) =>
    ctx.secondaryContacts.insert({ lead_id: lead.id, position: i, phone_number: contactNumbers[i]!, variables: contact.variables ?? {}, status: 'created', created_at: now, updated_at: now }),
  );
  // A lead added to a running campaign is queued at once.
  requestDial(ctx, campaign!);
  return lead;
}

/**
 * Leads matching every filter given, in id order (spec: List leads). The smallest
 * index that applies is read first; the other filters narrow it.
 */
export function listLeads(ctx: AccountCtx, q: LeadListQuery): Lead[] {
  const bag = new ErrorBag();
  if (q.campaign_id !== undefined) ownCampaign(ctx, q.campaign_id, bag);
  bag.throwIfAny();
  const [from, to] = dateWindow(q, ctx.account.timezone);
  const phone = q.phone_number === undefined ? undefined : partialNumberFilter(q.phone_number);
  const keep = (l: Lead) =>
    (q.status === undefined || l.status === q.status) && (phone === undefined || phone(l.phone_number)) && l.created_at >= from && l.created_at < to;
  if (q.campaign_id !== undefined && q.status !== undefined) return ctx.leads.where('campaign_status', campaignStatusKey(q.campaign_id, q.status), keep);
  if (q.campaign_id !== undefined) return ctx.leads.where('campaign', q.campaign_id, keep);
  // Status alone is filtered while scanning the account's leads: an index on it would be
  // re-keyed on every status change of a running campaign.
  return ctx.leads.list(keep);
}

export function findLead(ctx: AccountCtx, id: number): Lead {
  const lead = ctx.leads.get(id);
  if (!lead) throw leadErrors.notFound();
  return lead;
}

/** A lead's secondary contacts in dialing order. */
export function contactsOf(ctx: AccountCtx, lead: Lead): SecondaryContact[] {
  return ctx.secondaryContacts.where('lead', lead.id).sort((a, b) => a.position - b.position);
}

/**
 * Updates a lead: campaign move, number, a client-settable status, variables merged
 * (spec: Update lead).
 */
export function updateLead(ctx: AccountCtx, id: number, input: UpdateLeadInput): Lead {
  const lead = findLead(ctx, id);
  const bag = new ErrorBag();
  const campaign = input.campaign_id === undefined ? ctx.campaigns.get(lead.campaign_id) : ownCampaign(ctx, input.campaign_id, bag);
  if (input.status !== undefined && !(CLIENT_LEAD_STATUSES as readonly string[]).includes(input.status)) bag.add('status', LEAD_MESSAGES.statusNotSettable);
  let phone = lead.phone_number;
  if (input.phone_number !== undefined) {
    const normalised = campaign ? normalisePhone(input.phone_number, defaultCountry(ctx, campaign), ctx.wire) : undefined;
    if (!normalised) bag.add('phone_number', LEAD_MESSAGES.invalidNumber('phone number'));
    else phone = normalised;
  }
  if (campaign && (input.phone_number !== undefined || input.campaign_id !== undefined) && isDuplicate(ctx, campaign.id, phone, lead.id)) {
    bag.add('phone_number', LEAD_MESSAGES.duplicate);
  }
  bag.throwIfAny();
  // A status set by the client ends any pending retry; `created` starts the lead afresh.
  if (input.status !== undefined && lead.retry_event_id !== null) ctx.cancel(lead.retry_event_id);
  const updated = changeLead(ctx, lead, {
    campaign_id: campaign?.id ?? lead.campaign_id,
    phone_number: phone,
    ...(input.status !== undefined && { status: input.status, next_attempt_at: null, retry_event_id: null }),
    ...(input.status === 'created' && { attempts: 0, chain: -1 }),
    // Spread copies keys as own data properties, so a "__proto__" key stays plain data.
    variables: { ...lead.variables, ...input.variables },
  });
  // decisions: a lead set back to created through update is queued again.
  if (input.status === 'created' && campaign) requestDial(ctx, campaign);
  return updated;
}

/** Deletes a lead and its secondary contacts (decisions: Delete lead). */
export function deleteLead(ctx: AccountCtx, id: number): void {
  removeLead(ctx, findLead(ctx, id));
}
