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
import type { Knowledgebase, Tool } from './catalog/schema.js';
import type { Database } from './db.js';
import type { PhoneNumber } from './phone-numbers/schema.js';

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

  /** The account's rows in ascending id order. */
  list(): T[] {
    return this.table.where('account', this.accountId);
  }

  count(): number {
    return this.table.count('account', this.accountId);
  }

  /** The account's rows under `key` in an index. */
  where(index: string, key: string | number): T[] {
    return this.table.where(index, key).filter((r) => r.account_id === this.accountId);
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
  now(): number;
  readonly assistants: Scoped<Assistant>;
  readonly phoneNumbers: Scoped<PhoneNumber>;
  readonly knowledgebases: Scoped<Knowledgebase>;
  readonly tools: Scoped<Tool>;
}

/** Builds the scope of one account. */
export function accountCtx(account: Account, db: Database, clock: VirtualClock, random: SeededRandom): AccountCtx {
  return {
    account,
    catalog,
    random,
    now: () => clock.now(),
    assistants: new Scoped(db.assistants, account.id),
    phoneNumbers: new Scoped(db.phoneNumbers, account.id),
    knowledgebases: new Scoped(db.knowledgebases, account.id),
    tools: new Scoped(db.tools, account.id),
  };
}
