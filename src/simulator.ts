/**
 * The Simulator: the composition root. It builds the clock, the random source, the
 * tables, the engines and the control plane, gathers every domain's routes and clock
 * handlers, and answers transport-neutral requests. Rules live in the domains and
 * engines; adapters (MSW, Express) only translate.
 */
import { VirtualClock, realNow } from './core/clock.js';
import { shapeA, shapeB, COMMON_MESSAGES, SimError, errorMessageOf, familyError } from './core/errors.js';
import { EventBus } from './core/events.js';
import { Router, defineRoute, header, ok, type RouteDef, type SimRequest, type SimResponse } from './core/http.js';
import { MAX_SEED, SeededRandom } from './core/random.js';
import { CLOCK_RANGE_TEXT, formatControlTime, isClockTime, parseInstant } from './core/time.js';
import { parseControlBody, ruleMessage } from './core/validation.js';
import { WIRES, type Wire } from './core/wire.js';
import { FaultEngine, faultFailure } from './engine/faults.js';
import { OutcomeScript } from './engine/outcomes.js';
import { ReplyScript } from './engine/replies.js';
import { WebhookEngine, type DeliverFn } from './engine/webhooks.js';
import { Control } from './control/control.js';
import { openApiDocument } from './control/openapi.js';
import { controlRoutes, type ControlRouteCtx } from './control/routes.js';
import { OpenApiAnswer } from './control/schema.js';
import { accountRoutes } from './domain/accounts/routes.js';
import { AccountInput, DEFAULT_ACCOUNT, type Account } from './domain/accounts/schema.js';
import { ACCOUNT_MESSAGES, authenticate, createAccount } from './domain/accounts/service.js';
import { inSandbox } from './core/sandbox-keys.js';
import { assistantRoutes } from './domain/assistants/routes.js';
import { callEvents, postCallDeliveryFinished } from './domain/calls/events.js';
import { callRoutes } from './domain/calls/routes.js';
import { campaignEvents } from './domain/campaigns/events.js';
import { campaignRoutes } from './domain/campaigns/routes.js';
import { catalogRoutes } from './domain/catalog/routes.js';
import type { CatalogDocumentInput } from './domain/catalog/document.js';
import { catalogRefusal, checkCatalogDocument, checkCatalogOnWire } from './domain/catalog/check.js';
import { CatalogSetting } from './domain/catalog/setting.js';
import { knowledgebaseEvents } from './domain/knowledgebases/events.js';
import { knowledgebaseRoutes } from './domain/knowledgebases/routes.js';
import { toolRoutes } from './domain/tools/routes.js';
import { accountCtx, type AccountCtx } from './domain/context.js';
import { conversationEvents } from './domain/conversations/events.js';
import { conversationRoutes } from './domain/conversations/routes.js';
import { Database } from './domain/db.js';
import { leadRoutes } from './domain/leads/routes.js';
import { msgappEvents } from './domain/msgapp/events.js';
import { msgappRoutes } from './domain/msgapp/routes.js';
import { fileRoutes } from './domain/files/routes.js';
import { DEFAULT_BASE_URL, sandboxFileScope, type FileSpace } from './domain/files/service.js';
import { MessageOutcomeScript } from './engine/message-outcomes.js';
import { phoneNumberEvents } from './domain/phone-numbers/events.js';
import { phoneNumberRoutes } from './domain/phone-numbers/routes.js';
import { folderRoutes, labelRoutes } from './domain/folders-labels/routes.js';
import { sipTrunkRoutes } from './domain/sip-trunks/routes.js';
import { smsRoutes } from './domain/sms/routes.js';
import type { ClockHandler } from './domain/routing.js';
import type { SimEventMap } from './domain/sim-events.js';
import type { SimState } from './domain/state.js';
import { applyScenario, playScenario, type RunOptions, type ScenarioRun } from './scenario/runner.js';
import { readScenario } from './scenario/load.js';
import type { ScenarioInput } from './scenario/schema.js';
import { RequestJournal, type JournalEntry, type JournalRecord } from './state/journal.js';
import { SnapshotError, restoreSnapshot, takeSnapshot, type SimulatorSnapshot } from './state/snapshot.js';

