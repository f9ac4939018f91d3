/**
 * The account scope a service works in. Services get an `AccountCtx`, never the raw
 * tables, so every read and write is limited to the caller's account: a foreign id
 * looks exactly like a missing one (spec: Authentication 2).
 */
import type { VirtualClock } from '../core/clock.js';
import type { SeededRandom } from '../core/random.js';
import type { Table } from '../core/store.js';
import type { Account } from './accounts/schema.js';
import type { Assistant } from './assistants/schema.js';
import { catalog, type Catalog } from './catalog/data.js';
import type { Call } from './calls/schema.js';
import type { Campaign } from './campaigns/schema.js';
import type { Knowledgebase, Tool } from './catalog/schema.js';
import type { Database } from './db.js';
import type { Lead, SecondaryContact } from './leads/schema.js';
import type { Charge, NumberOffer, PhoneNumber } from './phone-numbers/schema.js';

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

  /** The account's rows under `key` in an index, optionally only those that pass `keep`. */
  where(index: string, key: string | number, keep?: (row: T) => boolean): T[] {
    const account = this.accountId;
    return this.table.select(index, key, keep ? (r) => r.account_id === account && keep(r) : (r) => r.account_id === account);
  }

  insert(data: Omit<T, 'id' | 'account_id'>): T {
    return this.table.insert({ ...data, account_id: this.accountId } as Omit<T, 'id'>);
  }

  update(id: number, patch: Partial<Omit<T, 'id' | 'account_id'>>): T {
    if (!this.get(id)) throw new Error(`${this.table.name} ${id} is not in account ${this.accountId}`);
    return this.table.update(id, patch as Partial<Omit<T, 'id'>>);
  }

  delete(id: number): T | undefined {
    return this.get(id) ? this.table.delete(id) : undefined;
  }
}

/** What a service may touch on behalf of one account. */
export interface AccountCtx {
  readonly account: Account;
  readonly catalog: Catalog;
  readonly random: SeededRandom;
  /** The simulator's seed (for values derived from it without drawing from `random`). */
  readonly seed: number;
  now(): number;
  /** Schedules a clock event (timers are data: ARCHITECTURE §2). */
  schedule<P>(at: number, type: string, payload: P): number;
  cancel(eventId: number): void;
  readonly assistants: Scoped<Assistant>;
  readonly phoneNumbers: Scoped<PhoneNumber>;
  readonly numberOffers: Scoped<NumberOffer>;
  readonly charges: Scoped<Charge>;
  readonly knowledgebases: Scoped<Knowledgebase>;
  readonly tools: Scoped<Tool>;
  readonly campaigns: Scoped<Campaign>;
  readonly leads: Scoped<Lead>;
  readonly secondaryContacts: Scoped<SecondaryContact>;
  readonly calls: Scoped<Call>;
  /** Every number in use on the platform, of any account (numbers are unique platform-wide). */
  numberInUse(e164: string): boolean;
}

/** Builds the scope of one account. */
export function accountCtx(account: Account, db: Database, clock: VirtualClock, random: SeededRandom): AccountCtx {
  return {
    account,
    catalog,
    random,
    seed: random.seed,
    now: () => clock.now(),
    schedule: (at, type, payload) => clock.schedule(at, type, payload),
    cancel: (eventId) => void clock.cancel(eventId),
    assistants: new Scoped(db.assistants, account.id),
    phoneNumbers: new Scoped(db.phoneNumbers, account.id),
    numberOffers: new Scoped(db.numberOffers, account.id),
    charges: new Scoped(db.charges, account.id),
    knowledgebases: new Scoped(db.knowledgebases, account.id),
    tools: new Scoped(db.tools, account.id),
    campaigns: new Scoped(db.campaigns, account.id),
    leads: new Scoped(db.leads, account.id),
    secondaryContacts: new Scoped(db.secondaryContacts, account.id),
    calls: new Scoped(db.calls, account.id),
    numberInUse: (e164) => db.phoneNumbers.first('number', e164) !== undefined,
  };
}
