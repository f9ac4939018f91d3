/** The request journal (`GET /__sim/requests`): the latest requests, bounded, oldest first. */

/** One request in the journal, as `GET /__sim/requests` lists it. */
export interface JournalEntry {
  at: number;
  method: string;
  path: string;
  status: number;
  account_id: number | null;
}

/** What the journal keeps of a request: the entry and the error text of a 4xx/5xx answer (for the dashboard). */
export interface JournalRecord extends JournalEntry {
  error: string | null;
}

/**
 * A bounded journal: past `limit` entries the oldest is dropped and counted.
 * @example journal.record({ at, method: 'GET', path: '/user/me', status: 200, account_id: 1 })
 */
export class RequestJournal {
  private entries: JournalRecord[] = [];
  private evicted = 0;

  constructor(readonly limit: number) {}

  record(entry: JournalRecord): void {
    this.entries.push(entry);
    if (this.entries.length > this.limit) {
      this.entries.shift();
      this.evicted++;
    }
  }

  /** The latest `limit` entries, oldest first, with how many were dropped. */
  list(limit = this.limit): { data: JournalEntry[]; evicted: number } {
    return { data: this.entries.slice(-limit).map(({ at, method, path, status, account_id }) => ({ at, method, path, status, account_id })), evicted: this.evicted };
  }

  /** The latest `limit` records with their error texts, oldest first. */
  recent(limit: number): JournalRecord[] {
    return this.entries.slice(-limit).map((e) => ({ ...e }));
  }

  clear(): void {
    this.entries = [];
    this.evicted = 0;
  }
}