export { SNAPSHOT_FORMAT, type SimulatorSnapshot } from './state/snapshot.js';
export type { JournalEntry } from './state/journal.js';

export interface SimulatorOptions {
  /** Seed of every generated value (uuids, names, numbers). Default 1. */
  seed?: number;
  /** Start of the virtual clock (ISO text, epoch ms or Date). Default: now, truncated to the second. */
  startAt?: string | number | Date;
  /**
   * Accounts to create instead of the default one (whose key is `sim_test_key`).
   * Each takes the fields of `POST /__sim/accounts`; a bad one is refused with that route's
   * SimError, its message naming the path (`accounts.0.balanse: The balanse field is not allowed; ...`).
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
  /**
   * The wire format of every answer and webhook: `spec` (default) as the specification
   * encodes bodies, `live` as the live platform does (live-platform.md, sections D and E).
   */
  wire?: Wire;
  /**
   * A catalog document (docs/catalog.md) that replaces or extends the wire's catalog of
   * voices, languages, models and providers; `reset()` returns to it. A document that
   * breaks a rule is refused as a bad account is: with the SimError of `PUT /__sim/catalog`,
   * its message naming the path (`catalog.voices.0.language_id: The selected ...`).
   */
  catalog?: CatalogDocumentInput;
  /**
   * The key of the sandbox this simulator is, set by the server that hosts it (issue 35):
   * the default account's key, and every account key must be it or start with it and `_`
   * (generated keys do), so that the server routes each key to its sandbox.
   */
  sandboxKey?: string;
}

/**
 * `GET /__sim/openapi.json`: the OpenAPI document of every route, naming the base URL it
 * was asked under as its server.
 */
const openApiRoute = defineRoute<ControlRouteCtx>({
  method: 'GET', path: '/__sim/openapi.json', family: 'control', auth: 'control', responses: () => ({ 200: OpenApiAnswer }),
  handle: ({ request }) => {
    const base = request.url?.replace(/\/__sim\/openapi\.json(\?.*)?$/, '');
    return ok(openApiDocument(ROUTES, base === undefined || base === request.url ? {} : { serverUrl: base }));
  },
});

/** Every operation the simulator serves, platform and control API alike. */
export const ROUTES: readonly RouteDef<ControlRouteCtx>[] = [
  ...accountRoutes,
  ...assistantRoutes,
  ...catalogRoutes,
  ...knowledgebaseRoutes,
  ...toolRoutes,
  ...phoneNumberRoutes,
  ...campaignRoutes,
  ...leadRoutes,
  ...callRoutes,
  ...conversationRoutes,
  ...msgappRoutes,
  ...folderRoutes,
  ...labelRoutes,
  ...sipTrunkRoutes,
  ...smsRoutes,
  ...fileRoutes,
  ...controlRoutes,
  openApiRoute,
];

/** Inspection reads of watchers, left out of the request journal and the event stream. */
const UNJOURNALED_PATHS: ReadonlySet<string> = new Set(['/__sim/requests', '/__sim/overview', '/__sim/openapi.json']);

/** Every clock event a domain schedules, with its handler. */
export const CLOCK_HANDLERS: readonly ClockHandler[] = [...phoneNumberEvents, ...campaignEvents, ...callEvents, ...conversationEvents, ...msgappEvents, ...knowledgebaseEvents];

/**
 * An option refused as the control API refuses the same input (issue 34): its SimError (422
 * shape B with every problem), the message naming the option and the first problem's path
 * (`catalog.voices.0.language_id: The selected ...`); any other error is rethrown as it is.
 */
function optionRefused(option: string, error: unknown): never {
  if (!(error instanceof SimError)) throw error;
  const { field, message } = catalogRefusal(error);
  error.message = `${field === '' ? option : `${option}.${field}`}: ${message}`;
  throw error;
}

/** The catalog option checked as `PUT /__sim/catalog` checks a body (refused as optionRefused says). */
function checkCatalog(catalog: CatalogDocumentInput | undefined, wire: Wire): CatalogSetting['document'] {
  if (catalog === undefined) return null;
  try {
    return checkCatalogDocument(catalog, wire);
  } catch (error) {
    return optionRefused('catalog', error);
  }
}

