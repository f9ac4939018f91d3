/**
 * `sim.control`: the in-process control plane. Each method is also one `/__sim`
 * route (routes.ts), and both validate input the same way.
 */
import type * as z from 'zod';
import { shapeB } from '../core/errors.js';
import { ClockRangeError, MAX_MOVE_MS, parseDuration } from '../core/clock.js';
import type { SimEventListener, Subscription } from '../core/events.js';
import { formatControlTime, parseInstant } from '../core/time.js';
import { parseControlBody, parseInput, unknownKeyErrors, validationFailure } from '../core/validation.js';
import type { ObjectSchema } from '../core/lazy-schema.js';
import type { Wire } from '../core/wire.js';
import type { FaultEngine } from '../engine/faults.js';
import { OutcomeRulesBody, type OutcomeRuleSchema } from '../engine/outcomes.js';
import { ReplyRulesBody } from '../engine/replies.js';
import { AccountInput, AccountPatch, serialiseAccount } from '../domain/accounts/schema.js';
import { createAccount, patchAccount } from '../domain/accounts/service.js';
import type { SimEventMap } from '../domain/sim-events.js';
import { catalogDocumentOf, type CatalogDocumentInput } from '../domain/catalog/document.js';
import { setCatalog } from '../domain/catalog/service.js';
import { InsertCallBody, serialiseCall } from '../domain/calls/schema.js';
import { insertCall, ringInbound } from '../domain/calls/service.js';
import { resumeAfterTopUp } from '../domain/campaigns/service.js';
import type { AccountCtx } from '../domain/context.js';
import {
  ChannelMessagesQuery,
  CreateSenderBody,
  CreateTemplateBody,
  InboundBody,
  SenderPatchBody,
  TemplatePatchBody,
  serialiseControlSender,
  serialiseControlTemplate,
} from '../domain/msgapp/schema.js';
import { createSender, createTemplate, listChannelMessages, patchSender, patchTemplate, receiveCustomerMessage, sendTestReceipt } from '../domain/msgapp/service.js';
import { MessageOutcomeRulesBody } from '../engine/message-outcomes.js';
import { shapeA } from '../core/errors.js';
import { InsertNumberBody, serialiseCharge, serialisePhoneNumber } from '../domain/phone-numbers/schema.js';
import { serialiseStoredDocument } from '../domain/knowledgebases/schema.js';
import { insertPhoneNumber } from '../domain/phone-numbers/service.js';
import { serialiseSms } from '../domain/sms/schema.js';
import { testTool } from '../domain/tools/calls.js';
import type { SimState } from '../domain/state.js';
import type { JournalEntry, JournalRecord } from '../state/journal.js';
import { SNAPSHOT_FORMAT, SnapshotError, type SimulatorSnapshot } from '../state/snapshot.js';
import { VERSION } from '../version.js';
import { overview } from './overview.js';
import type { ScenarioInput } from '../scenario/schema.js';
import {
  AdvanceBody,
  CLOCK_MESSAGES,
  ChargesQuery,
  DocumentsQuery,
  RequestsQuery,
  InboundCallBody,
  ClockModeBody,
  DeliveriesQuery,
  EventStreamQuery,
  OverviewQuery,
  WebhookFailureBody,
  ToolCallsQuery,
  serialiseToolCall,
  type ToolCallRecord,
  type ToolCallsAnswer,
  serialiseDelivery,
  serialiseFailureRule,
  FaultBody,
  ResetBody,
  RunUntilIdleBody,
  serialiseClock,
  serialiseClockMove,
  type HealthAnswer,
  type OkAnswer,
  type RequestsAnswer,
  type ResetAnswer,
  type RunUntilIdleAnswer,
  type StateRestored,
} from './schema.js';

/** What the control plane drives: the state and the simulator-wide operations. */
export interface ControlHost extends SimState {
  readonly faults: FaultEngine;
  readonly seed: number;
  reset(options: { seed?: number | undefined; start?: string | number | undefined; wire?: Wire | undefined }): void;
  snapshot(): SimulatorSnapshot;
  restore(snapshot: SimulatorSnapshot): void;
  requests(limit?: number): { data: JournalEntry[]; evicted: number };
  /** The latest requests with the error texts of failed answers. */
  recentRequests(limit: number): JournalRecord[];
  accountScope(accountId: number): AccountCtx | undefined;
}

