/**
 * Indexed in-memory tables. A record is a plain JSON-able object with an integer `id`
 * from the table's own sequence; lookups by id are O(1) and list queries read a
 * secondary index instead of scanning the table.
 */

export interface Row {
  id: number;
}

export interface TableSnapshot<T> {
  seq: number;
  rows: T[];
}

/**
 * Sees every change of a table's rows (the state file's change log): a row inserted or
 * updated (`put`, the row itself: read it, do not keep or change it), a row deleted, the
 * table emptied.
 */
export interface TableObserver<T> {
  put(row: T): void;
  delete(id: number): void;
  clear(): void;
}

type KeyOf<T> = (row: T) => string | number | null | undefined;
type Key = string | number;

/**
 * The rows of one index key in the order they arrived, for `first()`: reading the
 * first element of a Set after many deletions from its front is O(n) in V8, so a FIFO
 * needs its own queue. Entries that left the key (or came back later) are skipped by
 * position and compacted away.
 */
class KeyQueue<T> {
  private items: T[] = [];
  private head = 0;
  private readonly position = new Map<T, number>();

  constructor(rows: Iterable<T>) {
    for (const row of rows) this.push(row);
  }

  push(row: T): void {
    this.position.set(row, this.items.length);
    this.items.push(row);
  }

  remove(row: T): void {
    this.position.delete(row);
  }

  first(): T | undefined {
    if (this.head >= 1024 && this.head * 2 >= this.items.length) this.compact();
    while (this.head < this.items.length) {
      const row = this.items[this.head]!;
      if (this.position.get(row) === this.head) return row;
      this.head++;
    }
    return undefined;
  }

  /** Drops the entries before the head and the stale ones, keeping each live row once, in order. */
  private compact(): void {
    const live = this.items.filter((row, i) => i >= this.head && this.position.get(row) === i);
    this.items = live;
    this.head = 0;
    this.position.clear();
    live.forEach((row, i) => this.position.set(row, i));
  }
}

interface IndexEntry<T> {
  key: KeyOf<T>;
  map: Map<Key, Set<T>>;
  /** Built on the first `first()` of a key, then kept current. */
  queues: Map<Key, KeyQueue<T>>;
}

/**
 * One table with its id sequence and secondary indexes. Indexes hold the row objects
 * themselves (rows are updated in place), so reading an index needs no id lookups.
 * @example
 * const assistants = new Table<Assistant>('assistants').index('account', (a) => a.account_id)
 * const a = assistants.insert({ account_id: 1, name: 'Sales' })
 * assistants.where('account', 1) // [a]
 */
export class Table<T extends Row> {
  private rows = new Map<number, T>();
  private seq = 0;
  private readonly indexes = new Map<string, IndexEntry<T>>();
  private observer: TableObserver<T> | undefined;

  constructor(readonly name: string) {}

  /** Reports every later change to `observer` (one at a time; undefined stops reporting). */
  observe(observer: TableObserver<T> | undefined): void {
    this.observer = observer;
  }

  /** The highest id ever given (the sequence), for readers that walk ids in order. */
  get lastId(): number {
    return this.seq;
  }

  /** Declares a secondary index; rows are indexed under the key `key(row)` (null skips the row). */
  index(name: string, key: KeyOf<T>): this {
    const entry: IndexEntry<T> = { key, map: new Map(), queues: new Map() };
    this.indexes.set(name, entry);
    for (const row of this.rows.values()) this.addToIndex(entry, key(row), row);
    return this;
  }

  get size(): number {
    return this.rows.size;
  }

  /** The id the next insert will take. */
  get nextId(): number {
    return this.seq + 1;
  }

  /** Inserts a row, giving it the next id. */
  insert(data: Omit<T, 'id'>): T {
    const row = { id: ++this.seq, ...data } as T;
    this.rows.set(row.id, row);
    for (const entry of this.indexes.values()) this.addToIndex(entry, entry.key(row), row);
    this.observer?.put(row);
    return row;
  }

  get(id: number): T | undefined {
    return this.rows.get(id);
  }

