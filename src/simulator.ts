/**
 * The Simulator: owns the clock, the random source, the tables and the control plane,
 * and answers transport-neutral requests. Adapters (MSW, Express) only translate.
 */
import { VirtualClock, realNow, type ClockSnapshot } from './core/clock.js';
import type { RandomState } from './core/random.js';
import type { FaultRule } from './control/schema.js';
import type { WebhookSnapshot } from './engine/webhooks.js';
import { ReplyRuleSchema, type ReplyRule } from './engine/replies.js';
import { OutcomeRuleSchema, type OutcomeState } from './engine/outcomes.js';
import { z } from 'zod';
import { VERSION } from './version.js';
import { loadScenario } from './scenario/load.js';
import { playScenario, type RunOptions, type ScenarioRun } from './scenario/runner.js';
import { shapeA, COMMON_MESSAGES } from './core/errors.js';
import { Router, header, type RouteDef, type SimRequest, type SimResponse } from './core/http.js';
import { SeededRandom } from './core/random.js';
import { parseInstant } from './core/time.js';
import { parseInput } from './core/validation.js';
import { Control } from './control/control.js';
import { controlRoutes } from './control/routes.js';
import { accountRoutes } from './domain/accounts/routes.js';
import { AccountInput, DEFAULT_ACCOUNT } from './domain/accounts/schema.js';
import { authenticate, createAccount } from './domain/accounts/service.js';
import { assistantRoutes } from './domain/assistants/routes.js';
import { callRoutes } from './domain/calls/routes.js';
import { campaignRoutes } from './domain/campaigns/routes.js';
import { catalogRoutes } from './domain/catalog/routes.js';
import { accountCtx, type AccountCtx } from './domain/context.js';
import { leadRoutes } from './domain/leads/routes.js';
import { phoneNumberRoutes } from './domain/phone-numbers/routes.js';
import { PERIOD_END_EVENT, endBillingPeriod, type PeriodEndPayload } from './domain/phone-numbers/service.js';
import { EventBus } from './core/events.js';
import { CALL_CONNECT_EVENT, CALL_END_EVENT, CALL_RING_EVENT, beginCall, connectCall, endCall, ringCall, sendPostCallWebhook, storeWebhookResponse, type CallEventPayload } from './engine/calls.js';
import { LEAD_RETRY_EVENT, campaignCallEnded, dialCampaign, retryLead, type LeadRetryPayload } from './engine/dialer.js';
import { OutcomeScript } from './engine/outcomes.js';
import { CALL_START_EVENT, type CallStartPayload } from './domain/calls/service.js';
import { DIAL_EVENT, type DialPayload } from './domain/campaigns/service.js';
import type { Call } from './domain/calls/schema.js';
import { WebhookEngine, type DeliverFn } from './engine/webhooks.js';
import { ReplyScript } from './engine/replies.js';
import { conversationRoutes } from './domain/conversations/routes.js';
import { INACTIVITY_EVENT, endByInactivity, type InactivityPayload } from './domain/conversations/service.js';
import { msgappRoutes } from './domain/msgapp/routes.js';
import { SESSION_CLOSE_EVENT, closeWindow, type SessionClosePayload } from './domain/msgapp/service.js';
import { Database } from './domain/db.js';
import type { RouteCtx } from './domain/routing.js';

export interface SimulatorOptions {
  /** Seed of every generated value (uuids, names, numbers). Default 1. */
  seed?: number;
  /** Start of the virtual clock (ISO text, epoch ms or Date). Default: now, truncated to the second. */
  startAt?: string | number | Date;
  /**
   * Accounts to create instead of the default one (whose key is `sim_test_key`).
   * Each takes the fields of `POST /__sim/accounts`.
   */
  accounts?: AccountInput[];
  /** Sees unexpected exceptions (the answer is a 500 either way). */
  onError?: (error: unknown, request: SimRequest) => void;
  /** Sends webhook attempts; default: `fetch` (so MSW handlers and local servers receive them). */
  deliver?: DeliverFn;
  /** How long a webhook receiver may take to answer, in real milliseconds. Default 10,000. */
  webhookTimeoutMs?: number;
  /** How many webhook deliveries the journal keeps. Default 1,000. */
  webhookJournalLimit?: number;
  /** When set, the control API (`/__sim`) requires `Authorization: Bearer <adminToken>`. */
  adminToken?: string;
  /** How many requests `GET /__sim/requests` keeps. Default 1,000. */
  requestJournalLimit?: number;
}

/** One request in the journal (`GET /__sim/requests`). */
export interface JournalEntry {
  at: number;
  method: string;
  path: string;
  status: number;
  account_id: number | null;
}

