/**
 * What calls cost (decisions: Billing defaults, Costs of unanswered calls, Balance and
 * dialing). make_call, the dialer and the call lifecycle all price calls here.
 */
import type { Account, Rates } from '../accounts/schema.js';
import { UNANSWERED_STATUSES, type CallPlan } from './schema.js';

/** Answered time is billed for at least this long (decisions: Billing defaults). */
export const BILLING_MINIMUM_SECONDS = 30;

/**
 * What an answered span costs in micro-dollars (decisions: Billing defaults): AI time per
 * second with a 30 s minimum, carrier per started minute.
 * @example answeredCost(DEFAULT_RATES, 90) // { carrier: 20000, total: 170000 }
 */
export function answeredCost(rates: Rates, seconds: number): { carrier: number; total: number } {
  const carrier = rates.carrier_per_minute_micros * Math.ceil(seconds / 60);
  return { carrier, total: Math.ceil((rates.ai_per_minute_micros * Math.max(seconds, BILLING_MINIMUM_SECONDS)) / 60) + carrier };
}

/**
 * Whether the balance covers the worst case of one call: `max_duration` seconds of AI
 * time and carrier (decisions: Balance and dialing). Checked before every dial, by
 * make_call and by the dialer alike.
 * @example coversOneCall(ctx.account, assistant.max_duration)
 */
export function coversOneCall(account: Account, maxDuration: number): boolean {
  return account.balance_micros >= answeredCost(account.rates, maxDuration).total;
}

/**
 * Whether a campaign may start: a balance above zero (decisions: Balance and dialing).
 * Each dial then needs `coversOneCall`; a campaign that started on a small balance
 * idles with `insufficient_balance` until it is raised.
 */
export function canStartCampaign(account: Account): boolean {
  return account.balance_micros > 0;
}

/**
 * A finished call's costs: unanswered calls nothing; voicemail one minute of each
 * whatever its length; answered calls their talk time (decisions: Costs of unanswered calls).
 */
export function callCosts(rates: Rates, plan: CallPlan): { carrier: number; total: number } {
  if (UNANSWERED_STATUSES.has(plan.final_status)) return { carrier: 0, total: 0 };
  return answeredCost(rates, plan.answered_by === 'machine' ? 60 : plan.talk_seconds);
}