/** The accounts option, each account checked as `POST /__sim/accounts` checks a body (refused as optionRefused says, at `accounts.<index>`). */
function checkAccounts(accounts: AccountInput[] | undefined): AccountInput[] | undefined {
  if (accounts !== undefined && !Array.isArray(accounts)) {
    // Refused as a bad account is (optionRefused): the option's own path names it.
    const error = shapeB({ accounts: [ruleMessage('array', 'accounts')] });
    error.message = `accounts: ${ruleMessage('array', 'accounts')}`;
    throw error;
  }
  return accounts?.map((account, i) => {
    try {
      return parseControlBody(AccountInput, account);
    } catch (error) {
      return optionRefused(`accounts.${i}`, error);
    }
  });
}

function checkWire(wire: Wire | undefined): Wire {
  if (wire === undefined) return 'spec';
  if (!(WIRES as readonly string[]).includes(wire)) throw new RangeError(`wire must be one of ${WIRES.join(', ')}: ${String(wire)}`);
  return wire;
}

/** A clock start given as ISO text, epoch ms or a Date, in epoch ms; `name` is the option's, for the RangeError of one out of CLOCK_RANGE. */
function toEpoch(start: SimulatorOptions['startAt'], name: 'startAt' | 'start'): number {
  if (start === undefined) return Math.floor(realNow() / 1000) * 1000;
  const ms = start instanceof Date ? start.getTime() : typeof start === 'number' ? start : parseInstant(start);
  if (ms === undefined) throw new RangeError(`${name} is not an ISO 8601 time: ${String(start)}`);
  if (!isClockTime(ms)) throw new RangeError(`${name} must be a time ${CLOCK_RANGE_TEXT} (whole milliseconds): ${typeof start === 'string' ? start : ms}`);
  return ms;
}

/** The seeds a simulator takes (as `POST /__sim/reset` and snapshots do). */
function checkSeed(seed: number): number {
  if (!Number.isInteger(seed) || seed < 0 || seed > MAX_SEED) throw new RangeError(`seed must be a whole number from 0 to ${MAX_SEED}: ${seed}`);
  return seed;
}

/**
 * One simulated platform. Build a fresh one per test; it is cheap.
 * @example
 * const sim = createSimulator({ seed: 1, startAt: '2026-03-02T09:00:00Z' })
 * const res = await sim.handle({ method: 'GET', path: '/user/me', headers: { authorization: 'Bearer sim_test_key' } })
 */
export class Simulator implements SimState {
  readonly clock: VirtualClock;
  readonly db = new Database();
  readonly control: Control;
  /** Webhook deliveries: journal, forced failures (`failNext`). */
  readonly webhooks: WebhookEngine;
  /** Scripted assistant replies of chat conversations. */
  readonly replies = new ReplyScript();
  /** Scripted call outcomes (rules, sequences; magic numbers need no setup). */
  readonly outcomes = new OutcomeScript();
  /** Scripted delivery outcomes of sent messages (live-platform H.4). */
  readonly messageOutcomes = new MessageOutcomeScript();
  /** Where the simulator's files (recordings, attachments) are served (live-platform H.7): `setBaseUrl` says where it is reached. */
  readonly files: FileSpace;
  /** Forced request failures (`/__sim/faults`). */
  readonly faults = new FaultEngine();
  /** Every campaign, lead and call state change, stamped with the clock time. */
  readonly events = new EventBus<SimEventMap>();
  /** Account scopes, built once per account row. */
  readonly scopes = new WeakMap<object, unknown>();
  /** The catalog document in force and each wire's catalog (issue 27). */
  readonly catalogs: CatalogSetting;
  private readonly initialCatalog: CatalogSetting['document'];
  private randomSource: SeededRandom;
  private currentSeed: number;
  private readonly initialSeed: number;
  private readonly startMs: number;
  private readonly initialWire: Wire;
  private currentWire: Wire;
  private readonly accountInputs: AccountInput[] | undefined;
  private readonly router: Router<ControlRouteCtx>;
  private readonly adminToken: string | undefined;
  /** The key of the sandbox this simulator is (`SimulatorOptions.sandboxKey`), else null. */
  readonly sandboxKey: string | null;
  private readonly journal: RequestJournal;
  private readonly changeListeners: (() => void)[] = [];
  /** What a route sees of the simulator: the state, never the simulator itself. */
  private readonly state: SimState;
  /** The scope `accountScope` answered last. */
  private lastScope: AccountCtx | undefined;