const ROUTES: readonly RouteDef<RouteCtx>[] = [
  ...accountRoutes,
  ...assistantRoutes,
  ...catalogRoutes,
  ...phoneNumberRoutes,
  ...campaignRoutes,
  ...leadRoutes,
  ...callRoutes,
  ...conversationRoutes,
  ...msgappRoutes,
  ...controlRoutes,
];

function toEpoch(start: SimulatorOptions['startAt']): number {
  if (start === undefined) return Math.floor(realNow() / 1000) * 1000;
  if (start instanceof Date) return start.getTime();
  if (typeof start === 'number') return start;
  const ms = parseInstant(start);
  if (ms === undefined) throw new RangeError(`startAt is not an ISO 8601 time: ${start}`);
  return ms;
}

export const SNAPSHOT_FORMAT = 'voxsim-snapshot/1';

/** Everything `restore()` needs; plain JSON. */
export interface SimulatorSnapshot {
  format: typeof SNAPSHOT_FORMAT;
  version: string;
  seed: number;
  start: number;
  clock: ClockSnapshot;
  random: RandomState;
  db: ReturnType<Database['snapshot']>;
  webhooks: WebhookSnapshot;
  replies: ReplyRule[];
  outcomes: OutcomeState;
  faults: { rules: FaultRule[]; seq: number };
}

const uint32 = z.number().int().min(0).max(0xffffffff);
const tableSnapshot = z.object({ seq: z.number().int().min(0), rows: z.array(z.object({ id: z.number().int().positive() }).passthrough()) });

/** The shape a snapshot must have to be restored (every table present, the clock and scripts well-formed). */
function snapshotSchema(tables: string[]) {
  return z.object({
    format: z.literal(SNAPSHOT_FORMAT),
    version: z.string(),
    seed: z.number().int().min(0),
    start: z.number().finite(),
    clock: z.object({
      now: z.number().finite(),
      seq: z.number().int().min(0),
      mode: z.enum(['manual', 'realtime']),
      speed: z.number().positive().finite(),
      events: z.array(z.object({ id: z.number().int(), seq: z.number().int(), at: z.number().finite(), type: z.string(), payload: z.unknown() })),
    }),
    random: z.tuple([uint32, uint32, uint32, uint32]),
    db: z.object(Object.fromEntries(tables.map((name) => [name, tableSnapshot]))),
    webhooks: z.object({ deliveries: tableSnapshot, rules: z.array(z.object({ id: z.number().int() }).passthrough()), ruleSeq: z.number().int().min(0), evicted: z.number().int().min(0) }),
    replies: z.array(ReplyRuleSchema),
    outcomes: z.object({ rules: z.array(OutcomeRuleSchema), attempts: z.record(z.string(), z.number().int().min(0)) }),
    faults: z.object({ rules: z.array(z.object({ id: z.number().int() }).passthrough()), seq: z.number().int().min(0) }),
  });
}

/**
 * One simulated platform. Build a fresh one per test; it is cheap.
 * @example
 * const sim = createSimulator({ seed: 1, startAt: '2026-03-02T09:00:00Z' })
 * const res = await sim.handle({ method: 'GET', path: '/user/me', headers: { authorization: 'Bearer sim_test_key' } })
 */
export class Simulator {
  readonly clock: VirtualClock;
  readonly db = new Database();
  readonly control: Control;
  /** Webhook deliveries: journal, forced failures (`failNext`). */
  readonly webhooks: WebhookEngine;
  /** Scripted assistant replies of chat conversations. */
  readonly replies = new ReplyScript();
  /** Scripted call outcomes (rules, sequences; magic numbers need no setup). */
  readonly outcomes = new OutcomeScript();
  /** Every campaign, lead and call state change, stamped with the clock time. */
  readonly events = new EventBus();
  /** Account scopes, built once per account row. */
  readonly scopes = new WeakMap<object, unknown>();
  private randomSource: SeededRandom;
  private currentSeed: number;
  private readonly initialSeed: number;
  private readonly startMs: number;
  private readonly accountInputs: AccountInput[] | undefined;
  private readonly router: Router<RouteCtx>;
  private readonly adminToken: string | undefined;
  private readonly journalLimit: number;
  private journal: JournalEntry[] = [];
  private journalEvicted = 0;
  private readonly changeListeners: (() => void)[] = [];

