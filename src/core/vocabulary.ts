/**
 * The specification's call vocabulary (spec: Call: status, answered_by). It lives below
 * both the calls domain (records, list filters) and the outcome script (what an outcome
 * may set), so neither has to import the other at run time.
 */
export const CALL_STATUSES = ['initiated', 'ringing', 'busy', 'in-progress', 'ended', 'completed', 'ended_by_customer', 'ended_by_assistant', 'no-answer', 'failed'] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];
export const ANSWERED_BY = ['human', 'machine', 'unknown'] as const;
export type AnsweredBy = (typeof ANSWERED_BY)[number];