/** Applies a scenario's set-up (no steps) given as YAML or JSON text or an object; provided by the composition root. */
export type ScenarioApplier = (source: string | ScenarioInput) => Promise<{ name: string; refs: Record<string, unknown> }>;

/** Input of a control operation as callers write it: its schema's input type (still validated at run time). */
type In<S extends z.ZodType> = z.input<S>;
/** An outcome sequence as `forNumber` and friends take it. */
export type OutcomesInput = z.input<typeof OutcomeRuleSchema>['outcomes'];

/** Refuses a body with keys its schema does not have (a body the engine parses itself after). */
function closed(schema: ObjectSchema, input: unknown): void {
  const errors = unknownKeyErrors(schema, input);
  if (Object.keys(errors).length > 0) throw validationFailure(errors, 'control');
}

/**
 * The control operations of one simulator.
 * @example
 * await sim.control.clock.advance({ by: '2h' })
 * sim.control.accounts.create({ api_key: 'sim_second_key', balance: 5 })
 */
export class Control {
  constructor(
    private readonly sim: ControlHost,
    private readonly applyScenario: ScenarioApplier,
  ) {}

  /** Each group of operations, built on its first use: most simulators never use most of them. */
  private readonly groups = new Map<string, unknown>();

  private once<T>(name: string, build: () => T): T {
    let group = this.groups.get(name) as T | undefined;
    if (group === undefined) {
      group = build();
      this.groups.set(name, group);
    }
    return group;
  }

  /** `GET /__sim/health`. */
  health(): HealthAnswer {
    return { ok: true, version: VERSION, now: formatControlTime(this.sim.clock.now()) };
  }

  /** `POST /__sim/reset`: empties the state, re-creates the accounts and fixtures, re-seeds, resets the clock. */
  reset(input: In<typeof ResetBody> = {}): ResetAnswer {
    const body = parseControlBody(ResetBody, input);
    this.sim.reset({ seed: body.seed, start: body.start, wire: body.wire });
    return { ok: true, seed: this.sim.seed, now: formatControlTime(this.sim.clock.now()) };
  }

  /**
   * `GET /__sim/overview?limit`: the dashboard's aggregate (clock, accounts and balances,
   * each campaign's leads by state, the latest calls, deliveries, messaging sessions and
   * requests). Reads only.
   */
  overview(input: In<typeof OverviewQuery> = {}) {
    const { limit } = parseInput(OverviewQuery, input, 'control');
    return overview(this.sim, limit);
  }

  get events() {
    return this.once('events', () => ({
      /**
       * `GET /__sim/events` (WebSocket): calls `listener` with the journal's events after
       * `since` that pass the filters (`type` prefixes, `account_id`), then with every new
       * one; `stop()` ends it. Invalid filters: 422 shape B.
       * @example const sub = sim.control.events.subscribe({ type: ['call.'], since: 0 }, (e) => log.push(e)); sub.stop()
       */
      subscribe: (input: In<typeof EventStreamQuery>, listener: SimEventListener<SimEventMap>): Subscription => {
        const query = parseInput(EventStreamQuery, input, 'control');
        return this.sim.events.subscribe({ types: query.type, accountId: query.account_id, since: query.since }, listener);
      },
      /** Validates stream filters without subscribing (so a transport can refuse them before it upgrades). */
      filters: (input: In<typeof EventStreamQuery>) => parseInput(EventStreamQuery, input, 'control'),
    }));
  }

  get requests() {
    return this.once('requests', () => ({
      /** `GET /__sim/requests?limit`: the latest requests, oldest first. */
      list: (input: In<typeof RequestsQuery> = {}): RequestsAnswer => {
        const { limit } = parseInput(RequestsQuery, input, 'control');
        const { data, evicted } = this.sim.requests(limit);
        return { data: data.map((e) => ({ ...e, at: formatControlTime(e.at) })), evicted };
      },
    }));
  }

  get scenario() {
    return this.once('scenario', () => ({
      /**
       * `POST /__sim/scenario`: loads a scenario given as YAML or JSON text (never a file
       * path) or as an object, without its steps. A scenario that fails leaves the state
       * as it was.
       */
      load: async (source: string | ScenarioInput) => {
        const backup = this.sim.snapshot();
        try {
          return await this.applyScenario(source);
        } catch (error) {
          this.sim.restore(backup);
          throw shapeB({ scenario: [(error as Error).message] });
        }
      },
    }));
  }