  constructor(options: SimulatorOptions = {}) {
    this.initialSeed = options.seed ?? 1;
    this.currentSeed = this.initialSeed;
    this.startMs = toEpoch(options.startAt);
    this.clock = new VirtualClock(this.startMs);
    this.randomSource = new SeededRandom(this.currentSeed);
    this.accountInputs = options.accounts?.map((a) => parseInput(AccountInput, a, 'control'));
    this.adminToken = options.adminToken;
    this.journalLimit = options.requestJournalLimit ?? 1_000;
    this.clock.onFired(() => this.changed());
    this.webhooks = new WebhookEngine({
      clock: this.clock,
      ...(options.deliver && { deliver: options.deliver }),
      ...(options.webhookTimeoutMs !== undefined && { timeoutMs: options.webhookTimeoutMs }),
      ...(options.webhookJournalLimit !== undefined && { journalLimit: options.webhookJournalLimit }),
    });
    this.control = new Control(this);
    this.router = new Router<RouteCtx>(ROUTES, {
      context: (request, route) => this.context(request, route),
      beforeHandle: (route, request) => {
        if (route.family !== 'control' && this.control.takeFault(route.method, route.path, request.path)) throw route.failure?.() ?? shapeA(500, COMMON_MESSAGES.serverError);
      },
      ...(options.onError && { onError: options.onError }),
    });
    this.registerClockHandlers();
    this.createAccounts();
  }

  /** The seeded random source (replaced on reset). */
  get random(): SeededRandom {
    return this.randomSource;
  }

  get seed(): number {
    return this.currentSeed;
  }

  /** Answers one request; `path` is relative to the base URL (e.g. `/user/me`, `/__sim/health`). */
  async handle(request: SimRequest): Promise<SimResponse> {
    const response = await this.router.handle(request);
    const path = request.path.split('?')[0]!;
    if (path !== '/__sim/requests') {
      const account = authenticate(this, header(request, 'authorization'));
      this.journal.push({ at: this.clock.now(), method: request.method.toUpperCase(), path, status: response.status, account_id: account?.id ?? null });
      if (this.journal.length > this.journalLimit) {
        this.journal.shift();
        this.journalEvicted++;
      }
    }
    if (request.method.toUpperCase() !== 'GET') this.changed();
    return response;
  }

  /** The latest requests, oldest first (`GET /__sim/requests`). */
  requests(limit = this.journalLimit): { data: JournalEntry[]; evicted: number } {
    return { data: this.journal.slice(-limit).map((e) => ({ ...e })), evicted: this.journalEvicted };
  }

  /** Called after anything that may change the state (a write request, a clock event). */
  onChange(listener: () => void): void {
    this.changeListeners.push(listener);
  }

  private changed(): void {
    for (const listener of this.changeListeners) listener();
  }

  /** Empties the state, re-creates the accounts, re-seeds (`seed`, else the simulator's own seed) and sets the clock (`start`, else the simulator's start). */
  reset(options: { seed?: number | undefined; start?: string | number | undefined } = {}): void {
    this.currentSeed = options.seed ?? this.initialSeed;
    this.randomSource = new SeededRandom(this.currentSeed);
    this.clock.reset(options.start === undefined ? this.startMs : toEpoch(options.start));
    this.db.clear();
    this.webhooks.clear();
    this.replies.set([]);
    this.outcomes.clear();
    this.events.clear();
    this.journal = [];
    this.journalEvicted = 0;
    this.createAccounts();
  }

  /**
   * The whole state as JSON-able data: every table, the clock with its pending events,
   * the random generator's position, webhook deliveries and failure rules, reply and
   * outcome scripts. `restore()` continues exactly from it.
   * @example const saved = sim.snapshot(); other.restore(saved)
   */
  snapshot(): SimulatorSnapshot {
    return {
      format: SNAPSHOT_FORMAT,
      version: VERSION,
      seed: this.currentSeed,
      start: this.startMs,
      clock: this.clock.snapshot(),
      random: this.randomSource.state,
      db: this.db.snapshot(),
      webhooks: this.webhooks.snapshot(),
      replies: this.replies.list(),
      outcomes: this.outcomes.snapshot(),
      faults: this.control.faultState(),
    };
  }

  /**
   * Replaces the whole state with a snapshot's (a previous `snapshot()`, possibly of
   * another simulator). A snapshot that is not whole and well-formed is refused with a
   * TypeError before anything changes.
   */
  restore(snapshot: SimulatorSnapshot): void {
    if (snapshot?.format !== SNAPSHOT_FORMAT) throw new TypeError(`Not a voxsim snapshot (expected format "${SNAPSHOT_FORMAT}").`);
    const checked = snapshotSchema(this.db.tableNames()).safeParse(snapshot);
    if (!checked.success) {
      const issue = checked.error.issues[0]!;
      throw new TypeError(`The snapshot is damaged at ${issue.path.join('.') || 'its top level'}: ${issue.message}`);
    }
    const copy = structuredClone(snapshot);
    this.currentSeed = copy.seed;
    this.randomSource = new SeededRandom(copy.seed);
    this.randomSource.state = copy.random;
    this.db.restore(copy.db);
    this.clock.restore(copy.clock);
    this.webhooks.restore(copy.webhooks);
    this.replies.set(copy.replies);
    this.outcomes.restore(copy.outcomes);
    this.control.restoreFaults(copy.faults);
    this.events.clear();
  }