  /** `restoring`: a snapshot is restored next (`simulatorToRestore`), so no accounts are built first. */
  constructor(options: SimulatorOptions = {}, restoring?: typeof RESTORING) {
    this.initialSeed = checkSeed(options.seed ?? 1);
    this.currentSeed = this.initialSeed;
    this.startMs = toEpoch(options.startAt, 'startAt');
    this.initialWire = checkWire(options.wire);
    this.currentWire = this.initialWire;
    this.initialCatalog = checkCatalog(options.catalog, this.initialWire);
    this.catalogs = new CatalogSetting(this.initialCatalog, this.initialWire);
    this.clock = new VirtualClock(this.startMs);
    this.randomSource = new SeededRandom(this.currentSeed);
    this.sandboxKey = options.sandboxKey ?? null;
    this.accountInputs = checkAccounts(options.accounts);
    this.adminToken = options.adminToken;
    this.journal = new RequestJournal(options.requestJournalLimit ?? 1_000);
    this.clock.onFired(() => this.changed());
    const sandboxKey = this.sandboxKey;
    this.files = {
      baseUrl: DEFAULT_BASE_URL,
      scope: sandboxKey === null ? 'sim' : sandboxFileScope(sandboxKey),
      secret: () => sandboxKey ?? `seed|${this.currentSeed}`,
    };
    this.webhooks = new WebhookEngine({
      clock: this.clock,
      ...(options.deliver && { deliver: options.deliver }),
      ...(options.webhookTimeoutMs !== undefined && { timeoutMs: options.webhookTimeoutMs }),
      ...(options.webhookJournalLimit !== undefined && { journalLimit: options.webhookJournalLimit }),
    });
    const sim = this;
    this.state = {
      db: this.db,
      clock: this.clock,
      get random() {
        return sim.randomSource;
      },
      get wire() {
        return sim.currentWire;
      },
      catalogs: this.catalogs,
      webhooks: this.webhooks,
      replies: this.replies,
      outcomes: this.outcomes,
      messageOutcomes: this.messageOutcomes,
      files: this.files,
      events: this.events,
      scopes: this.scopes,
      sandboxKey: this.sandboxKey,
    };
    this.control = new Control(this, (source) => applyScenario(this, source));
    this.router = new Router<ControlRouteCtx>(ROUTES, {
      beforeHandle: (route, request) => {
        const fault = route.family === 'control' ? undefined : this.faults.hit(route.method, route.path, request.path);
        if (fault) throw faultFailure(fault, route.failure);
      },
      ...(options.onError && { onError: options.onError }),
    });
    this.bindEvents();
    if (restoring !== RESTORING) this.createAccounts();
  }

  /** The seeded random source (replaced on reset). */
  get random(): SeededRandom {
    return this.randomSource;
  }

  get seed(): number {
    return this.currentSeed;
  }

  /**
   * Where clients reach the simulator (`http://127.0.0.1:4010/api` unless told): the links of
   * its files (recordings, attachments: live-platform H.7) start with it. The MSW handlers
   * and the server set it.
   * @example sim.setBaseUrl('https://api.example.test/api')
   */
  setBaseUrl(url: string): void {
    const base = url.replace(/\/+$/, '');
    if (base === this.files.baseUrl) return;
    this.files.baseUrl = base;
    // The kept texts of calls name their recordings' links (live-platform H.7).
    this.db.calls.dropTexts();
  }

  /** The clock's start (epoch ms): where `reset()` sets it back to. */
  get start(): number {
    return this.startMs;
  }

  /** The wire answers are encoded in (`spec` or `live`); `reset({ wire })` changes it. */
  get wire(): Wire {
    return this.currentWire;
  }