  get state() {
    return this.once('state', () => ({
      /** `GET /__sim/state`: the whole state (store, clock, pending events, scripts). */
      get: () => this.sim.snapshot(),
      /** `PUT /__sim/state`: replaces the whole state with a snapshot. */
      put: (snapshot: SimulatorSnapshot | Record<string, unknown>): StateRestored => {
        if (snapshot.format !== SNAPSHOT_FORMAT) throw shapeB({ format: [`The format must be "${SNAPSHOT_FORMAT}" (the body of GET /__sim/state).`] });
        const backup = this.sim.snapshot();
        try {
          this.sim.restore(snapshot as unknown as SimulatorSnapshot);
        } catch (error) {
          // A rejected request changes nothing: a damaged snapshot is refused before anything changes
          // (so the event history stays too); the backup is for what no check foresaw.
          if (error instanceof SnapshotError) throw shapeB({ [error.path]: [error.message] });
          this.sim.restore(backup);
          throw shapeB({ state: ['The snapshot is damaged and could not be restored.'] });
        }
        return { ok: true, now: formatControlTime(this.sim.clock.now()) };
      },
    }));
  }

  get clock() {
    return this.once('clock', () => ({
      /** `GET /__sim/clock`. */
      get: () => serialiseClock(this.sim.clock),
      /** `POST /__sim/clock/advance` with `{by}` or `{to}`. */
      advance: async (input: In<typeof AdvanceBody>) => {
        const body = parseControlBody(AdvanceBody, input);
        const now = this.sim.clock.now();
        const field = body.to !== undefined ? 'to' : 'by';
        const target = body.to !== undefined ? parseInstant(body.to)! : now + parseDuration(body.by!);
        if (target < now) throw shapeB({ to: ['The to may not be before the current simulated time.'] });
        // One move is bounded, so a single request cannot keep the server busy for ever.
        if (target - now > MAX_MOVE_MS) throw shapeB({ [field]: [CLOCK_MESSAGES.horizon(field)] });
        try {
          const ran = body.to !== undefined ? await this.sim.clock.advanceTo(target) : await this.sim.clock.advance(body.by!);
          return serialiseClockMove(this.sim.clock, ran);
        } catch (error) {
          // Checked by the clock when the move runs: a move queued behind another starts where that one ends.
          if (error instanceof ClockRangeError) throw shapeB({ [field]: [CLOCK_MESSAGES.pastEnd(field)] });
          throw error;
        }
      },
      /** `POST /__sim/clock/run-until-idle`. */
      runUntilIdle: async (input: In<typeof RunUntilIdleBody> = {}): Promise<RunUntilIdleAnswer> => {
        const body = parseControlBody(RunUntilIdleBody, input);
        const ran = await this.sim.clock.runUntilIdle(body.max_events === undefined ? {} : { maxEvents: body.max_events });
        // Periodic events (renewals) never let the queue become idle; they are reported, not run,
        // as are the other events left beyond the horizon (or by max_events).
        const { pendingCount, periodicCount } = this.sim.clock;
        return { ...serialiseClockMove(this.sim.clock, ran), pending: pendingCount - periodicCount, periodic_pending: periodicCount };
      },
      /** `PUT /__sim/clock`: manual, or realtime at `speed`. */
      setMode: (input: In<typeof ClockModeBody>) => {
        const body = parseControlBody(ClockModeBody, input);
        this.sim.clock.setMode(body.mode, body.speed);
        return serialiseClock(this.sim.clock);
      },
    }));
  }

  get accounts() {
    return this.once('accounts', () => ({
      /** `POST /__sim/accounts`. */
      create: (input: In<typeof AccountInput> = {}) => serialiseAccount(createAccount(this.sim, parseControlBody(AccountInput, input))),
      /** `GET /__sim/accounts`. */
      list: () => ({ data: this.sim.db.accounts.all().map(serialiseAccount) }),
      /** `PATCH /__sim/accounts/{id}`. */
      patch: (id: number, input: In<typeof AccountPatch>) => {
        const account = patchAccount(this.sim, id, parseControlBody(AccountPatch, input));
        // decisions: Balance and dialing: a raised balance resumes the campaigns that paused for it.
        resumeAfterTopUp(this.sim.accountScope(account.id)!);
        return serialiseAccount(account);
      },
    }));
  }

