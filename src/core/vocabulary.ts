/**
 * The specification's call and webhook vocabulary (spec: Call: status, answered_by;
 * Events). It lives below the domains (records, list filters, events) and the engines
 * (what an outcome may set, what a delivery is), so neither has to import the other at
 * run time.
 */
export const CALL_STATUSES = ['initiated', 'ringing', 'busy', 'in-progress', 'ended', 'completed', 'ended_by_customer', 'ended_by_assistant', 'no-answer', 'failed'] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];
export const ANSWERED_BY = ['human', 'machine', 'unknown'] as const;
export type AnsweredBy = (typeof ANSWERED_BY)[number];
/**
 * The webhooks the platform sends (spec: Events): a call's post-call webhook, a chat's
 * conversation-ended webhook, and a sent message's signed status change (live-platform H.4).
 */
export const WEBHOOK_KINDS = ['post_call', 'conversation_ended', 'read_receipt'] as const;
export type WebhookKind = (typeof WEBHOOK_KINDS)[number];
/** What a forced failure may name (`failNext`): a webhook's kind, or a mid-call tool's request (live-platform H.10). */
export const FAILURE_KINDS = [...WEBHOOK_KINDS, 'tool_call'] as const;
/** Where a webhook delivery stands (ARCHITECTURE §4 Webhook delivery). */
export const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/**
 * The decided timing of a sent message's statuses (live-platform H.4): `sent` 1 s after the
 * send, `delivered` 2 s later, `read` 30 s after that. Read by the outcome script (its
 * defaults) and the channel (its clock events).
 */
export const STATUS_DELAYS_MS = { sent: 1_000, delivered: 2_000, read: 30_000 } as const;
