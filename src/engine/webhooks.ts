/**
 * Webhook delivery (spec: Events > Delivery, Retry; decisions: Webhook timing).
 * Every delivery is a record with its attempts: the first at the trigger time, then
 * after a non-2xx, a timeout or a refused connection, retries 30, 60 and 120 s of clock
 * time after the previous attempt; after the third failed retry the delivery is
 * `failed`. Nothing is sent again once a 2xx was received. A kind declares which
 * failures it retries (KIND_RULES: the read receipts retry only a 5xx, a 429, a timeout
 * or a refusal, live-platform H.4) and a delivery may carry headers of its own (a
 * signature, made once from the body it is sent with). Of each answer, at most
 * RECEIVER_BODY_LIMIT bytes of body are read and kept (the journal, the call's
 * `webhook_response` and snapshots hold nothing larger).
 *
 * Every call into the integrator's code goes through this engine (ARCHITECTURE §4): a
 * mid-call tool's request (`request`, live-platform H.10) is the kind with no retry, the
 * tool's own timeout and an answer the caller waits for, made through the same transport
 * and kept in a journal of its own (`toolCalls`, capped like the deliveries', not part of
 * a snapshot).
 */
import type { ClockEvent, VirtualClock } from '../core/clock.js';
import { CountedRules } from '../core/counted-rules.js';
import { id, record } from '../core/fields.js';
import { hmacSha256Hex } from '../core/signing.js';
import { Table, type TableObserver } from '../core/store.js';
import type { DeliveryState, WebhookKind } from '../core/vocabulary.js';

export { DELIVERY_STATES, WEBHOOK_KINDS, type DeliveryState, type WebhookKind } from '../core/vocabulary.js';

export interface WebhookAttempt {
  at: number;
  /** The receiver's status, or null when no answer came (timeout, refused). */
  status: number | null;
  error: string | null;
  duration_ms: number;
}

export interface Delivery {
  id: number;
  account_id: number;
  kind: WebhookKind;
  url: string;
  payload: unknown;
  state: DeliveryState;
  attempts: WebhookAttempt[];
  next_attempt_at: number | null;
  /** The answer that ended it (the 2xx), or the last answer of a failed delivery. */
  response: ReceiverResponse | null;
  created_at: number;
  /** Headers of its own sent with every attempt (a read receipt's `x-signature-256`); absent when none. */
  headers?: Record<string, string>;
  /** The delivery this one re-sends (`resend`); absent for a first send. */
  resent_from?: number;
}

/** What a kind retries: a status (null: no answer came, a timeout or a refusal) is retried when `retries` says so. */
export interface KindRule {
  retries: (status: number | null) => boolean;
}

/**
 * Each kind's retry rule. The post-call and conversation-ended webhooks retry any
 * non-2xx, a timeout and a refusal (spec: Events > Retry); a read receipt retries a 5xx,
 * a 429, a timeout and a refusal only: another 4xx means a misconfigured endpoint and
 * fails at once (live-platform H.4).
 */
export const KIND_RULES: Readonly<Record<WebhookKind, KindRule>> = {
  post_call: { retries: () => true },
  conversation_ended: { retries: () => true },
  read_receipt: { retries: (status) => status === null || status === 429 || status >= 500 },
};

/** The header of a signed delivery (live-platform H.4). */
export const SIGNATURE_HEADER = 'x-signature-256';

/**
 * The signature header's value: `sha256=` and the hex HMAC-SHA256 of the raw body.
 * @example signatureOf('{"a":1}', 'secret') // 'sha256=…'
 */
export function signatureOf(body: string, secret: string): string {
  return `sha256=${hmacSha256Hex(secret, body)}`;
}

/** A forced failure: `with` a status code (the receiver is not called), "timeout" or "refused". */
export type FailureMode = number | 'timeout' | 'refused';
export interface FailureRule {
  id: number;
  url: string | null;
  /** A webhook kind, `tool_call` (a mid-call tool's request), or null: any. */
  kind: WebhookKind | ToolCallKind | null;
  times: number;
  with: FailureMode;
}

export interface DeliverRequest {
  /** POST when absent (every webhook); a mid-call tool's own method (live-platform H.10). */
  method?: string;
  url: string;
  /** The body; '' sends none (a GET or DELETE tool request). */
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
}
export interface DeliverResult {
  status: number;
  /** The answer's body; whatever lies beyond RECEIVER_BODY_LIMIT bytes is cut off. */
  body: string;
  duration_ms: number;
  /** The transport stopped reading after RECEIVER_BODY_LIMIT bytes (`realDeliver` does). */
  truncated?: boolean;
}