  /** Answers one request; `path` is relative to the base URL (e.g. `/user/me`, `/__sim/health`). */
  async handle(request: SimRequest): Promise<SimResponse> {
    // issue 35 (fairness): a move runs in slices and lets other simulators' requests run between them; this
    // simulator's own wait for the move to end and are answered before the next one starts, so none shows a
    // half-moved clock. A move awaiting a webhook delivery is not yielding: the receiver's calls back are
    // answered at once (docs/clock.md, Moves run in slices).
    while (this.clock.yielding) await this.clock.moveEnd();
    // The caller is read once: the route's context and the journal use the same account.
    const caller = authenticate(this.state, header(request, 'authorization'));
    const wire = request.wire ?? this.currentWire;
    // A request in another wire than the simulator's sees the state through its wire.
    const state = wire === this.currentWire ? this.state : (Object.create(this.state, { wire: { value: wire } }) as SimState);
    const response = await this.router.handle(request, (route) => this.context(request, route, caller, state), wire);
    const query = request.path.indexOf('?');
    const path = query < 0 ? request.path : request.path.slice(0, query);
    const method = request.method.toUpperCase();
    // The journal's own read and the dashboard's are not journaled (they would only record the watcher).
    if (!UNJOURNALED_PATHS.has(path)) {
      const { status } = response;
      const error = errorMessageOf(status, response.body);
      const at = this.clock.now();
      const account_id = caller?.id ?? null;
      this.journal.record({ at, method, path, status, account_id, error });
      this.events.emit('request.answered', at, { method, path, status, account_id, error });
    }
    if (method !== 'GET') this.changed();
    return response;
  }

  /**
   * A refusal of `request` with 503 and `message`, in its route family's shape (A; E on
   * chat routes; D with `SERVICE_UNAVAILABLE` on messaging sends): a failure outside the
   * core, such as a state file that cannot be written, answered as the route answers its
   * own failures.
   * @example sim.unavailable({ method: 'POST', path: '/user/lead', headers: {} }, 'The state could not be saved: …')
   */
  unavailable(request: SimRequest, message: string): SimResponse {
    return this.refusal(request, 503, message, 'SERVICE_UNAVAILABLE');
  }

  /**
   * A refusal of `request` with `status` and `message` in its route family's shape (A; E on
   * chat routes; D with `errorCode` on messaging sends), for an answer given before the
   * request reaches the core: a body too large to read, in an encoding it cannot read.
   * @example sim.refusal({ method: 'POST', path: '/user/chat/1/messages', headers: {} }, 413, 'The request body may not be larger than 5 MB.', 'PAYLOAD_TOO_LARGE')
   */
  refusal(request: Pick<SimRequest, 'method' | 'path' | 'wire'>, status: number, message: string, errorCode: string): SimResponse {
    const { route } = this.router.match(request.method.toUpperCase(), request.path);
    return { status, body: familyError(route?.family ?? 'management', status, message, errorCode).bodyOn(request.wire ?? this.currentWire) };
  }

  /** The latest requests, oldest first (`GET /__sim/requests`). */
  requests(limit?: number): { data: JournalEntry[]; evicted: number } {
    return this.journal.list(limit);
  }

  /**
   * Whether an `Authorization` header value may use the control API: always without an
   * admin token, else only `Bearer <adminToken>` (ARCHITECTURE §6).
   */
  isAdmin(authorization: string | undefined): boolean {
    return this.adminToken === undefined || authorization === `Bearer ${this.adminToken}`;
  }

  /** The latest requests with the error texts of 4xx/5xx answers, oldest first (the dashboard's overview). */
  recentRequests(limit: number): JournalRecord[] {
    return this.journal.recent(limit);
  }

  /** Called after anything that may change the state (a write request, a clock event). */
  onChange(listener: () => void): void {
    this.changeListeners.push(listener);
  }

  private changed(): void {
    for (const listener of this.changeListeners) listener();
  }