  get phoneNumbers() {
    return this.once('phoneNumbers', () => ({
      /** `POST /__sim/phone-numbers`: a sip or caller-ID number for an account. */
      add: (input: In<typeof InsertNumberBody>) => serialisePhoneNumber(insertPhoneNumber(this.sim, parseControlBody(InsertNumberBody, input))),
    }));
  }

  get calls() {
    return this.once('calls', () => ({
      /** `POST /__sim/calls`: a finished call record, as `GET /user/calls/{id}` shows it. */
      insert: (input: In<typeof InsertCallBody>) => serialiseCall(insertCall(this.sim, parseControlBody(InsertCallBody, input)), this.sim.files),
      /** `POST /__sim/calls/inbound`: `{to, from}` rings the inbound assistant of `to`. */
      inbound: (input: In<typeof InboundCallBody>) => ({ call_id: ringInbound(this.sim, parseControlBody(InboundCallBody, input)).id }),
    }));
  }

  get outcomes() {
    return this.once('outcomes', () => ({
      /** `PUT /__sim/outcomes`: replaces every outcome rule. */
      set: (input: In<typeof OutcomeRulesBody>) => {
        closed(OutcomeRulesBody, input);
        this.sim.outcomes.set(input.rules);
        return { rules: this.sim.outcomes.list() };
      },
      /** `GET /__sim/outcomes`. */
      list: () => ({ rules: this.sim.outcomes.list() }),
      /** Adds a rule for one dialed number: `forNumber('+15551230003', ['voicemail', 'human'])`. */
      forNumber: (phoneNumber: string, outcomes: OutcomesInput) => this.addOutcomeRule({ match: { phone_number: phoneNumber }, outcomes }),
      /** Adds a rule for every number a campaign dials. */
      forCampaign: (campaignId: number, outcomes: OutcomesInput) => this.addOutcomeRule({ match: { campaign_id: campaignId }, outcomes }),
      /** Adds a rule for leads whose variables include these values. */
      forLeadVariables: (variables: Record<string, unknown>, outcomes: OutcomesInput) => this.addOutcomeRule({ match: { lead_variables: variables }, outcomes }),
    }));
  }

  get charges() {
    return this.once('charges', () => ({
      /** `GET /__sim/charges?account_id`: monthly number charges, oldest first. */
      list: (input: In<typeof ChargesQuery> = {}) => {
        const { account_id } = parseInput(ChargesQuery, input, 'control');
        return { data: this.sim.db.charges.all().filter((c) => account_id === undefined || c.account_id === account_id).map(serialiseCharge) };
      },
    }));
  }

  get documents() {
    return this.once('documents', () => ({
      /**
       * `GET /__sim/documents?account_id&knowledgebase_id`: knowledge base documents with
       * their stored source (URL, links, link limit, file name and size), in id order.
       */
      list: (input: In<typeof DocumentsQuery> = {}) => {
        const { account_id, knowledgebase_id } = parseInput(DocumentsQuery, input, 'control');
        const keep = (d: { account_id: number; knowledgebase_id: number }) =>
          (account_id === undefined || d.account_id === account_id) && (knowledgebase_id === undefined || d.knowledgebase_id === knowledgebase_id);
        return { data: this.sim.db.documents.all().filter(keep).map(serialiseStoredDocument) };
      },
    }));
  }

  get sms() {
    return this.once('sms', () => ({
      /** `GET /__sim/sms?account_id`: the SMS sent, in id order (live-platform C.6). Reads only. */
      list: (input: In<typeof ChargesQuery> = {}) => {
        const { account_id } = parseInput(ChargesQuery, input, 'control');
        return { data: this.sim.db.sms.all().filter((m) => account_id === undefined || m.account_id === account_id).map(serialiseSms) };
      },
    }));
  }