/**
 * A receiver's answer as the journal keeps it: `body` is at most RECEIVER_BODY_LIMIT
 * bytes of UTF-8, and `truncated: true` is present only when the receiver sent more.
 */
export interface ReceiverResponse {
  status: number;
  body: string;
  truncated?: true;
}
/** Sends one attempt; rejects with a `WebhookTransportError` when no answer came. */
export type DeliverFn = (request: DeliverRequest) => Promise<DeliverResult>;

/** No answer: the receiver timed out or refused the connection. */
export class WebhookTransportError extends Error {
  constructor(
    readonly reason: 'timeout' | 'refused',
    message: string,
    readonly duration_ms = 0,
  ) {
    super(message);
  }
}

/**
 * The kind of a mid-call tool's request (live-platform H.10; ARCHITECTURE §4): no retry,
 * the tool's own timeout, and an answer the caller waits for. `failNext({kind: 'tool_call'})`
 * forces its failures as it does a webhook's.
 */
export const TOOL_CALL_KIND = 'tool_call';
export type ToolCallKind = typeof TOOL_CALL_KIND;

/** A request as it went out: the body is the text sent, null when none was (GET, DELETE). */
export interface OutboundRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | null;
}

/**
 * One mid-call tool request and what came of it (live-platform H.10): the endpoint's
 * answer, or why none came (`error`: a timeout, a refusal, a tool that is not attached,
 * when `request` is null no request was made). `call_id` or `conversation_id` names
 * what called it; a test call (`POST /__sim/tools/{id}/test`) has neither. Nothing of
 * real time is kept, so the same answers give the same records.
 */
export interface ToolCall {
  id: number;
  account_id: number;
  at: number;
  tool_id: number | null;
  tool: string;
  call_id?: number;
  conversation_id?: string;
  request: OutboundRequest | null;
  response: ReceiverResponse | null;
  error: string | null;
}

/** What `request` is given: the record's facts and, unless `error` says why not, the request to make. */
export interface ToolCallInput {
  account_id: number;
  tool_id: number | null;
  tool: string;
  call_id?: number | undefined;
  conversation_id?: string | undefined;
  request: OutboundRequest | null;
  timeoutMs: number;
  /** Why no request is made (with `request` null). */
  error?: string;
}

/** Delays of the three retries, each counted from the previous attempt (spec: Events > Retry). */
export const RETRY_DELAYS_MS = [30_000, 60_000, 120_000] as const;
/** The receiver's time to answer, in real time (decisions: Webhook timing). */
export const RECEIVER_TIMEOUT_MS = 10_000;
export const ATTEMPT_EVENT = 'webhook.attempt';
interface AttemptPayload {
  delivery_id: number;
}
export const DEFAULT_JOURNAL_LIMIT = 1_000;
/**
 * How much of a receiver's body is read and kept, in UTF-8 bytes (64 KB). Far more than
 * any acknowledgement; a receiver answering megabytes cannot grow the journal, the
 * calls or the state file.
 */
export const RECEIVER_BODY_LIMIT = 65_536;

/**
 * A body cut to at most `limit` bytes of UTF-8, never inside a character.
 * @example boundBody('ab€', 4) // { body: 'ab', truncated: true }
 */
export function boundBody(body: string, limit = RECEIVER_BODY_LIMIT): { body: string; truncated: boolean } {
  // A UTF-16 unit takes 1 to 3 bytes (a pair 4 for 2): short texts fit, long ones are cut from a head of limit + 1 units.
  if (body.length * 3 <= limit) return { body, truncated: false };
  const head = body.length > limit ? body.slice(0, limit + 1) : body;
  const { read } = new TextEncoder().encodeInto(head, new Uint8Array(limit));
  // A head of limit + 1 units never fits, so a whole read means the whole body.
  return read === head.length ? { body, truncated: false } : { body: body.slice(0, read), truncated: true };
}

/**
 * Reads at most `limit` bytes of a response body, then cancels the stream: the rest is
 * never downloaded (fetch closes the connection).
 */
