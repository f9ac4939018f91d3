/**
 * The account scope a service works in. Services get an `AccountCtx`, never the raw
 * tables, so every read and write is limited to the caller's account: a foreign id
 * looks exactly like a missing one (spec: Authentication 2).
 */
import type { EventShape } from '../core/events.js';
import type { SeededRandom } from '../core/random.js';
import type { Wire } from '../core/wire.js';
import type { Table } from '../core/store.js';
import type { SubstringCounts } from '../core/substrings.js';
import type { DialContext, Outcome, OutcomeSource } from '../engine/outcomes.js';
import type { ScriptedReply } from '../engine/replies.js';
import type { ToolCall, ToolCallInput, WebhookKind } from '../engine/webhooks.js';
import type { DeliveryPlan } from '../engine/message-outcomes.js';
import type { FileSpace } from '../core/files.js';
import type { Account } from './accounts/schema.js';
import type { Assistant } from './assistants/schema.js';
import type { Catalog } from './catalog/data.js';
import { CallMemo } from './calls/memo.js';
import type { Call } from './calls/schema.js';
import type { CallGroup } from './calls/groups.js';
import type { Campaign } from './campaigns/schema.js';
import type { AccountEventType, SimEventMap } from './sim-events.js';
import type { SimState } from './state.js';
import type { ChatMessage, Conversation } from './conversations/schema.js';
import type { Knowledgebase, KnowledgebaseDocument } from './knowledgebases/schema.js';
import type { Lead, SecondaryContact } from './leads/schema.js';
import type { ChannelMessage, Sender, Session, Template } from './msgapp/schema.js';
import type { Charge, NumberOffer, PhoneNumber } from './phone-numbers/schema.js';
import type { Tool } from './tools/schema.js';
import type { Folder, Label } from './folders-labels/schema.js';
import type { Sms } from './sms/schema.js';

type Owned = { id: number; account_id: number };

/** One table seen through one account. */
export class Scoped<T extends Owned> {
  constructor(
    private readonly table: Table<T>,
    private readonly accountId: number,
  ) {}

  /** The row if it exists and belongs to the account. */
  get(id: number): T | undefined {
    const row = this.table.get(id);
    return row && row.account_id === this.accountId ? row : undefined;
  }

  /** The account's rows in ascending id order, optionally only those that pass `keep`. */
  list(keep?: (row: T) => boolean): T[] {
    return this.table.select('account', this.accountId, keep);
  }

  count(): number {
    return this.table.count('account', this.accountId);
  }

  /** The first of the account's rows under `key` in an index. */
  first(index: string, key: string | number): T | undefined {
    const row = this.table.first(index, key);
    return row && row.account_id === this.accountId ? row : undefined;
  }

  /**
   * How many rows an index holds under `key`. Only for keys that already name one
   * account's rows (a campaign's leads, say): it does not filter by account.
   */
  countOwnKey(index: string, key: string | number): number {
    return this.table.count(index, key);
  }

  /**
   * The rows under `key` in an index in ascending id order (shared: never modify them).
   * Only for keys that already name one account's rows, as `countOwnKey`.
   */
  orderedOwnKey(index: string, key: string | number): { rows: readonly T[]; monotone: boolean } {
    return this.table.ordered(index, key);
  }

  /** The row's JSON text as `encode` writes it, kept until the row changes (`Table.text`). */
  text(row: T, encode: (row: T) => string): string {
    return this.table.text(row, encode);
  }

  /** The highest id of the table, of every account (for readers that catch up with new rows). */
  get lastId(): number {
    return this.table.lastId;
  }

  /** How many times rows have left the table, of every account (see `Table.removals`). */
  get removals(): number {
    return this.table.removals;
  }

  /** Every key of an index, of every account: the caller keeps its account's (keys that name the account). */
  indexKeys(index: string): IterableIterator<string | number> {
    return this.table.keys(index);
  }

  /** How many keys an index holds, of every account. */
  keyCount(index: string): number {
    return this.table.keyCount(index);
  }

  /** The account's rows under `key` in an index, optionally only those that pass `keep`. */
  where(index: string, key: string | number, keep?: (row: T) => boolean): T[] {
    const account = this.accountId;
    return this.table.select(index, key, keep ? (r) => r.account_id === account && keep(r) : (r) => r.account_id === account);
  }

  insert(data: Omit<T, 'id' | 'account_id'>): T {
    return this.table.insertOwned(data, this.accountId);
  }

  /** The id the next insert will take. */
  nextId(): number {
    return this.table.nextId;
  }

  /** Inserts the row `build` makes for the next id and this account (see `Table.insertRow`). */
  insertRow(build: (id: number, accountId: number) => T): T {
    const accountId = this.accountId;
    return this.table.insertRow((id) => {
      const row = build(id, accountId);
      if (row.account_id !== accountId) throw new Error(`${this.table.name}: a row of account ${accountId} was built for account ${row.account_id}`);
      return row;
    });
  }

