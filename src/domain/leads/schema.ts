/** Leads (spec: Lead; List leads, Update lead; decisions: Create lead, Delete lead). */
import * as z from 'zod';
import { integer, jsonObject, sqlTimestamp } from '../../core/answers.js';
import { copyJson } from '../../core/json.js';
import { pageQuery } from '../../core/pagination.js';
import { formatSqlUtc, isCalendarDate } from '../../core/time.js';
import { RULE_MESSAGES, freeObject, int, oneOf, queryInt } from '../../core/validation.js';
import { lazySchema, once } from '../../core/lazy-schema.js';

export const LEAD_STATUSES = ['created', 'scheduled', 'processing', 'completed', 'rescheduled', 'reached-max-retries', 'blacklisted'] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];
/** Each status's place in LEAD_STATUSES (a lookup instead of a search on every lead transition). */
const STATUS_PLACES: ReadonlyMap<string, number> = new Map(LEAD_STATUSES.map((status, i) => [status, i]));
/**
 * The integer key of a campaign's leads in one status (the `campaign_status` index): the
 * dialer reads and re-keys it on every lead transition, and an integer hashes cheaper
 * than a joined string.
 * @example campaignStatusKey(3, 'scheduled') // 25
 */
export function campaignStatusKey(campaignId: number, status: LeadStatus): number {
  return campaignId * 8 + (STATUS_PLACES.get(status) ?? -1);
}

/**
 * Leads the dialer will still call (ARCHITECTURE §4: blacklisted, completed and
 * reached-max-retries leads are never dialed; processing ones are being dialed now).
 */
export const DIALABLE_LEAD_STATUSES: readonly LeadStatus[] = ['created', 'scheduled', 'rescheduled'];
/** The only statuses a client may set (spec: States > Lead). */
export const CLIENT_LEAD_STATUSES = ['created', 'completed', 'reached-max-retries'] as const;

/** A further number of a lead, dialed in order when the primary is not reached (decisions: Lead transitions). */
export interface SecondaryContact {
  id: number;
  account_id: number;
  lead_id: number;
  position: number;
  phone_number: string;
  variables: Record<string, unknown>;
  status: LeadStatus;
  created_at: number;
  updated_at: number;
}

export interface Lead {
  id: number;
  account_id: number;
  campaign_id: number;
  phone_number: string;
  variables: Record<string, unknown>;
  status: LeadStatus;
  /** Finished dial attempts (each may have dialed secondary contacts too). */
  attempts: number;
  /** Which number the current attempt dials next: -1 the primary, else a secondary contact's position. */
  chain: number;
  /** The pending retry's time and clock event while `rescheduled`. */
  next_attempt_at: number | null;
  retry_event_id: number | null;
  created_at: number;
  updated_at: number;
}

const phoneText = () => z.string().min(1).max(64, { error: RULE_MESSAGES.maxString.replace(':max', '64') });

export const CreateLeadBody = lazySchema(() => z.object({
  campaign_id: int(),
  phone_number: phoneText(),
  variables: freeObject().optional(),
  allow_dupplicate: z.boolean().optional(),
  secondary_contacts: z.array(z.object({ phone_number: phoneText(), variables: freeObject().optional() })).optional(),
}));
export type CreateLeadInput = z.infer<typeof CreateLeadBody>;

export const UpdateLeadBody = lazySchema(() => z.object({
  campaign_id: int().optional(),
  phone_number: phoneText().optional(),
  status: oneOf(LEAD_STATUSES).optional(),
  variables: freeObject().optional(),
}));
export type UpdateLeadInput = z.infer<typeof UpdateLeadBody>;

const calendarDate = () => z.string().refine(isCalendarDate, { error: RULE_MESSAGES.dateFormat.replace(':value', 'Y-m-d') });

/** Date filters shared by the list routes (decisions: Dates in filters). */
export const dateFilters = once(() => ({
  date_from: calendarDate().optional(),
  date_to: calendarDate().optional(),
}));

/** `date_to` may not come before `date_from`. */
export function datesInOrder(q: { date_from?: string | undefined; date_to?: string | undefined }): boolean {
  return q.date_from === undefined || q.date_to === undefined || q.date_to >= q.date_from;
}
export const DATES_ORDER_ERROR = { error: 'The date to must be a date after or equal to date from.', path: ['date_to'] };

export const LeadListQuery = lazySchema(() => pageQuery(15)
  .extend({
    status: oneOf(LEAD_STATUSES).optional(),
    campaign_id: queryInt().pipe(int()).optional(),
    phone_number: z.string().max(64, { error: RULE_MESSAGES.maxString.replace(':max', '64') }).optional(),
    ...dateFilters(),
  })
  .refine(datesInOrder, DATES_ORDER_ERROR));
export type LeadListQuery = z.infer<typeof LeadListQuery>;

/** A secondary contact as its lead shows it. */
const SecondaryContactRecord = lazySchema(() => z.object({
  id: integer(),
  phone_number: z.string(),
  variables: jsonObject(),
  status: z.enum(LEAD_STATUSES),
  created_at: sqlTimestamp(),
  updated_at: sqlTimestamp(),
}));

/** A lead with its campaign (`{id, name}`) and secondary contacts (spec: Lead). */
export const LeadRecord = lazySchema(() => z
  .object({
    id: integer(),
    campaign_id: integer(),
    phone_number: z.string(),
    variables: jsonObject(),
    status: z.enum(LEAD_STATUSES),
    created_at: sqlTimestamp(),
    updated_at: sqlTimestamp(),
    campaign: z.object({ id: integer(), name: z.string() }),
    secondary_contacts: z.array(SecondaryContactRecord),
  })
  .meta({ id: 'Lead' }));
export type LeadRecord = z.output<typeof LeadRecord>;

function serialiseContact(c: SecondaryContact): z.output<typeof SecondaryContactRecord> {
  return {
    id: c.id,
    phone_number: c.phone_number,
    variables: copyJson(c.variables),
    status: c.status,
    created_at: formatSqlUtc(c.created_at),
    updated_at: formatSqlUtc(c.updated_at),
  };
}

/** A lead with its campaign (`{id, name}`) and secondary contacts (spec: Lead). */
export function serialiseLead(l: Lead, campaign: { id: number; name: string }, contacts: SecondaryContact[]): LeadRecord {
  return {
    id: l.id,
    campaign_id: l.campaign_id,
    phone_number: l.phone_number,
    variables: copyJson(l.variables),
    status: l.status,
    created_at: formatSqlUtc(l.created_at),
    updated_at: formatSqlUtc(l.updated_at),
    campaign: { id: campaign.id, name: campaign.name },
    secondary_contacts: contacts.map(serialiseContact),
  };
}
