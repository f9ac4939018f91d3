/**
 * Bounded storage of what webhook receivers answer (issue 13 item 4; docs/webhooks.md). At most RECEIVER_BODY_LIMIT (65,536) bytes of a receiver's body are read
 * and kept; a longer one is marked `truncated: true` in the delivery journal, the call's
 * `webhook_response` and snapshots, and `realDeliver` closes the connection on the rest.
 * Time moves only through the virtual clock; the real receiver streams with backpressure,
 * so how much it managed to send shows whether the simulator stopped reading.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECEIVER_BODY_LIMIT, boundBody, type DeliverResult } from '../../src/engine/webhooks.js';
import { createSimulator, type Simulator } from '../../src/simulator.js';
import { pipelineAssistant } from '../support/fixtures.js';

const START = '2026-03-02T09:00:00Z';
const KEY = 'sim_test_key';
const CUSTOMER = '+14155550123';
const HOOK = 'https://hooks.example.test/post-call';
const MB = 1024 * 1024;

/** What the receiver sent of one answer when the connection closed. */
interface Sent {
  bytes: number;
  /** Whether the whole body was written and flushed before the close. */
  completed: boolean;
}

/** A body the receiver streams: `prefix`, then `filler` (16 bytes of ASCII) repeated up to `total` bytes. */
interface Streamed {
  status: number;
  prefix: string;
  filler: string;
  total: number;
}

/** The first `n` bytes of a streamed body, as text (the fixtures are ASCII unless said otherwise). */
function headOf(body: Streamed, n: number): string {
  const text = body.prefix + body.filler.repeat(Math.ceil((n - body.prefix.length) / body.filler.length) + 1);
  return text.slice(0, n);
}

/**
 * A simulator whose assistant 1 sends its post-call webhook to `url` (through `deliver`
 * when given); `callOnce` plays one answered call to its end and answers the call as
 * `GET /user/calls/1` shows it.
 */
function rig(url: string, deliver?: (request: unknown) => Promise<DeliverResult>) {
  const sim: Simulator = createSimulator({ seed: 1, startAt: START, ...(deliver && { deliver }) });
  const request = async (method: string, path: string, body?: unknown) => {
    const res = await sim.handle({ method, path, headers: { authorization: `Bearer ${KEY}` }, ...(body !== undefined && { body: JSON.stringify(body) }) });
    return { status: res.status, body: res.body as any };
  };
  const callOnce = async () => {
    const number = sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' });
    const created = await request('POST', '/user/assistant', pipelineAssistant({ phone_number_id: number.id, is_webhook_active: true, webhook_url: url }));
    expect(created.status).toBe(201);
    sim.control.outcomes.forNumber(CUSTOMER, [{ kind: 'human', ring_seconds: 4, talk_seconds: 60 }]);
    expect((await request('POST', '/user/make_call', { assistant_id: created.body.data.id, phone_number: CUSTOMER })).status).toBe(200);
    await sim.clock.advance('30m');
    const call = await request('GET', '/user/calls/1');
    expect(call.status).toBe(200);
    return call.body;
  };
  const journal = async () => {
    const res = await request('GET', '/__sim/webhooks/deliveries');
    expect(res.status).toBe(200);
    return res.body.data as any[];
  };
  return { sim, request, callOnce, journal };
}

/** A custom transport answering `text` with `status` to every attempt. */
function answerWith(text: string, status = 200): (request: unknown) => Promise<DeliverResult> {
  return async () => ({ status, body: text, duration_ms: 1 });
}

describe('boundBody', () => {
  it('keeps a body of exactly 65,536 ASCII bytes whole', () => {
    const body = 'a'.repeat(RECEIVER_BODY_LIMIT);
    expect(boundBody(body)).toStrictEqual({ body, truncated: false });
  });

  it('cuts a body of 65,537 ASCII bytes to its first 65,536', () => {
    expect(boundBody('a'.repeat(RECEIVER_BODY_LIMIT) + 'b')).toStrictEqual({ body: 'a'.repeat(RECEIVER_BODY_LIMIT), truncated: true });
  });

  it('counts bytes of UTF-8, not characters, and never cuts inside a character', () => {
    // 21,845 euro signs are 65,535 bytes; the 21,846th would need 3 more.
    expect(boundBody('€'.repeat(21_846))).toStrictEqual({ body: '€'.repeat(21_845), truncated: true });
    expect(boundBody('€'.repeat(21_845))).toStrictEqual({ body: '€'.repeat(21_845), truncated: false });
    // A surrogate pair (4 bytes) is kept or dropped whole.
    const emoji = 'a'.repeat(RECEIVER_BODY_LIMIT - 2) + '😀';
    expect(boundBody(emoji)).toStrictEqual({ body: 'a'.repeat(RECEIVER_BODY_LIMIT - 2), truncated: true });
  });

  it('cuts a 50 MB string to its first 65,536 bytes', () => {
    const huge = 'x'.repeat(50 * MB);
    const { body, truncated } = boundBody(huge);
    expect(truncated).toBe(true);
    expect(body).toHaveLength(RECEIVER_BODY_LIMIT);
  });
});