  update(id: number, patch: Partial<Omit<T, 'id' | 'account_id'>>): T {
    if (!this.get(id)) throw new Error(`${this.table.name} ${id} is not in account ${this.accountId}`);
    return this.table.update(id, patch as Partial<Omit<T, 'id'>>);
  }

  /** `Table.changing` for a row of the account (a row of another is refused, as `update` refuses its id). */
  changing(row: T, fields: readonly (keyof T & string)[]): number {
    if (row.account_id !== this.accountId) throw new Error(`${this.table.name} ${row.id} is not in account ${this.accountId}`);
    return this.table.changing(row, fields);
  }

  /** `Table.changed`: the second half of a change in place. */
  changed(row: T, touched: number): T {
    return this.table.changed(row, touched);
  }

  delete(id: number): T | undefined {
    return this.get(id) ? this.table.delete(id) : undefined;
  }
}

/**
 * Counts of an account's calls by the substrings of their client numbers, for the exact
 * total of a partial `phone_number` filter: built on the first such list, then caught up
 * with the calls inserted since (`through`, the calls table's last id when it was last
 * read); built again once rows have left the table (`removals`). A call's client number never changes.
 */
export interface CallNumberTally {
  counts: SubstringCounts | undefined;
  through: number;
  removals: number;
}

/** What a service may touch on behalf of one account. */
export interface AccountCtx {
  readonly account: Account;
  /** The wire of the answer being built (live-platform Rule 5): serialisers and texts decide by it. */
  readonly wire: Wire;
  /** The catalog of the answer's wire (issue 27: each wire's own, or what the catalog document in force makes of it). */
  readonly catalog: Catalog;
  readonly random: SeededRandom;
  /** The simulator's seed (for values derived from it without drawing from `random`). */
  readonly seed: number;
  /** Transcripts and plans that many calls share, stored once (calls/memo). */
  readonly callMemo: CallMemo;
  now(): number;
  /** Schedules a clock event (timers are data: ARCHITECTURE §2); a periodic one does not keep run-until-idle busy. */
  schedule<P>(at: number, type: string, payload: P, options?: { periodic?: boolean }): number;
  cancel(eventId: number): void;
  readonly assistants: Scoped<Assistant>;
  readonly phoneNumbers: Scoped<PhoneNumber>;
  readonly numberOffers: Scoped<NumberOffer>;
  readonly charges: Scoped<Charge>;
  readonly knowledgebases: Scoped<Knowledgebase>;
  readonly tools: Scoped<Tool>;
  readonly documents: Scoped<KnowledgebaseDocument>;
  readonly campaigns: Scoped<Campaign>;
  readonly leads: Scoped<Lead>;
  readonly secondaryContacts: Scoped<SecondaryContact>;
  readonly calls: Scoped<Call>;
  /** The account's calls counted by the substrings of their client numbers (calls/service), built on first use. */
  readonly callNumbers: CallNumberTally;
  /** The groups the account's calls are keyed by in the calls' `group_status` index (calls/groups). */
  callGroups(): readonly CallGroup[];
  readonly conversations: Scoped<Conversation>;
  readonly messages: Scoped<ChatMessage>;
  readonly senders: Scoped<Sender>;
  readonly templates: Scoped<Template>;
  readonly sessions: Scoped<Session>;
  readonly channelMessages: Scoped<ChannelMessage>;
  readonly folders: Scoped<Folder>;
  readonly labels: Scoped<Label>;
  readonly sms: Scoped<Sms>;
  /** Every number in use on the platform, of any account (numbers are unique platform-wide). */
  numberInUse(e164: string): boolean;
  /** Hands a webhook to the delivery engine (ARCHITECTURE §4 Webhook delivery), signed with `signWith` when given (live-platform H.4). */
  sendWebhook(kind: WebhookKind, url: string, payload: unknown, signWith?: string): void;
  /** What the recipient's side of the next message from a sender does (live-platform H.4 scripted outcomes). */
  nextMessagePlan(senderId: number, recipient: string): DeliveryPlan;
  /** Where the simulator's files are served (live-platform H.7). */
  readonly files: FileSpace;
  /** The scripted outcome of the next attempt to a number (ARCHITECTURE §4 Scripted outcomes). */
  nextOutcome(dial: DialContext): { readonly outcome: Outcome; readonly source: OutcomeSource };
  /**
   * Emits a state change on `sim.events`, stamped with the clock time and the account
   * (`account_id` first in its data). Data that already starts with the account's
   * `account_id` is used as it is, without a copy (the dialer's events).
   */
  emit<K extends AccountEventType>(type: K, data: EventData<K>): void;
  /**
   * Emits an event of `shape` from its values, `account_id` first (`EventBus.emitValues`):
   * no data object is built unless someone reads the event.
   */
  emitValues(shape: EventShape<AccountEventType>, a?: unknown, b?: unknown, c?: unknown, d?: unknown, e?: unknown, f?: unknown, g?: unknown, h?: unknown, i?: unknown): void;
  /** Takes `micros` from the account's balance. */
  chargeAccount(micros: number): void;
  /** Keeps the times of a rate limit's last accepted requests on the account (core/rate-limit). */
  setRecent(field: 'recent_sends' | 'recent_replies', times: number[]): void;
  /**
   * Makes a mid-call tool's request now and waits for its answer, journaled (live-platform
   * H.10; ARCHITECTURE §4: through the webhook engine, no retry, the tool's timeout).
   */
  callTool(input: Omit<ToolCallInput, 'account_id'>): Promise<ToolCall>;
  /** The scripted reply of an assistant to a customer message (ARCHITECTURE §4 Scripted replies). */
  replyTo(assistant: { id: number; uuid: string }, message: string, variables: Record<string, unknown>): ScriptedReply;
}