  /** Applies `patch` to a row and keeps the indexes current. */
  update(id: number, patch: Partial<Omit<T, 'id'>>): T {
    const row = this.rows.get(id);
    if (!row) throw new Error(`${this.name} ${id} does not exist`);
    const before: (Key | null | undefined)[] = [];
    for (const entry of this.indexes.values()) before.push(entry.key(row));
    Object.assign(row, patch);
    let i = 0;
    for (const entry of this.indexes.values()) {
      const old = before[i++];
      const now = entry.key(row);
      if (old !== now) {
        this.removeFromIndex(entry, old, row);
        this.addToIndex(entry, now, row);
      }
    }
    this.observer?.put(row);
    return row;
  }

  delete(id: number): T | undefined {
    const row = this.rows.get(id);
    if (!row) return undefined;
    this.rows.delete(id);
    for (const entry of this.indexes.values()) this.removeFromIndex(entry, entry.key(row), row);
    this.observer?.delete(id);
    return row;
  }

  /** Rows under `key` in an index, in ascending id order. */
  where(index: string, key: string | number): T[] {
    return this.select(index, key);
  }

  /**
   * Rows under `key` in an index that pass `keep`, in ascending id order, in one pass
   * over the index (no intermediate copies: list queries at 50k rows stay in a few ms).
   */
  select(index: string, key: string | number, keep?: (row: T) => boolean): T[] {
    const entry = this.indexes.get(index);
    if (!entry) throw new Error(`${this.name} has no index "${index}"`);
    const set = entry.map.get(key);
    if (!set) return [];
    const out: T[] = [];
    let ordered = true;
    let last = 0;
    for (const row of set) {
      if (keep && !keep(row)) continue;
      // Sets keep insertion order; a row re-indexed by an update lands at the end.
      if (row.id < last) ordered = false;
      last = row.id;
      out.push(row);
    }
    return ordered ? out : out.sort((a, b) => a.id - b.id);
  }

  /** How many rows an index holds under `key`. */
  count(index: string, key: string | number): number {
    return this.indexes.get(index)?.map.get(key)?.size ?? 0;
  }

  /** The row that has been under `key` in an index the longest (a unique key's row, or a FIFO's head). */
  first(index: string, key: string | number): T | undefined {
    const entry = this.indexes.get(index);
    if (!entry) throw new Error(`${this.name} has no index "${index}"`);
    let queue = entry.queues.get(key);
    if (!queue) {
      const rows = entry.map.get(key);
      if (!rows) return undefined;
      queue = new KeyQueue(rows);
      entry.queues.set(key, queue);
    }
    return queue.first();
  }

  /** Every row in ascending id order. */
  all(): T[] {
    return [...this.rows.values()].sort((a, b) => a.id - b.id);
  }

  clear(): void {
    this.rows.clear();
    this.seq = 0;
    for (const entry of this.indexes.values()) {
      entry.map.clear();
      entry.queues.clear();
    }
    this.observer?.clear();
  }

  snapshot(): TableSnapshot<T> {
    return { seq: this.seq, rows: structuredClone(this.all()) };
  }

  /**
   * Replaces every row with a snapshot's. The rows are copied unless `owned` (the caller
   * gives them up, as a state file just parsed does: no second copy of a large state).
   */
  restore(snapshot: TableSnapshot<T>, owned = false): void {
    this.clear();
    this.seq = snapshot.seq;
    for (const row of owned ? snapshot.rows : structuredClone(snapshot.rows)) {
      this.rows.set(row.id, row);
      for (const entry of this.indexes.values()) this.addToIndex(entry, entry.key(row), row);
      this.observer?.put(row);
    }
  }

  private addToIndex(entry: IndexEntry<T>, key: Key | null | undefined, row: T): void {
    if (key === null || key === undefined) return;
    let set = entry.map.get(key);
    if (!set) entry.map.set(key, (set = new Set()));
    set.add(row);
    entry.queues.get(key)?.push(row);
  }

  private removeFromIndex(entry: IndexEntry<T>, key: Key | null | undefined, row: T): void {
    if (key === null || key === undefined) return;
    const set = entry.map.get(key);
    if (!set) return;
    set.delete(row);
    entry.queues.get(key)?.remove(row);
    if (set.size === 0) {
      entry.map.delete(key);
      entry.queues.delete(key);
    }
  }
}
