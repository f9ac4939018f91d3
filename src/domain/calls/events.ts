/**
 * The clock events of calls (ARCHITECTURE §4 Call lifecycle): ring, connect, end, and
 * what happens when a call ends. Gathered by the composition root like the routes.
 */
import type { ReceiverResponse } from '../../engine/webhooks.js';
import type { AccountCtx } from '../context.js';
import { campaignCallEnded } from '../campaigns/dialer.js';
import { count, id } from '../../core/fields.js';
import { onClock, type ClockHandler } from '../routing.js';
import {
  CALL_CONNECT_EVENT,
  CALL_END_EVENT,
  CALL_RING_EVENT,
  CALL_TOOL_EVENT,
  answerCall,
  callPlannedTool,
  endsAtRing,
  finishCall,
  liveCall,
  ringCall,
  scheduleCall,
  sendPostCallWebhook,
  storeWebhookResponse,
  type CallEventPayload,
  type CallToolPayload,
} from './lifecycle.js';
import type { Call } from './schema.js';

/**
 * A call ended: a campaign call frees its slot and settles its lead (which may dial the
 * next one), then the post-call webhook goes out, so its payload shows the lead's new
 * status (decisions: Post-call webhook payload).
 */
export function callEnded(ctx: AccountCtx, call: Call): void {
  if (call.campaign_id !== null) campaignCallEnded(ctx, call);
  sendPostCallWebhook(ctx, call);
}

/**
 * `call.start`: how calls were handed to the lifecycle before they were placed at once.
 * Kept so a snapshot saved by an earlier version, with one still pending, plays on.
 */
export const LEGACY_CALL_START_EVENT = 'call.start';

/** Every call event names its account and call. */
const CALL_EVENT_PAYLOAD = { account_id: id, call_id: id };

export const callEvents: readonly ClockHandler[] = [
  onClock<CallEventPayload>(LEGACY_CALL_START_EVENT, CALL_EVENT_PAYLOAD, (ctx, payload) => {
    const call = ctx.calls.get(payload.call_id);
    const assistant = call?.assistant_id == null ? undefined : ctx.assistants.get(call.assistant_id);
    if (call && assistant && !call.plan) scheduleCall(ctx, call, assistant, { phone_number: call.client_phone_number, campaign_id: null, lead_variables: null });
  }),
  onClock<CallEventPayload>(CALL_RING_EVENT, CALL_EVENT_PAYLOAD, (ctx, payload) => {
    const call = liveCall(ctx, payload);
    if (call) ringCall(ctx, call, payload);
  }),
  onClock<CallEventPayload>(CALL_CONNECT_EVENT, CALL_EVENT_PAYLOAD, (ctx, payload) => {
    const call = liveCall(ctx, payload);
    if (!call) return;
    if (endsAtRing(call)) callEnded(ctx, finishCall(ctx, call));
    else answerCall(ctx, call, payload);
  }),
  onClock<CallEventPayload>(CALL_END_EVENT, CALL_EVENT_PAYLOAD, (ctx, payload) => {
    const call = liveCall(ctx, payload);
    if (call) callEnded(ctx, finishCall(ctx, call));
  }),
  // live-platform H.10: awaited by the clock, as a webhook attempt is.
  onClock<CallToolPayload>(CALL_TOOL_EVENT, { ...CALL_EVENT_PAYLOAD, index: count }, callPlannedTool),
];

/**
 * A finished post-call delivery: the receiver's answer is stored as the call's
 * `webhook_response` (decisions: Post-call webhook payload).
 */
export function postCallDeliveryFinished(ctx: AccountCtx, delivery: { kind: string; payload: unknown; response: ReceiverResponse | null; state: string }): void {
  const callId = (delivery.payload as { id?: unknown }).id;
  if (delivery.kind === 'post_call' && typeof callId === 'number') storeWebhookResponse(ctx, callId, delivery.response, delivery.state);
}
