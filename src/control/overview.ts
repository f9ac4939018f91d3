/**
 * `GET /__sim/overview`: what the dashboard shows, aggregated in one read that changes
 * nothing. Counts come from the tables' indexes and lists are the latest few rows, so
 * the answer stays small and quick however many leads a campaign holds (a 100k-lead
 * campaign is a handful of numbers here, never 100k rows).
 */
import * as z from 'zod';
import { controlTimestamp, integer } from '../core/answers.js';
import { fromMicros } from '../core/money.js';
import type { Table } from '../core/store.js';
import { formatControlTime } from '../core/time.js';
import { AccountRecord, type Account } from '../domain/accounts/schema.js';
import { ANSWERED_BY, CALL_STATUSES, CALL_TYPES, type Call } from '../domain/calls/schema.js';
import { CAMPAIGN_STATUSES, DAYS, type Campaign } from '../domain/campaigns/schema.js';
import { OUTCOME_NAMES } from '../engine/outcomes.js';
import { isInWindow, nextWindowStart } from '../domain/campaigns/windows.js';
import { campaignStatusKey, LEAD_STATUSES, type LeadStatus } from '../domain/leads/schema.js';
import type { Session } from '../domain/msgapp/schema.js';
import type { SimState } from '../domain/state.js';
import type { JournalRecord } from '../state/journal.js';
import { ClockRecord, DeliveryRecord, RequestRecord, serialiseClock, serialiseDelivery } from './schema.js';
import { lazySchema } from '../core/lazy-schema.js';

/** How many rows each list of the overview holds by default (`?limit`, 1 to 200). */
export const OVERVIEW_DEFAULT_LIMIT = 25;
/** Accounts and campaigns are listed whole up to this many (the newest first beyond it). */
const MAX_LISTED = 200;

/** What the overview reads besides the state: the request journal with error texts. */
export interface OverviewSource extends SimState {
  recentRequests(limit: number): JournalRecord[];
}

/** The newest `limit` rows of a table, newest first, without copying the table. */
function newest<T extends { id: number }>(table: Table<T>, limit: number, keep?: (row: T) => boolean): T[] {
  const out: T[] = [];
  for (let id = table.nextId - 1; id >= 1 && out.length < limit; id--) {
    const row = table.get(id);
    if (row && (!keep || keep(row))) out.push(row);
  }
  return out;
}

/** `GET /__sim/overview` (`overview`): the dashboard's aggregate. */
export const OverviewRecord = lazySchema(() => z
  .object({
    clock: ClockRecord,
    events: z.object({ latest_seq: integer(), capacity: integer() }),
    accounts: z.object({
      total: integer(),
      data: z.array(AccountRecord.unwrap().pick({ id: true, name: true, balance: true, has_payment_method: true, timezone: true, plan: true })),
    }),
    campaigns: z.object({
      total: integer(),
      data: z.array(
        z.object({
          id: integer(),
          account_id: integer(),
          name: z.string(),
          status: z.enum(CAMPAIGN_STATUSES),
          idle_reason: z.string().nullable(),
          leads: z.record(z.enum(LEAD_STATUSES), integer()),
          leads_total: integer(),
          in_flight: integer(),
          max_calls_in_parallel: integer(),
          window: z.object({
            open: z.boolean(),
            next_open_at: controlTimestamp().nullable(),
            timezone: z.string(),
            days: z.array(z.enum(DAYS)),
            start: z.string(),
            end: z.string(),
          }),
        }),
      ),
    }),
    calls: z.object({
      total: integer(),
      latest: z.array(
        z.object({
          id: integer(),
          account_id: integer(),
          campaign_id: integer().nullable(),
          campaign_name: z.string().nullable(),
          type: z.enum(CALL_TYPES),
          client_phone_number: z.string(),
          status: z.enum(CALL_STATUSES),
          outcome: z.enum(OUTCOME_NAMES).nullable(),
          answered_by: z.enum(ANSWERED_BY),
          duration: integer(),
          total_cost: z.number(),
          created_at: controlTimestamp(),
          ended_at: controlTimestamp().nullable(),
        }),
      ),
    }),
    deliveries: z.object({ total: integer(), pending: integer(), failed: integer(), evicted: integer(), latest: z.array(DeliveryRecord.unwrap().omit({ payload: true })) }),
    sessions: z.object({
      total: integer(),
      open: integer(),
      latest: z.array(
        z.object({
          id: integer(),
          account_id: integer(),
          sender_id: integer(),
          recipient_phone: z.string(),
          is_open: z.boolean(),
          expires_at: controlTimestamp().nullable(),
          last_customer_message_at: controlTimestamp().nullable(),
        }),
      ),
    }),
    requests: z.object({ latest: z.array(RequestRecord.unwrap().extend({ error: z.string().nullable() })) }),
  })
  .meta({ id: 'Overview' }));
