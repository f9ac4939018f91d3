/**
 * The writes every lead rule goes through: a change of a lead (with its `lead.status`
 * event when the status moves), the dialer's transitions (the same, written in place),
 * and a lead's removal (its pending retry cancelled, its secondary contacts removed). The
 * dialer, the lead routes and campaign deletion all use them.
 */
import { simEventShape } from '../sim-events.js';
import type { AccountCtx } from '../context.js';
import type { Lead, LeadStatus } from './schema.js';

/** A lead's new status on `sim.events`. */
const LEAD_STATUS_EVENT = simEventShape('lead.status', ['account_id', 'lead_id', 'campaign_id', 'status']);

/**
 * Updates a lead, stamping `updated_at` into `patch` (give a literal of its own); a new
 * status is emitted on `sim.events` (`lead.status`).
 * @example changeLead(ctx, lead, { status: 'scheduled' })
 */
export function changeLead(ctx: AccountCtx, lead: Lead, patch: Partial<Omit<Lead, 'id' | 'account_id'>>): Lead {
  // Rows are updated in place: read the old status first.
  const before = lead.status;
  // The caller's patch is a literal of its own: stamped in place rather than copied.
  patch.updated_at = ctx.now();
  const updated = ctx.leads.update(lead.id, patch);
  if (updated.status !== before) ctx.emitValues(LEAD_STATUS_EVENT, ctx.account.id, lead.id, updated.campaign_id, updated.status);
  return updated;
}

/** The fields the dialer's transitions write (`Table.changing`). */
const DIAL_FIELDS = ['status', 'attempts', 'chain', 'next_attempt_at', 'retry_event_id', 'updated_at'] as const satisfies readonly (keyof Lead)[];

/**
 * A transition of the dialer, written in place (the same change as `changeLead` with a
 * patch of these fields, without a patch's generic writes): the lead moves to `status`
 * with its finished attempts, the number it dials next and its pending retry as given.
 * @example moveLead(ctx, lead, 'rescheduled', lead.attempts + 1, -1, at, eventId)
 */
export function moveLead(ctx: AccountCtx, lead: Lead, status: LeadStatus, attempts: number, chain: number, nextAttemptAt: number | null, retryEventId: number | null): void {
  const before = lead.status;
  const moving = ctx.leads.changing(lead, DIAL_FIELDS);
  lead.status = status;
  lead.attempts = attempts;
  lead.chain = chain;
  lead.next_attempt_at = nextAttemptAt;
  lead.retry_event_id = retryEventId;
  lead.updated_at = ctx.now();
  ctx.leads.changed(lead, moving);
  if (status !== before) ctx.emitValues(LEAD_STATUS_EVENT, ctx.account.id, lead.id, lead.campaign_id, status);
}

/** `moveLead` to `status`, the rest as it is. */
export function setLeadStatus(ctx: AccountCtx, lead: Lead, status: LeadStatus): void {
  moveLead(ctx, lead, status, lead.attempts, lead.chain, lead.next_attempt_at, lead.retry_event_id);
}

/** Removes a lead with its secondary contacts; a pending retry is cancelled (decisions: Delete lead, Delete campaign). */
export function removeLead(ctx: AccountCtx, lead: Lead): void {
  if (lead.retry_event_id !== null) ctx.cancel(lead.retry_event_id);
  for (const contact of ctx.secondaryContacts.where('lead', lead.id)) ctx.secondaryContacts.delete(contact.id);
  ctx.leads.delete(lead.id);
}
