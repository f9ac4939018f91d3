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
  /** A ring buffer: past `limit` entries the newest overwrites the oldest, with no copying per request. */
  private entries: JournalRecord[] = [];
  private start = 0;
  private evicted = 0;

  constructor(readonly limit: number) {}

  record(entry: JournalRecord): void {
    if (this.entries.length < this.limit) {
      this.entries.push(entry);
      return;
    }
    if (this.limit === 0) {
      this.evicted++;
      return;
    }
    this.entries[this.start] = entry;
    this.start = (this.start + 1) % this.limit;
    this.evicted++;
  }

  /** The latest `limit` entries, oldest first, with how many were dropped. */
  list(limit = this.limit): { data: JournalEntry[]; evicted: number } {
    return { data: this.latest(limit).map(({ at, method, path, status, account_id }) => ({ at, method, path, status, account_id })), evicted: this.evicted };
  }

  /** The latest `limit` records with their error texts, oldest first. */
  recent(limit: number): JournalRecord[] {
    return this.latest(limit).map((e) => ({ ...e }));
  }

  clear(): void {
    this.entries = [];
    this.start = 0;
    this.evicted = 0;
  }

  /** The latest `limit` entries in arrival order (`slice(-limit)` of the whole history kept). */
  private latest(limit: number): JournalRecord[] {
    const ordered = this.start === 0 ? this.entries : [...this.entries.slice(this.start), ...this.entries.slice(0, this.start)];
    return ordered.slice(-limit);
  }
}
