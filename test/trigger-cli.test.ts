/**
 * `voxsim trigger KIND --url URL`: one sample event of the documented shape sent to a real
 * local receiver, its answer printed, exit 1 when the receiver fails.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../src/cli.js';
import { TRIGGER_KINDS, TRIGGER_MESSAGES } from '../src/cli/trigger.js';
import { captureConsole } from './support/console.js';

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const received: Received[] = [];
/** What the receiver answers next: a status and body, or no answer at all. */
let answer: { status: number; body: string } | 'hang' = { status: 200, body: '{"ok":true}' };
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ method: req.method!, path: req.url!, headers: req.headers, body });
      if (answer === 'hang') return;
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});
beforeEach(() => {
  received.length = 0;
  answer = { status: 200, body: '{"ok":true}' };
});

async function trigger(...args: string[]) {
  const console = captureConsole();
  const code = await main(['trigger', ...args], console.out);
  return { code, lines: console.lines, text: console.text() };
}

const ZULU = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

describe('voxsim trigger', () => {
  it('sends a post-call event with every documented field, prints the answer and exits 0', async () => {
    const run = await trigger('post-call', '--url', `${base}/hooks/calls`);
    expect(run.code).toBe(0);
    expect(received).toHaveLength(1);
    const [got] = received;
    expect(got!.method).toBe('POST');
    expect(got!.path).toBe('/hooks/calls');
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['x-voxsim-event']).toBe('post_call');
    const body = JSON.parse(got!.body);
    expect(Object.keys(body)).toEqual(['id', 'customer_phone', 'assistant_phone', 'duration', 'status', 'extracted_variables', 'input_variables', 'transcript', 'created_at', 'finished_at', 'lead', 'campaign', 'total_cost', 'recording_url']);
    expect(body).toMatchObject({ customer_phone: '+14155550123', assistant_phone: '+14155550100', duration: 95, status: 'completed', extracted_variables: { demo_booked: true } });
    expect(body.lead).toMatchObject({ phone_number: '+14155550123', status: 'completed', variables: { customer_name: 'Ann' } });
    expect(body.campaign).toMatchObject({ name: 'Spring Outreach' });
    expect(body.transcript.split('\n')[0]).toBe('Assistant: Hello Ann, this is Ava from Acme. Do you have a minute?');
    expect(body.recording_url).toMatch(/\/files\/sim\/rec-1-[0-9a-f]{32}\/recording\.mp3$/);
    expect(run.lines).toEqual([`Sent a post-call event (spec wire, ${Buffer.byteLength(got!.body)} bytes) to ${base}/hooks/calls`, 'The receiver answered 200', '{"ok":true}']);
  });

  it('sends the live wire\'s post-call body with --wire live: the built-ins first, times in Z, no total_cost', async () => {
    const run = await trigger('post-call', '--url', `${base}/hook`, '--wire', 'live');
    expect(run.code).toBe(0);
    const body = JSON.parse(received[0]!.body);
    expect(Object.keys(body.extracted_variables)).toEqual(['status', 'summary', 'demo_booked']);
    expect(body.extracted_variables.status).toBe(true);
    expect(body).not.toHaveProperty('total_cost');
    expect(body.created_at).toMatch(ZULU);
    expect(Object.keys(body.campaign)).toEqual(['id', 'name', 'status', 'allowed_hours_start_time', 'allowed_hours_end_time', 'allowed_days', 'max_calls_in_parallel', 'max_retries', 'retry_interval', 'created_at', 'updated_at']);
    expect(run.lines[0]).toMatch(/^Sent a post-call event \(live wire, \d+ bytes\)/);
  });

  it('sends a conversation-ended event of a widget chat', async () => {
    const run = await trigger('conversation-ended', '--url', `${base}/ended`);
    expect(run.code).toBe(0);
    const body = JSON.parse(received[0]!.body);
    expect(received[0]!.headers['x-voxsim-event']).toBe('conversation_ended');
    expect(body).toMatchObject({ type: 'widget', status: 'ended', message_count: 3, customer_name: 'Ann', input_variables: { customer_name: 'Ann' } });
    expect(body.transcript.map((t: { role: string }) => t.role)).toEqual(['assistant', 'user', 'assistant']);
    expect(body.transcript[0].content).toBe('Hello Ann, this is Ava from Acme. Do you have a minute?');
    expect(body.formatted_transcript.split('\n')[1]).toBe('Customer: Do you have time for a demo on Tuesday?');
  });

  it('sends a read receipt signed with --secret: the signature verifies with that secret', async () => {
    const run = await trigger('read-receipt', '--url', `${base}/receipts`, '--secret', 's');
    expect(run.code).toBe(0);
    const [got] = received;
    const expected = `sha256=${createHmac('sha256', 's').update(got!.body).digest('hex')}`;
    expect(got!.headers['x-signature-256']).toBe(expected);
    const body = JSON.parse(got!.body);
    expect(Object.keys(body)).toEqual(['event', 'whatsapp_message_id', 'message_sid', 'meta_message_id', 'conversation_id', 'assistant_id', 'sender', 'to', 'from', 'direction', 'status', 'error_code', 'error_message', 'error_description', 'timestamp', 'provider_timestamp']);
    expect(body).toMatchObject({ event: 'message_status', to: '+14155550123', direction: 'outbound', status: 'delivered', error_code: null });
    expect(body).not.toHaveProperty('test');
    expect(run.lines.some((line) => line.startsWith('Signed with'))).toBe(false);
  });

  it("signs a read receipt without --secret with the sample sender's secret, which it prints", async () => {
    const run = await trigger('read-receipt', '--url', `${base}/receipts`);
    expect(run.code).toBe(0);
    const [, secret] = /^Signed with the sample sender's secret (\S+) /.exec(run.lines[0]!) ?? [];
    expect(secret).toBeTruthy();
    expect(received[0]!.headers['x-signature-256']).toBe(`sha256=${createHmac('sha256', secret!).update(received[0]!.body).digest('hex')}`);
    // The same secret each run: the sample is seeded.
    expect((await trigger('read-receipt', '--url', `${base}/receipts`)).lines[0]).toBe(run.lines[0]);
  });

  it("prints a failing receiver's status and body and exits 1", async () => {
    answer = { status: 500, body: '{"error":"boom"}' };
    const run = await trigger('post-call', '--url', `${base}/hook`);
    expect(run.code).toBe(1);
    expect(received).toHaveLength(1);
    expect(run.lines.slice(1)).toEqual(['The receiver answered 500', '{"error":"boom"}', TRIGGER_MESSAGES.failed(500)]);
  });

  it('exits 1 for a 4xx answer too (one attempt, no retries)', async () => {
    answer = { status: 404, body: '' };
    const run = await trigger('conversation-ended', '--url', `${base}/nope`);
    expect(run.code).toBe(1);
    expect(received).toHaveLength(1);
    expect(run.lines.slice(1)).toEqual(['The receiver answered 404', TRIGGER_MESSAGES.failed(404)]);
  });

  it('exits 1 when the connection is refused', async () => {
    // A port nothing listens on: a server opened and closed again.
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((done) => closed.close(done));
    const url = `http://127.0.0.1:${port}/hook`;
    const run = await trigger('post-call', '--url', url);
    expect(run.code).toBe(1);
    expect(run.lines.at(-1)).toBe(TRIGGER_MESSAGES.noAnswer(url, 'refused: Connection failed: ECONNREFUSED'));
  });

  it('exits 1 when the receiver does not answer within --timeout', async () => {
    answer = 'hang';
    const run = await trigger('read-receipt', '--url', `${base}/slow`, '--secret', 's', '--timeout', '0.2');
    expect(run.code).toBe(1);
    expect(run.lines.at(-1)).toBe(TRIGGER_MESSAGES.noAnswer(`${base}/slow`, 'timeout: The receiver did not answer within 200 ms.'));
  });

  it('lists the kinds in its --help', async () => {
    const run = await trigger('--help');
    expect(run.code).toBe(0);
    expect(run.lines[0]!.split('\n')[0]).toBe('Usage: voxsim trigger KIND --url URL [options]');
    for (const kind of TRIGGER_KINDS) expect(run.text).toMatch(new RegExp(`^  ${kind} +\\S`, 'm'));
    expect(received).toEqual([]);
  });

  it.each([
    [['post-call'], '--url is required: the receiver to send the event to'],
    [['--url', 'http://127.0.0.1:1/x'], 'No event kind given: one of post-call, conversation-ended, read-receipt'],
    [['post-cal', '--url', 'http://127.0.0.1:1/x'], 'Unknown event kind "post-cal": one of post-call, conversation-ended, read-receipt'],
    [['post-call', 'read-receipt', '--url', 'http://127.0.0.1:1/x'], 'One event kind at a time, got 2: post-call read-receipt'],
    [['post-call', '--url', 'ftp://example.test/x'], '--url must be an http or https URL, got "ftp://example.test/x"'],
    [['post-call', '--url', 'http://127.0.0.1:1/x', '--secret', 's'], TRIGGER_MESSAGES.secretOnlyForReceipts],
    [['post-call', '--url', 'http://127.0.0.1:1/x', '--wire', 'beta'], '--wire must be one of spec, live, got "beta"'],
    [['post-call', '--url', 'http://127.0.0.1:1/x', '--timeout', '0'], '--timeout must be a number of seconds from 0.1 to 600, got "0"'],
  ])('refuses %j with one line and the help, exit 2, sending nothing', async (args, message) => {
    const run = await trigger(...args);
    expect(run.code).toBe(2);
    expect(run.lines[0]!.split('\n')[0]).toBe(message);
    expect(run.text).toContain('Usage: voxsim trigger KIND --url URL [options]');
    expect(received).toEqual([]);
  });
});