export type OverviewRecord = z.output<typeof OverviewRecord>;

const iso = (ms: number | null) => (ms === null ? null : formatControlTime(ms));

function accountLine(a: Account) {
  return { id: a.id, name: a.name, balance: fromMicros(a.balance_micros), has_payment_method: a.has_payment_method, timezone: a.timezone, plan: { ...a.plan } };
}

function campaignLine(state: SimState, c: Campaign, now: number) {
  // Every status is a key (Object.fromEntries cannot say so to the compiler).
  const leads = Object.fromEntries(LEAD_STATUSES.map((status) => [status, state.db.leads.count('campaign_status', campaignStatusKey(c.id, status))])) as Record<LeadStatus, number>;
  const opens = nextWindowStart(now, c);
  return {
    id: c.id,
    account_id: c.account_id,
    name: c.name,
    status: c.status,
    idle_reason: c.idle_reason,
    leads,
    leads_total: state.db.leads.count('campaign', c.id),
    in_flight: c.in_flight,
    max_calls_in_parallel: c.max_calls_in_parallel,
    window: {
      open: isInWindow(now, c),
      next_open_at: opens === undefined ? null : formatControlTime(opens),
      timezone: c.timezone,
      days: [...c.allowed_days],
      start: c.allowed_hours_start_time,
      end: c.allowed_hours_end_time,
    },
  };
}

function callLine(c: Call) {
  return {
    id: c.id,
    account_id: c.account_id,
    campaign_id: c.campaign_id,
    campaign_name: c.campaign_name,
    type: c.type,
    client_phone_number: c.client_phone_number,
    status: c.status,
    outcome: c.plan?.kind ?? null,
    answered_by: c.answered_by,
    duration: c.duration,
    total_cost: fromMicros(c.total_cost_micros),
    created_at: formatControlTime(c.created_at),
    ended_at: iso(c.ended_at),
  };
}

function sessionLine(s: Session, now: number) {
  return {
    id: s.id,
    account_id: s.account_id,
    sender_id: s.sender_id,
    recipient_phone: s.recipient_phone,
    is_open: s.expires_at !== null && now < s.expires_at,
    expires_at: iso(s.expires_at),
    last_customer_message_at: iso(s.last_customer_message_at),
  };
}

/**
 * The dashboard's aggregate of the whole simulator, `limit` rows per list.
 * @example overview(sim, 25).campaigns[0].leads // { created: 0, scheduled: 99980, processing: 10, completed: 10, ... }
 */
export function overview(source: OverviewSource, limit: number = OVERVIEW_DEFAULT_LIMIT): OverviewRecord {
  const { db, clock, webhooks, events } = source;
  const now = clock.now();
  let openSessions = 0;
  for (const s of db.sessions.all()) if (s.expires_at !== null && now < s.expires_at) openSessions++;
  return {
    clock: serialiseClock(clock),
    events: { latest_seq: events.count, capacity: events.capacity },
    accounts: { total: db.accounts.size, data: newest(db.accounts, MAX_LISTED).reverse().map(accountLine) },
    campaigns: { total: db.campaigns.size, data: newest(db.campaigns, MAX_LISTED).reverse().map((c) => campaignLine(source, c, now)) },
    calls: { total: db.calls.size, latest: newest(db.calls, limit).map(callLine) },
    deliveries: {
      ...webhooks.counts(),
      evicted: webhooks.evicted,
      latest: webhooks
        .latest(limit)
        .reverse()
        .map((d) => {
          const { payload: _payload, ...rest } = serialiseDelivery(d);
          return rest;
        }),
    },
    sessions: { total: db.sessions.size, open: openSessions, latest: newest(db.sessions, limit).map((s) => sessionLine(s, now)) },
    requests: {
      latest: source
        .recentRequests(limit)
        .reverse()
        .map((r) => ({ ...r, at: formatControlTime(r.at) })),
    },
  };
}