  /**
   * Applies a scenario (a file path, YAML/JSON text or an object): resets to its seed and
   * start, creates its `given` resources through the API, sets its scripts, and plays its
   * steps unless `{steps: false}`. Answers the run, with `passed` and the `refs`.
   * @example const run = await sim.loadScenario('scenarios/voicemail-then-human.yaml'); expect(run.passed).toBe(true)
   */
  async loadScenario(source: string | Record<string, unknown>, options: RunOptions = {}): Promise<ScenarioRun> {
    let text: string | Record<string, unknown> = source;
    let file = '<scenario>';
    if (typeof source === 'string' && !source.includes('\n') && /\.(ya?ml|json)$/i.test(source.trim())) {
      const { readFile } = await import('node:fs/promises');
      file = source.trim();
      text = await readFile(file, 'utf8');
    }
    return playScenario(this, loadScenario(text, file), options);
  }

  /** Stops realtime timers; call when a long-lived simulator is discarded. */
  dispose(): void {
    this.clock.dispose();
  }

  /** The scope of one account, for clock events that act on its behalf. */
  accountScope(accountId: number): AccountCtx | undefined {
    const account = this.db.accounts.get(accountId);
    return account ? accountCtx(account, this) : undefined;
  }

  private registerClockHandlers(): void {
    // Each event names its account; the handler works in that account's scope.
    const inAccount = <P extends { account_id: number }>(type: string, handle: (ctx: AccountCtx, payload: P) => void) =>
      this.clock.on(type, (event) => {
        const payload = event.payload as P;
        const ctx = this.accountScope(payload.account_id);
        if (ctx) handle(ctx, payload);
      });
    inAccount<PeriodEndPayload>(PERIOD_END_EVENT, endBillingPeriod);
    inAccount<InactivityPayload>(INACTIVITY_EVENT, endByInactivity);
    inAccount<SessionClosePayload>(SESSION_CLOSE_EVENT, closeWindow);
    inAccount<DialPayload>(DIAL_EVENT, dialCampaign);
    inAccount<LeadRetryPayload>(LEAD_RETRY_EVENT, retryLead);
    inAccount<CallStartPayload>(CALL_START_EVENT, (ctx, payload) => {
      const call = ctx.calls.get(payload.call_id);
      if (call) beginCall(ctx, call, { phone_number: call.client_phone_number, campaign_id: null, lead_variables: null });
    });
    inAccount<CallEventPayload>(CALL_RING_EVENT, ringCall);
    // A campaign call that ended frees its slot and settles its lead; then its webhook goes out.
    const ended = (ctx: AccountCtx, call: Call | undefined) => {
      if (!call) return;
      if (call.campaign_id !== null) campaignCallEnded(ctx, call);
      sendPostCallWebhook(ctx, call);
    };
    inAccount<CallEventPayload>(CALL_CONNECT_EVENT, (ctx, payload) => ended(ctx, connectCall(ctx, payload)));
    inAccount<CallEventPayload>(CALL_END_EVENT, (ctx, payload) => ended(ctx, endCall(ctx, payload)));
    // decisions: Post-call webhook payload: the receiver's answer is stored as the call's webhook_response.
    this.webhooks.onFinished((delivery) => {
      const callId = (delivery.payload as { id?: unknown }).id;
      const ctx = this.accountScope(delivery.account_id);
      if (delivery.kind === 'post_call' && ctx && typeof callId === 'number') storeWebhookResponse(ctx, callId, delivery.response, delivery.state);
    });
  }

  private createAccounts(): void {
    for (const input of this.accountInputs ?? [DEFAULT_ACCOUNT]) createAccount(this, input);
  }

  private context(request: SimRequest, route: RouteDef<RouteCtx>): RouteCtx {
    if (route.auth === 'control') {
      // The control API is open unless an admin token is set (ARCHITECTURE §6).
      if (this.adminToken !== undefined && header(request, 'authorization') !== `Bearer ${this.adminToken}`) throw shapeA(401, COMMON_MESSAGES.unauthenticated);
      return { account: null, sim: this };
    }
    if (route.auth === 'none') return { account: null, sim: this };
    const account = authenticate(this, header(request, 'authorization'));
    if (!account) {
      // Authentication failures (decisions: Laravel-like 401).
      if (route.auth === 'bearer') throw shapeA(401, COMMON_MESSAGES.unauthenticated);
      return { account: null, sim: this };
    }
    return { account: accountCtx(account, this), sim: this };
  }
}

/**
 * Creates a simulator.
 * @example const sim = createSimulator({ seed: 7, startAt: '2026-03-02T09:00:00Z' })
 */
export function createSimulator(options: SimulatorOptions = {}): Simulator {
  return new Simulator(options);
}
