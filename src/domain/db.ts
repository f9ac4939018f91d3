/** Every table of a simulator, with the secondary indexes its queries read. */
import { Table, type TableSnapshot } from '../core/store.js';
import type { Account } from './accounts/schema.js';
import type { Assistant } from './assistants/schema.js';
import type { Knowledgebase, Tool } from './catalog/schema.js';
import type { PhoneNumber } from './phone-numbers/schema.js';

export class Database {
  readonly accounts = new Table<Account>('accounts').index('api_key', (a) => a.api_key);
  readonly assistants = new Table<Assistant>('assistants')
    .index('account', (a) => a.account_id)
    .index('uuid', (a) => a.uuid)
    .index('phone_number', (a) => a.phone_number_id)
    .index('inbound_number', (a) => (a.type === 'inbound' ? a.phone_number_id : null))
    .index('knowledgebase', (a) => a.knowledgebase_id);
  readonly phoneNumbers = new Table<PhoneNumber>('phone_numbers')
    .index('account', (n) => n.account_id)
    .index('number', (n) => n.phone_number);
  readonly knowledgebases = new Table<Knowledgebase>('knowledgebases').index('account', (k) => k.account_id);
  readonly tools = new Table<Tool>('tools').index('account', (t) => t.account_id);

  private tables(): Table<{ id: number }>[] {
    return [this.accounts, this.assistants, this.phoneNumbers, this.knowledgebases, this.tools] as unknown as Table<{ id: number }>[];
  }

  clear(): void {
    for (const table of this.tables()) table.clear();
  }

  snapshot(): Record<string, TableSnapshot<{ id: number }>> {
    return Object.fromEntries(this.tables().map((t) => [t.name, t.snapshot()]));
  }

  restore(snapshot: Record<string, TableSnapshot<{ id: number }>>): void {
    for (const table of this.tables()) {
      const saved = snapshot[table.name];
      if (saved) table.restore(saved);
      else table.clear();
    }
  }
}