  get webhooks() {
    return this.once('webhooks', () => ({
      /** `POST /__sim/webhooks/failures`: the next `times` matching attempts fail `with` a status, "timeout" or "refused". */
      failNext: (input: In<typeof WebhookFailureBody>) => serialiseFailureRule(this.sim.webhooks.failNext(parseControlBody(WebhookFailureBody, input))),
      /** `GET /__sim/webhooks/failures`. */
      failures: () => ({ data: this.sim.webhooks.failureRules().map(serialiseFailureRule) }),
      /** `DELETE /__sim/webhooks/failures`. */
      clearFailures: (): OkAnswer => {
        this.sim.webhooks.clearFailures();
        return { ok: true };
      },
      /**
       * `POST /__sim/webhooks/deliveries/{id}/resend`: the delivery's body again, byte-identical,
       * to the same URL with the same headers, as a new delivery (live-platform H.11); 404 for an id the journal does not hold.
       */
      resend: (id: number) => {
        const delivery = this.sim.webhooks.resend(id);
        if (!delivery) throw shapeA(404, 'Delivery not found.');
        return serialiseDelivery(delivery);
      },
      /** `GET /__sim/webhooks/deliveries?kind&state`: the journal, oldest first, with how many were evicted. */
      deliveries: (input: In<typeof DeliveriesQuery> = {}) => {
        const query = parseInput(DeliveriesQuery, input, 'control');
        return { data: this.sim.webhooks.deliveries(query).map(serialiseDelivery), evicted: this.sim.webhooks.evicted };
      },
    }));
  }

  get toolCalls() {
    return this.once('toolCalls', () => ({
      /**
       * `GET /__sim/tool-calls?account_id`: every mid-call tool request with the endpoint's
       * answer or the error, oldest first, with how many the bounded journal dropped (live-platform H.10). Reads only.
       * @example (await sim.control.toolCalls.list()).data[0].response // { status: 200, body: '{"status":"shipped"}' }
       */
      list: (input: In<typeof ToolCallsQuery> = {}): ToolCallsAnswer => {
        const { account_id } = parseInput(ToolCallsQuery, input, 'control');
        return { data: this.sim.webhooks.toolCalls({ account_id }).map(serialiseToolCall), evicted: this.sim.webhooks.toolCallsEvicted };
      },
    }));
  }

  get tools() {
    return this.once('tools', () => ({
      /**
       * `POST /__sim/tools/{id}/test`: calls the tool now with the reference's dummy values
       * (string "test", number 1, boolean true) and answers the record of what came back
       * (live-platform H.10); 404 shape A for an id no account holds.
       * @example (await sim.control.tools.test(1)).request.url // 'http://127.0.0.1:3000/orders/test'
       */
      test: async (id: number): Promise<ToolCallRecord> => {
        const tool = this.sim.db.tools.get(id);
        const ctx = tool && this.sim.accountScope(tool.account_id);
        if (!tool || !ctx) throw shapeA(404, 'Tool not found.');
        return serialiseToolCall(await testTool(ctx, tool));
      },
    }));
  }

  get replies() {
    return this.once('replies', () => ({
      /** `PUT /__sim/replies`: replaces every reply rule. */
      set: (input: In<typeof ReplyRulesBody>) => {
        closed(ReplyRulesBody, input);
        this.sim.replies.set(input.rules);
        return { rules: this.sim.replies.list() };
      },
      /** `GET /__sim/replies`. */
      list: () => ({ rules: this.sim.replies.list() }),
    }));
  }