/** An account event's data as a domain emits it: `account_id` may be left to the scope. */
export type EventData<K extends AccountEventType> = Omit<SimEventMap[K], 'account_id'> & { account_id?: number };

/** The field a charge writes into the account (`Table.changing`). */
const BALANCE_FIELDS = ['balance_micros'] as const satisfies readonly (keyof Account)[];

/** The scope of one account, built once per account row (clock events need one each). */
export function accountCtx(account: Account, state: SimState): AccountCtx {
  let scope = state.scopes.get(account) as AccountCtx | undefined;
  if (!scope || scope.random !== state.random) {
    scope = buildScope(account, state);
    state.scopes.set(account, scope);
  }
  // A request answered in another wire than the simulator's sees the same scope with its wire.
  return scope.wire === state.wire ? scope : (Object.create(scope, { wire: { value: state.wire } }) as AccountCtx);
}

function buildScope(account: Account, state: SimState): AccountCtx {
  const { db, clock, random, webhooks, replies, outcomes, events } = state;
  return {
    account,
    get wire() {
      return state.wire;
    },
    // A getter: a scope seen through another wire (accountCtx) reads that wire's catalog.
    get catalog() {
      return state.catalogs.of(this.wire);
    },
    random,
    seed: random.seed,
    callMemo: new CallMemo(),
    now: () => clock.now(),
    schedule: (at, type, payload, options) => clock.schedule(at, type, payload, options),
    cancel: (eventId) => void clock.cancel(eventId),
    assistants: new Scoped(db.assistants, account.id),
    phoneNumbers: new Scoped(db.phoneNumbers, account.id),
    numberOffers: new Scoped(db.numberOffers, account.id),
    charges: new Scoped(db.charges, account.id),
    knowledgebases: new Scoped(db.knowledgebases, account.id),
    tools: new Scoped(db.tools, account.id),
    documents: new Scoped(db.documents, account.id),
    campaigns: new Scoped(db.campaigns, account.id),
    leads: new Scoped(db.leads, account.id),
    secondaryContacts: new Scoped(db.secondaryContacts, account.id),
    calls: new Scoped(db.calls, account.id),
    callNumbers: { counts: undefined, through: 0, removals: 0 },
    callGroups: () => db.callGroupsOf(account.id),
    conversations: new Scoped(db.conversations, account.id),
    messages: new Scoped(db.messages, account.id),
    senders: new Scoped(db.senders, account.id),
    templates: new Scoped(db.templates, account.id),
    sessions: new Scoped(db.sessions, account.id),
    channelMessages: new Scoped(db.channelMessages, account.id),
    folders: new Scoped(db.folders, account.id),
    labels: new Scoped(db.labels, account.id),
    sms: new Scoped(db.sms, account.id),
    numberInUse: (e164) => db.phoneNumbers.first('number', e164) !== undefined,
    sendWebhook: (kind, url, payload, signWith) => void webhooks.send({ account_id: account.id, kind, url, payload, signWith }),
    nextMessagePlan: (senderId, recipient) => state.messageOutcomes.next(senderId, recipient),
    files: state.files,
    replyTo: (assistant, message, variables) => replies.reply(assistant, message, variables),
    callTool: (input) => webhooks.request({ ...input, account_id: account.id }),
    nextOutcome: (dial) => outcomes.next(dial),
    emit: (type, data) => events.emit(type, clock.now(), (data.account_id === account.id ? data : { account_id: account.id, ...data }) as SimEventMap[typeof type]),
    emitValues: (shape, a, b, c, d, e, f, g, h, i) => events.emitValues(shape, clock.now(), a, b, c, d, e, f, g, h, i),
    chargeAccount: (micros) => {
      // Written in place (a charge per call): the row is this scope's own.
      const touched = db.accounts.changing(account, BALANCE_FIELDS);
      account.balance_micros -= micros;
      db.accounts.changed(account, touched);
    },
    setRecent: (field, times) => void db.accounts.update(account.id, { [field]: times }),
  };
}
