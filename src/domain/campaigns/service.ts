/**
 * Campaign rules (spec: Campaign; States > Campaign; decisions: Campaign states, Plan,
 * Balance and dialing, Delete campaign).
 */
import { shapeA, SimError } from '../../core/errors.js';
import { texts, type Texts } from '../../core/wire.js';
import { ErrorBag } from '../../core/validation.js';
import { canStartCampaign } from '../calls/billing.js';
import type { AccountCtx } from '../context.js';
import { removeLead } from '../leads/records.js';
import { DIALABLE_LEAD_STATUSES } from '../leads/schema.js';
import { usableNumber } from '../phone-numbers/service.js';
import { isGoalVariable } from '../assistants/evaluation.js';
import { abortCampaignCalls, callerNumbers, requestDial, scheduleDial, setCampaignStatus } from './dialer.js';
import { DAYS, withSeconds, type Campaign, type CreateCampaignInput } from './schema.js';


export const CAMPAIGN_MESSAGES = {
  // live-platform D.5 and A: a pair is the specification's text and the live platform's.
  created: texts('Campaign created successfully.', 'Campaign created successfully'),
  deleted: texts('Campaign deleted successfully.', 'Campaign deleted successfully'),
  started: 'Campaign started successfully.',
  stopped: 'Campaign stopped successfully.',
  notFound: texts('Campaign not found.', 'Campaign not found'),
  assistantNotFound: 'Assistant not found or not an outbound assistant.',
  // live-platform D.5: the live text names no number.
  planLimit: (max: number) => texts(`You have reached the maximum number of campaigns allowed by your plan (${max}).`, 'You have reached the maximum number of campaigns allowed by your plan.'),
  alreadyRunning: 'Campaign is already in progress.',
  notRunning: 'Campaign is not running.',
  noLeads: 'Campaign has no leads. Add leads before starting it.',
  nothingToDial: 'Campaign has no leads left to dial.',
  assistantGone: "The campaign's assistant no longer exists.",
  noCallerNumber: 'The campaign has no phone number to call from. Add phone_number_ids or assign a phone number to the assistant.',
  insufficientBalance: 'Insufficient balance to start the campaign. Please top up your account.',
  endBeforeStart: 'The allowed hours end time must be a time after allowed hours start time.',
  goalVariable: "The goal completion variable must name a bool variable of the assistant's post-call schema.",
} as const;

/** Refusals of update-status: `{message, success: false}` (decisions: Campaign states). */
function refusal(status: number, message: string | Texts): SimError {
  if (typeof message === 'string') return new SimError(status, { message, success: false });
  return new SimError(status, { message: message.spec, success: false }, {}, { message: message.live, success: false });
}

export const campaignErrors = {
  notFound: () => shapeA(404, CAMPAIGN_MESSAGES.notFound),
  assistantNotFound: () => shapeA(404, CAMPAIGN_MESSAGES.assistantNotFound),
  planLimit: (max: number) => shapeA(403, CAMPAIGN_MESSAGES.planLimit(max)),
  // Decision: update-status's 404 speaks the campaign family's live 404 text too (live-platform D.5).
  statusNotFound: () => refusal(404, CAMPAIGN_MESSAGES.notFound),
  refused: (message: string) => refusal(400, message),
  /** The balance refusal of start; the live wire adds the unchanged campaign as `data` (live-platform D.4). */
  insufficientBalance: (campaign: Campaign) => {
    const error = refusal(400, CAMPAIGN_MESSAGES.insufficientBalance);
    return error.withLive({ ...error.body, data: { campaign_id: campaign.id, status: campaign.status } });
  },
};

/**
 * Creates a campaign in `draft` (spec: Create campaign).
 * @example createCampaign(ctx, { name: 'Spring', assistant_id: 1 })
 */