describe('a custom deliver function answering more than 64 KB', () => {
  it('keeps 65,536 bytes of a 50 MB body in the journal with truncated: true', async () => {
    const r = rig(HOOK, answerWith('x'.repeat(50 * MB)));
    await r.callOnce();
    const [delivery] = await r.journal();
    expect(delivery.state).toBe('delivered');
    expect(delivery.response).toStrictEqual({ status: 200, body: 'x'.repeat(RECEIVER_BODY_LIMIT), truncated: true });
  });

  it("stores the kept text in the call's webhook_response with truncated: true, unparsed", async () => {
    // A cut JSON document is not JSON any more; a cut number would be another number.
    const json = `{"received":true,"echo":"${'y'.repeat(RECEIVER_BODY_LIMIT)}"}`;
    const r = rig(HOOK, answerWith(json));
    const call = await r.callOnce();
    expect(call.webhook_response).toStrictEqual({ status: 200, body: json.slice(0, RECEIVER_BODY_LIMIT), delivery: 'delivered', truncated: true });
  });

  it('keeps a body of exactly 65,536 bytes whole, parsed, without a truncated key', async () => {
    const json = `{"echo":"${'y'.repeat(RECEIVER_BODY_LIMIT - 11)}"}`;
    expect(json).toHaveLength(RECEIVER_BODY_LIMIT);
    const r = rig(HOOK, answerWith(json));
    const call = await r.callOnce();
    expect(call.webhook_response).toStrictEqual({ status: 200, body: { echo: 'y'.repeat(RECEIVER_BODY_LIMIT - 11) }, delivery: 'delivered' });
    expect((await r.journal())[0].response).toStrictEqual({ status: 200, body: json });
  });

  it('keeps the cut of a failing answer too: the last 500 of a failed delivery', async () => {
    const r = rig(HOOK, answerWith('e'.repeat(RECEIVER_BODY_LIMIT + 1), 500));
    const call = await r.callOnce();
    expect(call.webhook_response).toStrictEqual({ status: 500, body: 'e'.repeat(RECEIVER_BODY_LIMIT), delivery: 'failed', truncated: true });
    const [delivery] = await r.journal();
    expect(delivery.attempts).toHaveLength(4);
    expect(delivery.response).toStrictEqual({ status: 500, body: 'e'.repeat(RECEIVER_BODY_LIMIT), truncated: true });
  });

  it('keeps the marker through a snapshot, and the snapshot small', async () => {
    const r = rig(HOOK, answerWith('x'.repeat(50 * MB)));
    await r.callOnce();
    const saved = r.sim.snapshot();
    expect(JSON.stringify(saved).length).toBeLessThan(4 * RECEIVER_BODY_LIMIT);
    const other = createSimulator({ seed: 1, startAt: START });
    other.restore(saved);
    expect(other.webhooks.deliveries()[0]!.response).toStrictEqual({ status: 200, body: 'x'.repeat(RECEIVER_BODY_LIMIT), truncated: true });
    expect(other.db.calls.get(1)!.webhook_response).toStrictEqual({ status: 200, body: 'x'.repeat(RECEIVER_BODY_LIMIT), delivery: 'delivered', truncated: true });
  });
});

describe("a receiver's JSON nested deeper than 64 levels", () => {
  it('parses a body nesting exactly 64 levels into webhook_response', async () => {
    const json = '['.repeat(64) + ']'.repeat(64);
    const r = rig(HOOK, answerWith(json));
    const call = await r.callOnce();
    expect(call.webhook_response).toStrictEqual({ status: 200, body: JSON.parse(json), delivery: 'delivered' });
  });

  it('keeps a body nesting 65 levels as text', async () => {
    const json = '['.repeat(65) + ']'.repeat(65);
    const r = rig(HOOK, answerWith(json));
    const call = await r.callOnce();
    expect(call.webhook_response).toStrictEqual({ status: 200, body: json, delivery: 'delivered' });
  });

  it('keeps 30,000 levels as text, so the call, its list and the snapshot still serialise', async () => {
    const json = '['.repeat(30_000) + ']'.repeat(30_000);
    const r = rig(HOOK, answerWith(json));
    const call = await r.callOnce();
    expect(call.webhook_response.body).toBe(json);
    expect((await r.request('GET', '/user/calls')).status).toBe(200);
    expect(() => JSON.stringify(r.sim.snapshot())).not.toThrow();
  });
});