  /**
   * Empties the state, re-creates the accounts, re-seeds (`seed`, else the simulator's own
   * seed), sets the clock (`start`, else the simulator's start) and the wire (`wire`, else
   * the simulator's own). A `wire` whose catalog the simulator's catalog document does not
   * fit is refused (422 shape B on `wire`), nothing changed.
   */
  reset(options: { seed?: number | undefined; start?: string | number | undefined; wire?: Wire | undefined } = {}): void {
    // Every option is checked before anything changes.
    const seed = checkSeed(options.seed ?? this.initialSeed);
    const wire = checkWire(options.wire ?? this.initialWire);
    const start = options.start === undefined ? this.startMs : toEpoch(options.start, 'start');
    // docs/catalog.md "One document, two wires": the document the simulator was made with was checked against its own wire; on another one it must fit that wire's catalog too.
    if (this.initialCatalog !== null && wire !== this.initialWire) checkCatalogOnWire(this.initialCatalog, wire);
    this.currentSeed = seed;
    this.currentWire = wire;
    this.randomSource = new SeededRandom(seed);
    this.clock.reset(start);
    this.db.clear();
    // The catalog the simulator was made with (its option, else each wire's own).
    this.catalogs.set(this.initialCatalog, wire);
    this.webhooks.clear();
    this.replies.set([]);
    this.outcomes.clear();
    this.messageOutcomes.clear();
    this.faults.reset();
    this.events.clear();
    this.journal.clear();
    this.createAccounts();
    this.events.emit('sim.reset', this.clock.now(), { seed: this.currentSeed });
  }

  /**
   * The whole state as JSON-able data: every table, the clock with its pending events,
   * the random generator's position, webhook deliveries and failure rules, fault rules,
   * reply and outcome scripts. `restore()` continues exactly from it.
   * @example const saved = sim.snapshot(); other.restore(saved)
   */
  snapshot(): SimulatorSnapshot {
    return takeSnapshot(this, { seed: this.currentSeed, start: this.startMs, random: this.randomSource });
  }

  /**
   * Replaces the whole state with a snapshot's (a previous `snapshot()`, possibly of
   * another simulator). A snapshot that is not whole and well-formed is refused with a
   * TypeError before anything changes. With `{ owned: true }` the snapshot's objects
   * become the state, uncopied (a snapshot just parsed that the caller drops).
   */
  restore(snapshot: SimulatorSnapshot, options: { owned?: boolean } = {}): void {
    // issue 35: a sandbox keeps only accounts whose keys route to it; one that would not is refused, the state put back.
    const before = this.sandboxKey === null ? undefined : this.snapshot();
    this.randomSource = restoreSnapshot(this, snapshot, options.owned === true);
    const stray = before && this.db.accounts.all().find((account) => !inSandbox(this.sandboxKey, account.api_key));
    if (stray) {
      this.randomSource = restoreSnapshot(this, before!, true);
      throw new SnapshotError(`db.accounts[${stray.id}].api_key`, ACCOUNT_MESSAGES.snapshotOutsideSandbox(this.sandboxKey!));
    }
    this.currentSeed = snapshot.seed;
    this.events.clear();
    this.events.emit('sim.restored', this.clock.now(), { seed: this.currentSeed });
  }

  /**
   * Applies a scenario (a file path, YAML/JSON text or an object): resets to its seed and
   * start, creates its `given` resources through the API, sets its scripts, and plays its
   * steps unless `{steps: false}`. Answers the run, with `passed` and the `refs`.
   * @example const run = await sim.loadScenario('scenarios/voicemail-then-human.yaml'); expect(run.passed).toBe(true)
   */
  async loadScenario(source: string | ScenarioInput, options: RunOptions = {}): Promise<ScenarioRun> {
    return playScenario(this, await readScenario(source), options);
  }

  /** Stops realtime timers; call when a long-lived simulator is discarded. */
  dispose(): void {
    this.clock.dispose();
  }

  /** The scope of one account, for clock events that act on its behalf. */
  accountScope(accountId: number): AccountCtx | undefined {
    const account = this.db.accounts.get(accountId);
    if (!account) return undefined;
    // Nearly every clock event asks for the scope the one before it had: it is kept while
    // its account row and the generator are the same (what accountCtx would check).
    const last = this.lastScope;
    if (last !== undefined && last.account === account && last.random === this.randomSource) return last;
    return (this.lastScope = accountCtx(account, this.state));
  }