  get msgapp() {
    return this.once('msgapp', () => ({
      /** `POST /__sim/msgapp/inbound`: a customer message to a sender: `text`, `media` or `voice_note` (live-platform H.6). */
      inbound: (input: In<typeof InboundBody>) => receiveCustomerMessage(this.sim, parseControlBody(InboundBody, input)),
      /**
       * `PATCH /__sim/msgapp/senders/{id}`: `{online?, assistant_id?, messaging_limit?, read_receipts_webhook_url?, regenerate_signing_secret?}`;
       * the answer shows the read-receipts URL and signing secret (live-platform H.4).
       * @example sim.control.msgapp.patchSender(1, { read_receipts_webhook_url: 'http://127.0.0.1:3000/receipts' }).read_receipts_signing_secret
       */
      patchSender: (id: number, input: In<typeof SenderPatchBody>) => serialiseControlSender(patchSender(this.sim, id, parseControlBody(SenderPatchBody, input))),
      /** `GET /__sim/msgapp/senders?account_id`: every sender with its assistant and read-receipts webhook. Reads only. */
      senders: (input: In<typeof ChargesQuery> = {}) => {
        const { account_id } = parseInput(ChargesQuery, input, 'control');
        return { data: this.sim.db.senders.all().filter((s) => account_id === undefined || s.account_id === account_id).map(serialiseControlSender) };
      },
      /** `POST /__sim/msgapp/senders`: a sender of one's own (live-platform H.5). */
      createSender: (input: In<typeof CreateSenderBody>) => serialiseControlSender(createSender(this.sim, parseControlBody(CreateSenderBody, input))),
      /** `POST /__sim/msgapp/senders/{id}/test-receipt`: one signed test event to the sender's read-receipts URL (live-platform H.4). */
      testReceipt: (id: number) => sendTestReceipt(this.sim, id),
      /** `POST /__sim/msgapp/templates`: a template of one's own, `{{1}}` or `{{name}}` placeholders (live-platform H.5). */
      createTemplate: (input: In<typeof CreateTemplateBody>) => serialiseControlTemplate(createTemplate(this.sim, parseControlBody(CreateTemplateBody, input))),
      /** `PATCH /__sim/msgapp/templates/{id}`: `{status}` (pending, approved, rejected, disabled). */
      patchTemplate: (id: number, input: In<typeof TemplatePatchBody>) => serialiseControlTemplate(patchTemplate(this.sim, id, parseControlBody(TemplatePatchBody, input).status)),
      /** `GET /__sim/msgapp/messages?account_id&sender_id&recipient_phone`: the channel's messages with their status history. Reads only. */
      messages: (input: In<typeof ChannelMessagesQuery> = {}) => ({ data: listChannelMessages(this.sim, parseInput(ChannelMessagesQuery, input, 'control')) }),
      /** `PUT` and `GET /__sim/msgapp/outcomes`: what the recipients' side does with sent messages (live-platform H.4). */
      outcomes: {
        set: (input: In<typeof MessageOutcomeRulesBody>) => {
          closed(MessageOutcomeRulesBody, input);
          this.sim.messageOutcomes.set(input.rules);
          return { rules: this.sim.messageOutcomes.list() };
        },
        list: () => ({ rules: this.sim.messageOutcomes.list() }),
        /**
         * What messages to one recipient do, in order (the last repeats).
         * @example sim.control.msgapp.outcomes.forRecipient('+1234567890', ['failed'])
         */
        forRecipient: (recipient_phone: string, outcomes: In<typeof MessageOutcomeRulesBody>['rules'][number]['outcomes']) => {
          const rules = [...this.sim.messageOutcomes.list(), { match: { recipient_phone }, outcomes }];
          this.sim.messageOutcomes.set(rules);
          return { rules: this.sim.messageOutcomes.list() };
        },
      },
    }));
  }

  get catalog() {
    return this.once('catalog', () => ({
      /** `GET /__sim/catalog`: the catalog in force under the simulator's wire, as a whole document (`PUT` of it changes nothing). Reads only. */
      get: () => catalogDocumentOf(this.sim.catalogs.of(this.sim.wire).tables),
      /**
       * `PUT /__sim/catalog`: a catalog document that replaces or extends the wire's catalog
       * (docs/catalog.md). Refused whole (422 shape B with the field's path) when it breaks a
       * rule or drops an id an assistant names; answers the catalog now in force.
       * @example sim.control.catalog.set({ merge: 'extend', voices: [{ id: 9001, name: 'Mina', language_id: 5, gender: 'female', preview_url: null, accent: null, age: null, synthesizer_provider_id: 1 }] })
       */
      set: (input: CatalogDocumentInput) => catalogDocumentOf(setCatalog(this.sim, input).tables),
    }));
  }

  get faults() {
    return this.once('faults', () => ({
      /**
       * `POST /__sim/faults`: the next `times` requests to `method path` (a route pattern
       * such as `/user/assistant/:id`, or a concrete path) that pass authentication and
       * validation fail, changing nothing: with `status` 500 (the default) the route's
       * documented failure, 502/503/504 shape A, 429 shape R `{message: "Too Many
       * Attempts.", retry_after}` with a `Retry-After` header of `retry_after` seconds
       * (default 60; live-platform H.11). Control routes are never faulted.
       * @example sim.control.faults.add({ method: 'GET', path: '/user/me', status: 429, retry_after: 30 })
       */
      add: (input: In<typeof FaultBody>) => this.sim.faults.add(parseControlBody(FaultBody, input)),
      /** `GET /__sim/faults`. */
      list: () => ({ data: this.sim.faults.list() }),
      /** `DELETE /__sim/faults`. */
      clear: (): OkAnswer => {
        this.sim.faults.clear();
        return { ok: true };
      },
    }));
  }

  private addOutcomeRule(rule: In<typeof OutcomeRuleSchema>) {
    this.sim.outcomes.add(rule);
    return { rules: this.sim.outcomes.list() };
  }
}
