/**
 * Readable lines for `voxsim events`: the simulated time, the seq, the event type
 * (coloured by kind, like `stripe listen`) and what happened in words.
 */
import type { WireEvent } from './core/events.js';

const CODES = { reset: 0, bold: 1, dim: 2, red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36, gray: 90 } as const;
type Colour = keyof typeof CODES;

/** The colour of an event's type by its kind; failures stand out in red. */
function colourOf(event: WireEvent): Colour {
  const d = event.data;
  if (event.type === 'request.answered') return typeof d.status === 'number' && d.status >= 400 ? 'red' : 'gray';
  if (event.type === 'webhook.attempt') return d.state === 'delivered' ? 'green' : d.state === 'failed' ? 'red' : 'yellow';
  if (event.type === 'tool.called') return typeof d.status === 'number' && d.status >= 200 && d.status < 300 ? 'green' : 'red';
  const kind = event.type.split('.')[0];
  switch (kind) {
    case 'call':
      return 'cyan';
    case 'lead':
      return 'green';
    case 'campaign':
      return 'magenta';
    case 'webhook':
      return 'yellow';
    case 'msgapp':
    case 'conversation':
      return 'blue';
    case 'clock':
      return 'gray';
    default:
      return 'bold';
  }
}

const money = (usd: unknown) => `$${Number(usd).toFixed(2)}`;
const time = (iso: unknown) => (typeof iso === 'string' ? iso.replace('T', ' ').replace('Z', '') : '');

/**
 * What an event says, in words.
 * @example describeEvent({ type: 'call.status', data: { call_id: 3, status: 'ringing' }, ... }) // 'call 3 ringing'
 */
export function describeEvent(event: WireEvent): string {
  const d = event.data;
  switch (event.type) {
    case 'call.status':
      if (d.ended) return `call ${d.call_id} ${d.status}: ${d.answered_by}, ${d.duration} s, ${money(d.total_cost)}`;
      return `call ${d.call_id} ${d.status}${d.phone_number ? ` to ${d.phone_number}` : ''}`;
    case 'lead.status':
      return `lead ${d.lead_id} ${d.status}`;
    case 'campaign.status':
      return `campaign ${d.campaign_id} ${d.status}`;
    case 'campaign.idle':
      return `campaign ${d.campaign_id} idle: ${String(d.reason).replace(/_/g, ' ')}`;
    case 'webhook.queued':
      return `delivery ${d.delivery_id} (${d.kind}) to ${d.url}`;
    case 'webhook.attempt': {
      const answer = d.status === null ? d.error : `HTTP ${d.status}`;
      const next = d.next_attempt_at ? `, retry at ${time(d.next_attempt_at)}` : '';
      return `delivery ${d.delivery_id} attempt ${d.attempt}: ${answer} -> ${d.state}${next}`;
    }
    case 'tool.called': {
      const by = d.call_id !== null ? ` for call ${d.call_id}` : d.conversation_id !== null ? ` for conversation ${d.conversation_id}` : ' (test)';
      const request = d.method === null ? 'no request' : `${d.method} ${d.url}`;
      return `tool ${d.tool}${by}: ${request} -> ${d.status === null ? d.error : `HTTP ${d.status}`}`;
    }
    case 'msgapp.window_opened':
      return `window ${d.recipient_phone} (sender ${d.sender_id}) open until ${time(d.expires_at)} by ${String(d.by).replace(/_/g, ' ')}`;
    case 'msgapp.window_closed':
      return `window ${d.recipient_phone} (sender ${d.sender_id}) closed`;
    case 'msgapp.message_status':
      return `message ${d.whatsapp_message_id} to ${d.recipient_phone} (sender ${d.sender_id}) ${d.status}${d.error_code === null ? '' : ` (${d.error_code})`}`;
    case 'conversation.started':
      return `${d.type} conversation ${d.conversation_id} started`;
    case 'conversation.reopened':
      return `${d.type} conversation ${d.conversation_id} reopened`;
    case 'conversation.ended':
      return `${d.type} conversation ${d.conversation_id} ended (${d.reason})${d.webhook ? ', webhook sent' : ''}`;
    case 'document.status':
      return `document ${d.document_id} of knowledge base ${d.knowledgebase_id} ${d.status}`;
    case 'clock.advanced':
      return `${String(d.by).replace(/_/g, ' ')}: ${time(d.from)} -> ${time(d.to)}, ${d.ran} events`;
    case 'clock.mode':
      return d.mode === 'realtime' ? `realtime at ${d.speed}x` : 'manual';
    case 'request.answered':
      return `${d.method} ${d.path} ${d.status}${d.error ? ` ${d.error}` : ''}`;
    case 'sim.reset':
      return `reset with seed ${d.seed}`;
    case 'sim.restored':
      return 'state restored';
    default:
      return JSON.stringify(d);
  }
}

/**
 * One line per event: `2026-03-02 09:00:01  #12  call.status         call 3 ringing  [account 1]`.
 * @example formatEventLine(event, { colour: process.stdout.isTTY })
 */
export function formatEventLine(event: WireEvent, options: { colour: boolean }): string {
  const paint = (colour: Colour, text: string) => (options.colour ? `\u001b[${CODES[colour]}m${text}\u001b[${CODES.reset}m` : text);
  const account = typeof event.data.account_id === 'number' ? paint('dim', `  [account ${event.data.account_id}]`) : '';
  return `${paint('gray', time(event.at))}  ${paint('dim', `#${event.seq}`.padEnd(7))} ${paint(colourOf(event), event.type.padEnd(22))} ${describeEvent(event)}${account}`;
}
