/** The request journal (`GET /__sim/requests`): the latest requests, bounded, oldest first. */

/** One request in the journal. */
export interface JournalEntry {
  at: number;
  method: string;
  path: string;
  status: number;
  account_id: number | null;
}

/**
 * A bounded journal: past `limit` entries the oldest is dropped and counted.
 * @example journal.record({ at, method: 'GET', path: '/user/me', status: 200, account_id: 1 })
 */
export class RequestJournal {
  private entries: JournalEntry[] = [];
  private evicted = 0;

  constructor(readonly limit: number) {}

  record(entry: JournalEntry): void {
    this.entries.push(entry);
    if (this.entries.length > this.limit) {
      this.entries.shift();
      this.evicted++;
    }
  }

  /** The latest `limit` entries, oldest first, with how many were dropped. */
  list(limit = this.limit): { data: JournalEntry[]; evicted: number } {
    return { data: this.entries.slice(-limit).map((e) => ({ ...e })), evicted: this.evicted };
  }

  clear(): void {
    this.entries = [];
    this.evicted = 0;
  }
}