async function readBounded(res: Response, limit: number): Promise<{ body: string; truncated: boolean }> {
  if (!res.body) return { body: '', truncated: false };
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { body: text + decoder.decode(), truncated: false };
    if (size + value.byteLength > limit) {
      // Not flushed: a character cut at the limit is dropped rather than kept as U+FFFD.
      text += decoder.decode(value.subarray(0, limit - size), { stream: true });
      reader.cancel().catch(() => undefined);
      return { body: text, truncated: true };
    }
    size += value.byteLength;
    text += decoder.decode(value, { stream: true });
  }
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

function isTimeout(error: unknown): boolean {
  const name = (error as { name?: string })?.name;
  return name === 'TimeoutError' || name === 'AbortError';
}

/**
 * Delivers with `fetch`, so an integrator's MSW handler or local server receives it.
 * Reads at most RECEIVER_BODY_LIMIT bytes of the answer and closes the connection on
 * the rest (`truncated: true`).
 * @example await realDeliver({ url: 'http://127.0.0.1:3000/hook', body: '{}', headers: {}, timeoutMs: 10000 })
 */
export const realDeliver: DeliverFn = async ({ method = 'POST', url, body, headers, timeoutMs }) => {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const res = await fetch(url, { method, body: body === '' ? null : body, headers, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    const { body: text, truncated } = await readBounded(res, RECEIVER_BODY_LIMIT);
    return { status: res.status, body: text, duration_ms: elapsed(), ...(truncated && { truncated }) };
  } catch (error) {
    if (isTimeout(error)) throw new WebhookTransportError('timeout', `The receiver did not answer within ${timeoutMs} ms.`, elapsed());
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new WebhookTransportError('refused', cause?.code ? `Connection failed: ${cause.code}` : `Connection failed: ${(error as Error).message}`, elapsed());
  }
};

export interface WebhookEngineOptions {
  clock: VirtualClock;
  deliver?: DeliverFn;
  timeoutMs?: number;
  /** How many deliveries the journal keeps; the oldest finished ones are evicted first. */
  journalLimit?: number;
}

export interface WebhookSnapshot {
  deliveries: { seq: number; rows: Delivery[] };
  rules: FailureRule[];
  ruleSeq: number;
  evicted: number;
}

/**
 * The delivery queue of one simulator.
 * @example
 * const delivery = sim.webhooks.send({ account_id: 1, kind: 'conversation_ended', url, payload })
 * sim.webhooks.failNext({ url, times: 2, with: 500 })
 * await sim.clock.advance('4m'); sim.webhooks.deliveries()
 */
export class WebhookEngine {
  private readonly table = new Table<Delivery>('webhook_deliveries').index('state', (d) => d.state);
  private readonly rules = new CountedRules<FailureRule>();
  private evictedCount = 0;
  private readonly ownPrefixes = new Set<string>();
  private readonly listeners: ((delivery: Delivery) => void)[] = [];
  private readonly queuedListeners: ((delivery: Delivery) => void)[] = [];
  private readonly attemptListeners: ((delivery: Delivery, attempt: WebhookAttempt) => void)[] = [];
  private readonly toolTable = new Table<ToolCall>('tool_calls');
  private toolEvictedCount = 0;
  private readonly toolListeners: ((call: ToolCall) => void)[] = [];
  private readonly deliver: DeliverFn;
  private readonly timeoutMs: number;
  private readonly journalLimit: number;

  constructor(private readonly options: WebhookEngineOptions) {
    this.deliver = options.deliver ?? realDeliver;
    this.timeoutMs = options.timeoutMs ?? RECEIVER_TIMEOUT_MS;
    this.journalLimit = options.journalLimit ?? DEFAULT_JOURNAL_LIMIT;
    options.clock.on(ATTEMPT_EVENT, (event) => this.attempt(event as ClockEvent<AttemptPayload>), record<AttemptPayload>({ delivery_id: id }));
  }

  /**
   * Records a delivery and schedules its first attempt at the current clock time. With
   * `signWith`, every attempt carries `x-signature-256` made from the body it sends.
   */
  send(input: { account_id: number; kind: WebhookKind; url: string; payload: unknown; signWith?: string | undefined }): Delivery {
    const payload = structuredClone(input.payload);
    const headers = input.signWith === undefined ? undefined : { [SIGNATURE_HEADER]: signatureOf(JSON.stringify(payload), input.signWith) };
    return this.queue({ account_id: input.account_id, kind: input.kind, url: input.url, payload, ...(headers && { headers }) });
  }

  /**
   * Delivers a delivery's body again as a new delivery, to the same URL with the same
   * headers (the platform's "resend webhook", live-platform H.11): the body is byte-identical.
   * Undefined when the journal holds no such delivery.
   */
  resend(id: number): Delivery | undefined {
    const original = this.table.get(id);
    if (!original) return undefined;
    return this.queue({
      account_id: original.account_id,
      kind: original.kind,
      url: original.url,
      payload: structuredClone(original.payload),
      ...(original.headers && { headers: { ...original.headers } }),
      resent_from: original.id,
    });
  }

  private queue(input: Pick<Delivery, 'account_id' | 'kind' | 'url' | 'payload' | 'headers' | 'resent_from'>): Delivery {
    const now = this.options.clock.now();
    const delivery = this.table.insert({ ...input, state: 'pending', attempts: [], next_attempt_at: now, response: null, created_at: now });
    this.options.clock.schedule(now, ATTEMPT_EVENT, { delivery_id: delivery.id });
    this.evict();
    for (const listener of this.queuedListeners) listener(delivery);
    return structuredClone(delivery);
  }

  /** Makes the next `times` attempts matching `url` / `kind` (any when absent) fail `with` a status, a timeout or a refusal. */
  failNext(input: { url?: string | null; kind?: WebhookKind | ToolCallKind | null; times: number; with: FailureMode }): FailureRule {
    return this.rules.add({ url: input.url ?? null, kind: input.kind ?? null, times: input.times, with: input.with });
  }

  /**
   * Makes one request now and waits for its answer: a mid-call tool's (live-platform
   * H.10; ARCHITECTURE §4, a kind with no retry, the caller's timeout in real time, and
   * the answer handed back). Journaled at the clock time it was made, before the answer
   * comes, so records keep the order requests were made in; a forced failure
   * (`failNext` with kind `tool_call` or none) answers without a request, and a URL
   * under the simulator's own API is refused as a webhook's is. With `request` null,
   * only the record of `error` is written.
   * @example const done = await sim.webhooks.request({ account_id: 1, tool_id: 3, tool: 'lookup_order', request: { method: 'GET', url, headers: {}, body: null }, timeoutMs: 10_000 })
   */
  async request(input: ToolCallInput): Promise<ToolCall> {
    const { account_id, tool_id, tool, call_id, conversation_id, request } = input;
    const row = this.toolTable.insert({
      account_id,
      at: this.options.clock.now(),
      tool_id,
      tool,
      ...(call_id !== undefined && { call_id }),
      ...(conversation_id !== undefined && { conversation_id }),
      request: request && { ...request, headers: { ...request.headers } },
      response: null,
      error: request ? null : (input.error ?? 'No request was made.'),
    });
    this.evictToolCalls();
    const outcome = request ? await this.requestOnce(request, input.timeoutMs) : { response: null, error: row.error };
    // The record itself, unless the journal dropped it meanwhile (evicted, or a reset gave its id to another).
    const done = this.toolTable.get(row.id) === row ? this.toolTable.update(row.id, outcome) : { ...row, ...outcome };
    for (const listener of this.toolListeners) listener(done);
    return structuredClone(done);
  }

  private async requestOnce(request: OutboundRequest, timeoutMs: number): Promise<Pick<ToolCall, 'response' | 'error'>> {
    const rule = this.takeRule({ url: request.url, kind: TOOL_CALL_KIND });
    if (rule) {
      if (typeof rule.with === 'number') return { response: { status: rule.with, body: '' }, error: null };
      return { response: null, error: rule.with === 'timeout' ? 'timeout (forced)' : 'refused (forced)' };
    }
    if (this.isOwn(request.url)) return { response: null, error: "refused: the URL is the simulator's own API" };
    try {
      const result = await this.deliver({ method: request.method, url: request.url, body: request.body ?? '', headers: { ...request.headers }, timeoutMs });
      const bounded = boundBody(String(result.body ?? ''));
      const truncated = bounded.truncated || result.truncated === true;
      return { response: { status: result.status, body: bounded.body, ...(truncated && { truncated: true as const }) }, error: null };
    } catch (error) {
      const transport = error instanceof WebhookTransportError ? error : new WebhookTransportError('refused', (error as Error).message);
      // The message only: its real duration would make two equal runs differ.
      return { response: null, error: `${transport.reason}: ${transport.message}` };
    }
  }

  /** The tool-call journal, oldest first; `account_id` keeps one account's. */
  toolCalls(filter: { account_id?: number | undefined } = {}): ToolCall[] {
    return this.toolTable
      .all()
      .filter((c) => filter.account_id === undefined || c.account_id === filter.account_id)
      .map((c) => structuredClone(c));
  }

  /** How many tool calls the bounded journal has dropped. */
  get toolCallsEvicted(): number {
    return this.toolEvictedCount;
  }

  /** Called with each tool call once its answer (or error) is recorded (the record itself: read it, do not keep or change it). */
  onToolCall(listener: (call: ToolCall) => void): void {
    this.toolListeners.push(listener);
  }

  /** Forced failures still waiting to be used. */
  failureRules(): FailureRule[] {
    return this.rules.list();
  }

  clearFailures(): void {
    this.rules.clear();
  }

  /** The journal, oldest first. */
  deliveries(filter: { kind?: WebhookKind | undefined; state?: DeliveryState | undefined } = {}): Delivery[] {
    return this.table
      .all()
      .filter((d) => (filter.kind === undefined || d.kind === filter.kind) && (filter.state === undefined || d.state === filter.state))
      .map((d) => structuredClone(d));
  }

  /** How many finished deliveries the bounded journal has dropped. */
  get evicted(): number {
    return this.evictedCount;
  }

  /** Called with each delivery when it ends (delivered or failed). */
  onFinished(listener: (delivery: Delivery) => void): void {
    this.listeners.push(listener);
  }

  /** Called with each new delivery, before its first attempt (the record itself: read it, do not keep or change it). */
  onQueued(listener: (delivery: Delivery) => void): void {
    this.queuedListeners.push(listener);
  }

  /**
   * Called after each attempt is recorded, with the delivery as it now stands (its
   * `state` and `next_attempt_at` say whether and when it is retried) and the attempt.
   */
  onAttempt(listener: (delivery: Delivery, attempt: WebhookAttempt) => void): void {
    this.attemptListeners.push(listener);
  }

  /** The latest `limit` deliveries of the journal, oldest first. */
  latest(limit: number): Delivery[] {
    const out: Delivery[] = [];
    for (let id = this.table.nextId - 1; id >= 1 && out.length < limit; id--) {
      const delivery = this.table.get(id);
      if (delivery) out.push(structuredClone(delivery));
    }
    return out.reverse();
  }

  /** How many deliveries the journal holds now, and how many of them are pending. */
  counts(): { total: number; pending: number; failed: number } {
    return { total: this.table.size, pending: this.table.count('state', 'pending'), failed: this.table.count('state', 'failed') };
  }

  /** URLs under `prefix` are the simulator's own API; deliveries to them fail without a request. */
  refuseUnder(prefix: string): void {
    const parsed = parseUrl(prefix);
    if (parsed) this.ownPrefixes.add(`${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`);
  }

  clear(): void {
    this.table.clear();
    this.rules.reset();
    this.evictedCount = 0;
    this.toolTable.clear();
    this.toolEvictedCount = 0;
  }

  snapshot(): WebhookSnapshot {
    const { rules, seq } = this.rules.snapshot();
    return { deliveries: this.table.snapshot(), rules, ruleSeq: seq, evicted: this.evictedCount };
  }

  /** Replaces the journal and the rules; `owned` deliveries are used as they are (see `Table.restore`). */
  restore(snapshot: WebhookSnapshot, owned = false): void {
    this.table.restore(snapshot.deliveries, owned);
    this.rules.restore({ rules: snapshot.rules, seq: snapshot.ruleSeq });
    this.evictedCount = snapshot.evicted;
    // Not part of a snapshot: the tool-call journal starts again with the restored state.
    this.toolTable.clear();
    this.toolEvictedCount = 0;
  }

  /** Changes whenever `head()` does (the state file writes it only when it moved). */
  get headRevision(): string {
    return `${this.rules.revision}|${this.evictedCount}`;
  }

  /** The journal without its deliveries: what a snapshot holds besides them. */
  head(): Omit<WebhookSnapshot, 'deliveries'> {
    const { rules, seq } = this.rules.snapshot();
    return { rules, ruleSeq: seq, evicted: this.evictedCount };
  }

  /** Reports every later change of the journal's deliveries to `observer` (undefined stops reporting). */
  observe(observer: TableObserver<Delivery> | undefined): void {
    this.table.observe(observer);
  }

  /** The highest delivery id given and the delivery record of an id (read it, do not keep or change it), for readers that walk the journal in slices. */
  get lastDeliveryId(): number {
    return this.table.lastId;
  }

  delivery(id: number): Delivery | undefined {
    return this.table.get(id);
  }

  private takeRule(delivery: { url: string; kind: WebhookKind | ToolCallKind }): FailureRule | undefined {
    return this.rules.take((r) => (r.url === null || r.url === delivery.url) && (r.kind === null || r.kind === delivery.kind));
  }

  /** Compares parsed URLs, so letter case, default ports, dot segments and queries do not slip past. */
  private isOwn(url: string): boolean {
    const parsed = parseUrl(url);
    if (!parsed) return false;
    const target = `${parsed.origin}${parsed.pathname}`;
    for (const prefix of this.ownPrefixes) if (target === prefix || target.startsWith(`${prefix}/`)) return true;
    return false;
  }

  private async send1(delivery: Delivery): Promise<WebhookAttempt & { body?: string; truncated?: boolean }> {
    const at = this.options.clock.now();
    const rule = this.takeRule(delivery);
    if (rule) {
      if (typeof rule.with === 'number') return { at, status: rule.with, error: null, duration_ms: 0, body: '' };
      return { at, status: null, error: rule.with === 'timeout' ? 'timeout (forced)' : 'refused (forced)', duration_ms: 0 };
    }
    if (this.isOwn(delivery.url)) return { at, status: null, error: "refused: the URL is the simulator's own API", duration_ms: 0 };
    try {
      const result = await this.deliver({
        url: delivery.url,
        body: JSON.stringify(delivery.payload),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'voxsim-webhooks',
          'x-voxsim-delivery': String(delivery.id),
          'x-voxsim-event': delivery.kind,
          'x-voxsim-attempt': String(delivery.attempts.length + 1),
          ...delivery.headers,
        },
        timeoutMs: this.timeoutMs,
      });
      // A custom transport's body is cut like realDeliver's; realDeliver's is cut again in
      // case invalid bytes, each decoded to a 3-byte U+FFFD, made it longer.
      const bounded = boundBody(String(result.body ?? ''));
      return { at, status: result.status, error: null, duration_ms: result.duration_ms, body: bounded.body, truncated: bounded.truncated || result.truncated === true };
    } catch (error) {
      const transport = error instanceof WebhookTransportError ? error : new WebhookTransportError('refused', (error as Error).message);
      return { at, status: null, error: `${transport.reason}: ${transport.message}`, duration_ms: transport.duration_ms };
    }
  }

  private async attempt(event: ClockEvent<{ delivery_id: number }>): Promise<void> {
    const delivery = this.table.get(event.payload.delivery_id);
    if (!delivery || delivery.state !== 'pending') return;
    const { body, truncated, ...attempt } = await this.send1(delivery);
    const attempts = [...delivery.attempts, attempt];
    const response: ReceiverResponse | null =
      attempt.status === null ? delivery.response : { status: attempt.status, body: body ?? '', ...(truncated === true && { truncated: true as const }) };
    const succeeded = attempt.status !== null && attempt.status >= 200 && attempt.status < 300;
    const retry = KIND_RULES[delivery.kind].retries(attempt.status) ? RETRY_DELAYS_MS[attempts.length - 1] : undefined;
    if (succeeded || retry === undefined) {
      const done = this.table.update(delivery.id, { attempts, response, state: succeeded ? 'delivered' : 'failed', next_attempt_at: null });
      for (const listener of this.attemptListeners) listener(done, attempt);
      for (const listener of this.listeners) listener(structuredClone(done));
      this.evict();
      return;
    }
    const next = attempt.at + retry;
    const waiting = this.table.update(delivery.id, { attempts, response, next_attempt_at: next });
    this.options.clock.schedule(next, ATTEMPT_EVENT, { delivery_id: delivery.id });
    for (const listener of this.attemptListeners) listener(waiting, attempt);
  }

  /** Keeps the tool-call journal within the journal's limit, dropping the oldest records. */
  private evictToolCalls(): void {
    while (this.toolTable.size > this.journalLimit) {
      const oldest = this.toolTable.all()[0];
      if (!oldest) return;
      this.toolTable.delete(oldest.id);
      this.toolEvictedCount++;
    }
  }

  /** Keeps the journal within its limit, dropping the oldest finished deliveries. */
  private evict(): void {
    if (this.table.size <= this.journalLimit) return;
    for (const delivery of this.table.all()) {
      if (this.table.size <= this.journalLimit) break;
      if (delivery.state === 'pending') continue;
      this.table.delete(delivery.id);
      this.evictedCount++;
    }
  }
}