export function createCampaign(ctx: AccountCtx, input: CreateCampaignInput): Campaign {
  const assistant = ctx.assistants.get(input.assistant_id);
  if (!assistant || assistant.type !== 'outbound') throw campaignErrors.assistantNotFound();

  const bag = new ErrorBag();
  const maxParallel = ctx.account.plan.max_calls_in_parallel;
  if (input.max_calls_in_parallel !== undefined && input.max_calls_in_parallel > maxParallel) bag.rule('max_calls_in_parallel', 'maxNumeric', { max: maxParallel });
  const start = input.allowed_hours_start_time ?? '00:00';
  const end = input.allowed_hours_end_time ?? '23:59';
  if (end <= start) bag.add('allowed_hours_end_time', CAMPAIGN_MESSAGES.endBeforeStart);
  input.allowed_days?.forEach((day, i) => {
    if (input.allowed_days!.indexOf(day) !== i) bag.rule(`allowed_days.${i}`, 'distinct');
  });
  input.phone_number_ids?.forEach((id, i) => {
    if (!usableNumber(ctx, id)) bag.rule(`phone_number_ids.${i}`, 'exists');
    else if (input.phone_number_ids!.indexOf(id) !== i) bag.rule(`phone_number_ids.${i}`, 'distinct');
  });
  const goal = input.goal_completion_variable ?? null;
  // live-platform H.1: on the live wire the built-in `status` is a goal variable without a schema item.
  const isGoal = ctx.wire === 'live' ? isGoalVariable(assistant.post_call_schema, goal ?? '') : assistant.post_call_schema.some((item) => item.name === goal && item.type === 'bool');
  if (goal !== null && !isGoal) {
    bag.add('goal_completion_variable', CAMPAIGN_MESSAGES.goalVariable);
  }
  bag.throwIfAny();

  const max = ctx.account.plan.max_campaigns;
  if (ctx.campaigns.count() >= max) throw campaignErrors.planLimit(max);

  const now = ctx.now();
  const days = new Set(input.allowed_days ?? DAYS);
  return ctx.campaigns.insert({
    name: input.name,
    assistant_id: assistant.id,
    timezone: input.timezone ?? ctx.account.timezone,
    max_calls_in_parallel: input.max_calls_in_parallel ?? 3,
    allowed_hours_start_time: withSeconds(start),
    allowed_hours_end_time: withSeconds(end),
    allowed_days: DAYS.filter((d) => days.has(d)),
    max_retries: input.max_retries ?? 3,
    retry_interval: input.retry_interval ?? 60,
    retry_on_voicemail: input.retry_on_voicemail ?? false,
    retry_on_goal_incomplete: input.retry_on_goal_incomplete ?? false,
    goal_completion_variable: goal,
    mark_complete_when_no_leads: input.mark_complete_when_no_leads ?? true,
    phone_number_ids: input.phone_number_ids ?? [],
    status: 'draft',
    dial_event_id: null,
    in_flight: 0,
    rotation: 0,
    idle_reason: null,
    created_at: now,
    updated_at: now,
  });
}

/** The account's campaigns in id order (decisions: List campaigns). */
export function listCampaigns(ctx: AccountCtx): Campaign[] {
  return ctx.campaigns.list();
}

export function findCampaign(ctx: AccountCtx, id: number): Campaign {
  const campaign = ctx.campaigns.get(id);
  if (!campaign) throw campaignErrors.notFound();
  return campaign;
}

/** A raised balance resumes the campaigns that paused for it (decisions: Balance and dialing). */
export function resumeAfterTopUp(ctx: AccountCtx): void {
  for (const campaign of ctx.campaigns.list((c) => c.idle_reason === 'insufficient_balance')) requestDial(ctx, campaign);
}

/**
 * Starts a campaign: accepted from draft, stopped and completed; refused when already
 * running, without leads, without a caller number or without balance (decisions:
 * Campaign states). Schedules the dialer's event.
 */
export function startCampaign(ctx: AccountCtx, id: number): Campaign {
  const campaign = ctx.campaigns.get(id);
  if (!campaign) throw campaignErrors.statusNotFound();
  if (campaign.status === 'in-progress') throw campaignErrors.refused(CAMPAIGN_MESSAGES.alreadyRunning);
  const leads = ctx.leads.where('campaign', campaign.id);
  if (leads.length === 0) throw campaignErrors.refused(CAMPAIGN_MESSAGES.noLeads);
  if (campaign.status === 'completed' && !leads.some((l) => DIALABLE_LEAD_STATUSES.includes(l.status))) throw campaignErrors.refused(CAMPAIGN_MESSAGES.nothingToDial);
  const assistant = ctx.assistants.get(campaign.assistant_id);
  if (!assistant) throw campaignErrors.refused(CAMPAIGN_MESSAGES.assistantGone);
  if (callerNumbers(ctx, campaign, assistant).length === 0) throw campaignErrors.refused(CAMPAIGN_MESSAGES.noCallerNumber);
  if (!canStartCampaign(ctx.account)) throw campaignErrors.insufficientBalance(campaign);
  return setCampaignStatus(ctx, campaign, 'in-progress', scheduleDial(ctx, campaign));
}

/**
 * Stops a running campaign; nothing more is dialed (decisions: Campaign states), and its
 * calls in flight are aborted (live-platform H.9: "stopping a campaign aborts running calls").
 */
export function stopCampaign(ctx: AccountCtx, id: number): Campaign {
  const campaign = ctx.campaigns.get(id);
  if (!campaign) throw campaignErrors.statusNotFound();
  if (campaign.status !== 'in-progress') throw campaignErrors.refused(CAMPAIGN_MESSAGES.notRunning);
  const stopped = setCampaignStatus(ctx, campaign, 'stopped', null);
  abortCampaignCalls(ctx, stopped);
  return stopped;
}

/** Deletes a campaign: stops it first and removes its leads; its calls stay in the history (decisions: Delete campaign). */
export function deleteCampaign(ctx: AccountCtx, id: number): void {
  const campaign = findCampaign(ctx, id);
  if (campaign.dial_event_id !== null) ctx.cancel(campaign.dial_event_id);
  for (const lead of ctx.leads.where('campaign', campaign.id)) removeLead(ctx, lead);
  ctx.campaigns.delete(campaign.id);
}