describe('a real HTTP receiver answering more than 64 KB (default realDeliver)', () => {
  let server: Server;
  let base: string;
  let body: Streamed | Buffer;
  let sent: Promise<Sent>[] = [];

  /**
   * Writes `answer` (the prefix, then 16 KB chunks of filler; a Buffer at once), waiting
   * for `drain` whenever the socket is full, so it gets ahead of the reader by no more
   * than the sockets' buffers.
   */
  function stream(res: ServerResponse, answer: Streamed | Buffer): Promise<Sent> {
    return new Promise((resolve) => {
      let bytes = 0;
      res.on('error', () => undefined);
      res.on('close', () => resolve({ bytes, completed: res.writableFinished }));
      if (Buffer.isBuffer(answer)) {
        bytes = answer.length;
        res.writeHead(200).end(answer);
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      const filler = Buffer.from(answer.filler.repeat(16_384 / answer.filler.length), 'latin1');
      const pump = (): void => {
        while (bytes < answer.total && !res.destroyed) {
          const chunk = (bytes === 0 ? Buffer.from(answer.prefix, 'latin1') : filler).subarray(0, answer.total - bytes);
          bytes += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        if (!res.destroyed) res.end();
      };
      pump();
    });
  }

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => sent.push(stream(res, body)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const answer = (total: number, status = 200): Streamed => ({ status, prefix: '{"received":true,"echo":"', filler: 'abcdefghijklmnop', total });

  it('reads 65,536 bytes of a streamed 50 MB body and closes the connection on the rest', async () => {
    body = answer(50 * MB);
    sent = [];
    const r = rig(`${base}/hook`);
    const call = await r.callOnce();
    const kept = headOf(answer(50 * MB), RECEIVER_BODY_LIMIT);
    const [delivery] = await r.journal();
    expect(delivery.response).toStrictEqual({ status: 200, body: kept, truncated: true });
    expect(call.webhook_response).toStrictEqual({ status: 200, body: kept, delivery: 'delivered', truncated: true });
    expect(JSON.stringify(r.sim.snapshot()).length).toBeLessThan(4 * RECEIVER_BODY_LIMIT);
    // The receiver saw the connection closed long before its body was out.
    expect(sent).toHaveLength(1);
    const seen = await sent[0]!;
    expect(seen.completed).toBe(false);
    // Loopback buffers hold a few MB (about 3.8 MB here); reading it all would be 50.
    expect(seen.bytes).toBeLessThan((50 * MB) / 4);
  });

  it('reads a body of exactly 65,536 bytes to its end, without truncated', async () => {
    body = answer(RECEIVER_BODY_LIMIT);
    sent = [];
    const r = rig(`${base}/hook`);
    await r.callOnce();
    const [delivery] = await r.journal();
    expect(delivery.response).toStrictEqual({ status: 200, body: headOf(answer(RECEIVER_BODY_LIMIT), RECEIVER_BODY_LIMIT) });
    expect(await sent[0]!).toStrictEqual({ bytes: RECEIVER_BODY_LIMIT, completed: true });
  });

  it('cuts a body of 65,537 bytes to 65,536 with truncated: true', async () => {
    body = answer(RECEIVER_BODY_LIMIT + 1);
    sent = [];
    const r = rig(`${base}/hook`);
    await r.callOnce();
    const [delivery] = await r.journal();
    expect(delivery.response).toStrictEqual({ status: 200, body: headOf(answer(RECEIVER_BODY_LIMIT), RECEIVER_BODY_LIMIT), truncated: true });
  });

  it('drops a character the limit would cut in two', async () => {
    // 65,535 ASCII bytes, then a 3-byte euro sign across the limit.
    body = Buffer.concat([Buffer.alloc(RECEIVER_BODY_LIMIT - 1, 'a'), Buffer.from('€ tail', 'utf8')]);
    sent = [];
    const r = rig(`${base}/hook`);
    await r.callOnce();
    const [delivery] = await r.journal();
    expect(delivery.response).toStrictEqual({ status: 200, body: 'a'.repeat(RECEIVER_BODY_LIMIT - 1), truncated: true });
  });
});
