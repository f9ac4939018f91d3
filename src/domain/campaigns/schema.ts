/** Campaigns (spec: Campaign; decisions: Campaign states, List campaigns, Delete campaign). */
import * as z from 'zod';
import { integer, isoTimestamp } from '../../core/answers.js';
import { formatIsoUtc, isTimezone } from '../../core/time.js';
import { RULE_MESSAGES, int, oneOf, str } from '../../core/validation.js';
import { lazySchema } from '../../core/lazy-schema.js';

export const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Day = (typeof DAYS)[number];
export const CAMPAIGN_STATUSES = ['draft', 'in-progress', 'stopped', 'completed'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
/** Why a running campaign pauses dialing (the `campaign.idle` event; docs/events.md: Events). */
export const IDLE_REASONS = ['outside_window', 'insufficient_balance', 'no_caller_number', 'no_allowed_days'] as const;
export type IdleReason = (typeof IDLE_REASONS)[number];

export interface Campaign {
  id: number;
  account_id: number;
  name: string;
  assistant_id: number;
  timezone: string;
  max_calls_in_parallel: number;
  /** `HH:MM:SS` */
  allowed_hours_start_time: string;
  allowed_hours_end_time: string;
  allowed_days: Day[];
  max_retries: number;
  retry_interval: number;
  retry_on_voicemail: boolean;
  retry_on_goal_incomplete: boolean;
  goal_completion_variable: string | null;
  mark_complete_when_no_leads: boolean;
  phone_number_ids: number[];
  status: CampaignStatus;
  /** The pending dialer event while in progress. */
  dial_event_id: number | null;
  /** Calls of this campaign not yet ended. */
  in_flight: number;
  /** Round-robin position over the caller numbers. */
  rotation: number;
  /** Why dialing is paused while in progress, or null. */
  idle_reason: IdleReason | null;
  created_at: number;
  updated_at: number;
}

/** The minutes between a lead's attempts: the API's range, and a restored campaign's (state/rows.ts). */
export const RETRY_INTERVAL = { min: 10, max: 4320 } as const;

const HOUR_MINUTE = /^([01]\d|2[0-3]):[0-5]\d$/;
const hourMinute = () => z.string().regex(HOUR_MINUTE, { error: RULE_MESSAGES.dateFormat.replace(':value', 'H:i') });

/** `POST /user/campaign` (spec: Campaign table). */
export const CreateCampaignBody = lazySchema(() => z.object({
  name: str(255).min(1),
  assistant_id: int(),
  timezone: z.string().refine(isTimezone, { error: RULE_MESSAGES.timezone }).optional(),
  max_calls_in_parallel: int(1).optional(),
  allowed_hours_start_time: hourMinute().optional(),
  allowed_hours_end_time: hourMinute().optional(),
  allowed_days: z.array(oneOf(DAYS)).min(1, { error: RULE_MESSAGES.minArray.replace(':min', '1') }).optional(),
  max_retries: int(1, 5).optional(),
  retry_interval: int(RETRY_INTERVAL.min, RETRY_INTERVAL.max).optional(),
  retry_on_voicemail: z.boolean().optional(),
  retry_on_goal_incomplete: z.boolean().optional(),
  goal_completion_variable: str(255).min(1).nullable().optional(),
  mark_complete_when_no_leads: z.boolean().optional(),
  phone_number_ids: z.array(int()).optional(),
}));
export type CreateCampaignInput = z.infer<typeof CreateCampaignBody>;

/** `POST /user/campaigns/update-status`. */
export const UpdateStatusBody = lazySchema(() => z.object({ campaign_id: int(), action: oneOf(['start', 'stop']) }));

/** `H:i` input is stored and returned as `H:i:s` (spec: Campaign table). */
export function withSeconds(hhmm: string): string {
  return `${hhmm}:00`;
}

/** The create response's fields, also used by the list (decisions: List campaigns). */
export const CampaignRecord = lazySchema(() => z
  .object({
    id: integer(),
    name: z.string(),
    status: z.enum(CAMPAIGN_STATUSES),
    max_calls_in_parallel: integer(),
    mark_complete_when_no_leads: z.boolean(),
    allowed_hours_start_time: z.string().regex(/^\d{2}:\d{2}:\d{2}$/),
    allowed_hours_end_time: z.string().regex(/^\d{2}:\d{2}:\d{2}$/),
    allowed_days: z.array(z.enum(DAYS)),
    max_retries: integer(),
    retry_interval: integer(),
    created_at: isoTimestamp(),
    updated_at: isoTimestamp(),
  })
  .meta({ id: 'Campaign' }));
export type CampaignRecord = z.output<typeof CampaignRecord>;

/** The update-status answer (spec: Update status). */
export const CampaignStatusChangeRecord = lazySchema(() => z
  .object({ message: z.string(), success: z.literal(true), data: z.object({ campaign_id: integer(), status: z.enum(CAMPAIGN_STATUSES) }) })
  .meta({ id: 'CampaignStatusChange' }));
export type CampaignStatusChangeRecord = z.output<typeof CampaignStatusChangeRecord>;

/** The create response's fields, also used by the list (decisions: List campaigns). */
export function serialiseCampaign(c: Campaign): CampaignRecord {
  return {
    id: c.id,
    name: c.name,
    status: c.status,
    max_calls_in_parallel: c.max_calls_in_parallel,
    mark_complete_when_no_leads: c.mark_complete_when_no_leads,
    allowed_hours_start_time: c.allowed_hours_start_time,
    allowed_hours_end_time: c.allowed_hours_end_time,
    allowed_days: [...c.allowed_days],
    max_retries: c.max_retries,
    retry_interval: c.retry_interval,
    created_at: formatIsoUtc(c.created_at),
    updated_at: formatIsoUtc(c.updated_at),
  };
}

/** The update-status answer (spec: Update status). */
export function serialiseStatusChange(message: string, c: Campaign): CampaignStatusChangeRecord {
  return { message, success: true, data: { campaign_id: c.id, status: c.status } };
}