  /** Binds each domain's clock handlers (each event names its account; the handler works in that account's scope). */
  private bindEvents(): void {
    for (const { type, payload: kind, handle } of CLOCK_HANDLERS) {
      this.clock.on(
        type,
        (event) => {
          const payload = event.payload as { account_id: number };
          const ctx = this.accountScope(payload.account_id);
          // A handler that answers a promise (a mid-call tool's request) is awaited by the clock.
          return ctx ? handle(ctx, payload) : undefined;
        },
        kind,
      );
    }
    this.webhooks.onFinished((delivery) => {
      const ctx = this.accountScope(delivery.account_id);
      if (ctx) postCallDeliveryFinished(ctx, delivery);
    });
    this.bindWatchedEvents();
  }

  /**
   * The events of the engines and the clock on `sim.events` (domains emit their own
   * through their account scope). Events only report: none changes the state.
   */
  private bindWatchedEvents(): void {
    this.webhooks.onQueued((delivery) => {
      this.accountScope(delivery.account_id)?.emit('webhook.queued', { delivery_id: delivery.id, kind: delivery.kind, url: delivery.url });
    });
    this.webhooks.onAttempt((delivery, attempt) => {
      this.accountScope(delivery.account_id)?.emit('webhook.attempt', {
        delivery_id: delivery.id,
        kind: delivery.kind,
        url: delivery.url,
        attempt: delivery.attempts.length,
        status: attempt.status,
        error: attempt.error,
        duration_ms: attempt.duration_ms,
        state: delivery.state,
        next_attempt_at: delivery.next_attempt_at === null ? null : formatControlTime(delivery.next_attempt_at),
      });
    });
    this.webhooks.onToolCall((call) => {
      this.accountScope(call.account_id)?.emit('tool.called', {
        tool_call_id: call.id,
        tool_id: call.tool_id,
        tool: call.tool,
        call_id: call.call_id ?? null,
        conversation_id: call.conversation_id ?? null,
        method: call.request?.method ?? null,
        url: call.request?.url ?? null,
        status: call.response?.status ?? null,
        error: call.error,
      });
    });
    this.clock.onMoved((move) => {
      // In realtime mode time passes on its own: watchers hear of the mode, not of every step.
      if (move.by === 'realtime') return;
      this.events.emit('clock.advanced', move.to, { by: move.by, from: formatControlTime(move.from), to: formatControlTime(move.to), ran: move.ran });
    });
    this.clock.onModeChanged((mode, speed) => this.events.emit('clock.mode', this.clock.now(), { mode, speed }));
  }

  private createAccounts(): void {
    const defaults = this.sandboxKey === null ? DEFAULT_ACCOUNT : { ...DEFAULT_ACCOUNT, api_key: this.sandboxKey };
    for (const input of this.accountInputs ?? [defaults]) createAccount(this.state, input);
  }

  private context(request: SimRequest, route: RouteDef<ControlRouteCtx>, caller: Account | undefined, state: SimState): ControlRouteCtx {
    const base = { state, control: this.control };
    if (route.auth === 'control') {
      // The control API is open unless an admin token is set (ARCHITECTURE §6).
      if (!this.isAdmin(header(request, 'authorization'))) throw shapeA(401, COMMON_MESSAGES.unauthenticated);
      return { account: null, ...base };
    }
    if (route.auth === 'none') return { account: null, ...base };
    if (!caller) {
      // Authentication failures (decisions: Laravel-like 401).
      if (route.auth === 'bearer') throw shapeA(401, COMMON_MESSAGES.unauthenticated);
      return { account: null, ...base };
    }
    return { account: accountCtx(caller, state), ...base };
  }
}

/**
 * Creates a simulator.
 * @example const sim = createSimulator({ seed: 7, startAt: '2026-03-02T09:00:00Z' })
 */
export function createSimulator(options: SimulatorOptions = {}): Simulator {
  return new Simulator(options);
}

/** Marks a simulator built to restore a snapshot next (`simulatorToRestore`); not exported by the package. */
const RESTORING = Symbol('restoring');

/**
 * A simulator to restore a snapshot into before any other use (a restart of the server
 * on its state file): it builds no accounts, which the restore would replace, and which
 * would load faker for nothing (issue 29: restart). A reset later builds the accounts of
 * `options` as any simulator's does.
 * @example const sim = simulatorToRestore({ seed: 1 }); sim.restore(parsed, { owned: true })
 */
export function simulatorToRestore(options: SimulatorOptions): Simulator {
  return new Simulator(options, RESTORING);
}
