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

/**
 * The rows of one index key in ascending id order, for reading pages from either end
 * without copying the key's rows. Built on the first `ordered()` of a key; an insert
 * (always the highest id) appends; anything else drops it, to be rebuilt on the next read.
 */
interface OrderedRows<T> {
  rows: T[];
  /** Whether the index's `monotone` value never decreases along `rows` (so ranges of it are binary-searchable). */
  monotone: boolean;
}

/** How an index is declared: which fields its key reads (so an update touching none of them skips it) and an optional order. */
export interface IndexOptions<T> {
  /** The fields `key` reads; an update whose patch has none of them leaves the index alone. Absent: every update re-keys. */
  fields?: readonly (keyof T)[];
  /** A value that usually grows with the id (a creation time): `range()` binary-searches it while it does. */
  monotone?: (row: T) => number;
}

/**
 * The maps of an index until their first entry, shared and never written: most indexes of
 * a simulator built for one test stay empty, and an empty Map each (three per index, some
 * 140 in all) would be most of a new simulator's memory and build time. A write replaces
 * it with the index's own map first (`own`).
 */
const UNUSED: ReadonlyMap<unknown, unknown> = new Map();

/** The shared empty map, typed as any index map (reads only until `own`). */
function unused<K, V>(): Map<K, V> {
  return UNUSED as Map<K, V>;
}

/** An index's own map in place of the shared empty one, to write to. */
function own<K, V>(map: Map<K, V>): Map<K, V> {
  return (map as Map<unknown, unknown>) === UNUSED ? new Map() : map;
}

interface IndexEntry<T> {
  key: KeyOf<T>;
  fields: readonly (keyof T)[] | undefined;
  monotone: ((row: T) => number) | undefined;
  /** The rows of each key: the row itself while a key has one (most keys of a unique index), a Set from the second. */
  map: Map<Key, Bucket<T>>;
  /** Built on the first `first()` of a key, then kept current. */
  queues: Map<Key, KeyQueue<T>>;
  /** Built on the first `ordered()` of a key, kept while rows only arrive at its end. */
  ordered: Map<Key, OrderedRows<T>>;
}

/**
 * Rows whose writing waits until a table they go to is used: the fixtures every new
 * account gets (knowledge bases, documents, tools, senders, templates) cost most of a new
 * simulator, and most simulators built for one test never read them. A fill runs before
 * the first use (a read, a write, a snapshot) of any table that shares the queue, after the
 * fills queued before it, so every row gets the id and the values it would have had
 * written at once; a fill captures what it reads (the time, the account's name) when queued.
 * While a table of the queue is observed (a state file), fills run when queued.
 * @example
 * const fills = new DeferredFills()
 * const tools = new Table<Tool>('tools').fillFrom(fills)
 * fills.add(() => tools.insert(fixtureTool))
 * tools.size // 1: the fill ran first
 */
export class DeferredFills {
  private fills: (() => void)[] = [];
  private running = false;
  private atOnce = false;

  /** Queues `fill` after the others (runs it now while the tables are observed). */
  add(fill: () => void): void {
    this.fills.push(fill);
    if (this.atOnce) this.settle();
  }

  /**
   * While on, fills run when queued: an observer (the state file's change log) must see
   * the rows with the change that made them, not with a later one a kill could lose.
   */
  runAtOnce(on: boolean): void {
    this.atOnce = on;
    if (on) this.settle();
  }

  /** Runs every queued fill, oldest first. */
  settle(): void {
    if (this.running || this.fills.length === 0) return;
    this.running = true;
    try {
      // A fill's writes settle their table again: `running` makes that a no-op.
      for (let i = 0; i < this.fills.length; i++) this.fills[i]!();
    } finally {
      this.fills = [];
      this.running = false;
    }
  }

  /** Drops the queued fills unrun (the tables they would fill are being emptied or replaced). */
  clear(): void {
    this.fills = [];
  }
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
  private fills: DeferredFills | undefined;
  private removed = 0;

  constructor(readonly name: string) {}

  /** Runs the fills queued in `fills` before any use of this table (see `DeferredFills`). */
  fillFrom(fills: DeferredFills): this {
    this.fills = fills;
    return this;
  }

  /** Reports every later change to `observer` (one at a time; undefined stops reporting). */
  observe(observer: TableObserver<T> | undefined): void {
    this.observer = observer;
    this.fills?.runAtOnce(observer !== undefined);
  }

  /**
   * How many times rows have left the table (a deletion, an emptying, a restore): a reader
   * that keeps counts of its own and catches up with new ids (`lastId`) starts over when it moved.
   */
  get removals(): number {
    return this.removed;
  }

  /** The highest id ever given (the sequence), for readers that walk ids in order. */
  get lastId(): number {
    this.fills?.settle();
    return this.seq;
  }

  /**
   * Declares a secondary index; rows are indexed under the key `key(row)` (null skips the
   * row). Naming the `fields` the key reads spares every update that touches none of them.
   */
  index(name: string, key: KeyOf<T>, options: IndexOptions<T> = {}): this {
    const entry: IndexEntry<T> = { key, fields: options.fields, monotone: options.monotone, map: unused(), queues: unused(), ordered: unused() };
    this.indexes.set(name, entry);
    for (const row of this.rows.values()) this.addToIndex(entry, key(row), row);
    return this;
  }

  get size(): number {
    this.fills?.settle();
    return this.rows.size;
  }

  /** The id the next insert will take. */
  get nextId(): number {
    this.fills?.settle();
    return this.seq + 1;
  }

  /** Inserts a row, giving it the next id. */
  insert(data: Omit<T, 'id'>): T {
    this.fills?.settle();
    return this.add({ id: ++this.seq, ...data } as T);
  }

  private add(row: T): T {
    this.rows.set(row.id, row);
    for (const entry of this.indexes.values()) this.addToIndex(entry, entry.key(row), row);
    this.observer?.put(row);
    return row;
  }

  /**
   * Inserts a row of one account: `insert({ ...data, account_id })` with one copy of
   * `data` instead of two (the same fields in the same order).
   */
  insertOwned(data: Omit<T, 'id' | 'account_id'>, accountId: number): T {
    this.fills?.settle();
    return this.add({ id: ++this.seq, ...data, account_id: accountId } as unknown as T);
  }

  get(id: number): T | undefined {
    this.fills?.settle();
    return this.rows.get(id);
  }

  /** Applies `patch` to a row and keeps the indexes current. */
  update(id: number, patch: Partial<Omit<T, 'id'>>): T {
    this.fills?.settle();
    const row = this.rows.get(id);
    if (!row) throw new Error(`${this.name} ${id} does not exist`);
    // Only the indexes whose key reads a patched field can move (most updates touch none).
    let touched: IndexEntry<T>[] | undefined;
    let before: (Key | null | undefined)[] | undefined;
    for (const entry of this.indexes.values()) {
      if (entry.fields && !entry.fields.some((field) => field in patch)) continue;
      (touched ??= []).push(entry);
      (before ??= []).push(entry.key(row));
    }
    Object.assign(row, patch);
    this.observer?.put(row);
    if (!touched) return row;
    for (let i = 0; i < touched.length; i++) {
      const entry = touched[i]!;
      const old = before![i];
      const now = entry.key(row);
      if (old !== now) {
        this.removeFromIndex(entry, old, row);
        this.addToIndex(entry, now, row);
      } else if (entry.monotone) {
        // The key stays but the ordered value may have moved.
        entry.ordered.delete(now as Key);
      }
    }
    return row;
  }

  delete(id: number): T | undefined {
    this.fills?.settle();
    const row = this.rows.get(id);
    if (!row) return undefined;
    this.rows.delete(id);
    this.removed++;
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
    this.fills?.settle();
    const entry = this.indexes.get(index);
    if (!entry) throw new Error(`${this.name} has no index "${index}"`);
    const bucket = entry.map.get(key);
    if (!bucket) return [];
    const out: T[] = [];
    let ordered = true;
    let last = 0;
    for (const row of rowsOf(bucket)) {
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
    this.fills?.settle();
    return sizeOf(this.indexes.get(index)?.map.get(key));
  }

  /**
   * The rows under `key` in an index in ascending id order, shared (not a copy: never
   * modify it), for walking a page from either end. `monotone` says whether the index's
   * monotone value never decreases along it.
   */
  ordered(index: string, key: string | number): { rows: readonly T[]; monotone: boolean } {
    this.fills?.settle();
    const entry = this.indexes.get(index);
    if (!entry) throw new Error(`${this.name} has no index "${index}"`);
    let ordered = entry.ordered.get(key);
    if (!ordered) {
      const bucket = entry.map.get(key);
      if (!bucket) return { rows: [], monotone: true };
      const rows = [...rowsOf(bucket)];
      let sorted = true;
      for (let i = 1; i < rows.length && sorted; i++) sorted = rows[i - 1]!.id < rows[i]!.id;
      if (!sorted) rows.sort((a, b) => a.id - b.id);
      ordered = { rows, monotone: entry.monotone ? isMonotone(rows, entry.monotone) : false };
      entry.ordered = own(entry.ordered);
      entry.ordered.set(key, ordered);
    }
    return ordered;
  }

  /** Every key an index holds rows under (in the order the keys first appeared). */
  keys(index: string): IterableIterator<Key> {
    this.fills?.settle();
    const entry = this.indexes.get(index);
    if (!entry) throw new Error(`${this.name} has no index "${index}"`);
    return entry.map.keys();
  }

  /** The row that has been under `key` in an index the longest (a unique key's row, or a FIFO's head). */
  first(index: string, key: string | number): T | undefined {
    this.fills?.settle();
    const entry = this.indexes.get(index);
    if (!entry) throw new Error(`${this.name} has no index "${index}"`);
    let queue = entry.queues.get(key);
    if (!queue) {
      const bucket = entry.map.get(key);
      if (!bucket) return undefined;
      queue = new KeyQueue(rowsOf(bucket));
      entry.queues = own(entry.queues);
      entry.queues.set(key, queue);
    }
    return queue.first();
  }

  /** Every row in ascending id order. */
  all(): T[] {
    this.fills?.settle();
    return [...this.rows.values()].sort((a, b) => a.id - b.id);
  }

  clear(): void {
    this.rows.clear();
    this.removed++;
    this.seq = 0;
    for (const entry of this.indexes.values()) {
      entry.map.clear();
      entry.queues.clear();
      entry.ordered.clear();
    }
    this.observer?.clear();
  }

  snapshot(): TableSnapshot<T> {
    // Before `seq` is read (`all()` would settle only after it).
    this.fills?.settle();
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
    const bucket = entry.map.get(key);
    if (bucket === undefined) (entry.map = own(entry.map)).set(key, row);
    else if (bucket instanceof Set) bucket.add(row);
    else if (bucket !== row) entry.map.set(key, new Set([bucket, row]));
    // Most keys are never read as a queue or in order: skip the lookups while none is.
    if (entry.queues.size > 0) entry.queues.get(key)?.push(row);
    const ordered = entry.ordered.size > 0 ? entry.ordered.get(key) : undefined;
    if (ordered) {
      const last = ordered.rows[ordered.rows.length - 1];
      if (last === undefined || last.id < row.id) {
        ordered.rows.push(row);
        if (ordered.monotone && last !== undefined && entry.monotone!(row) < entry.monotone!(last)) ordered.monotone = false;
      } else entry.ordered.delete(key);
    }
  }

  private removeFromIndex(entry: IndexEntry<T>, key: Key | null | undefined, row: T): void {
    if (key === null || key === undefined) return;
    const bucket = entry.map.get(key);
    if (bucket === undefined) return;
    let empty: boolean;
    if (bucket instanceof Set) {
      bucket.delete(row);
      empty = bucket.size === 0;
    } else {
      if (bucket !== row) return;
      empty = true;
    }
    if (entry.queues.size > 0) entry.queues.get(key)?.remove(row);
    if (entry.ordered.size > 0) entry.ordered.delete(key);
    if (empty) {
      entry.map.delete(key);
      if (entry.queues.size > 0) entry.queues.delete(key);
    }
  }
}

/** The rows of one index key: one row alone, or a Set (in insertion order) once a second arrives. */
type Bucket<T> = T | Set<T>;

function rowsOf<T>(bucket: Bucket<T>): Iterable<T> {
  return bucket instanceof Set ? bucket : [bucket];
}

function sizeOf<T>(bucket: Bucket<T> | undefined): number {
  return bucket === undefined ? 0 : bucket instanceof Set ? bucket.size : 1;
}

function isMonotone<T>(rows: readonly T[], value: (row: T) => number): boolean {
  for (let i = 1; i < rows.length; i++) if (value(rows[i]!) < value(rows[i - 1]!)) return false;
  return true;
}

/**
 * The first position in `rows` (whose `value` never decreases) where `value(row) >= at`.
 * @example lowerBound(rows, (c) => c.created_at, from)
 */
export function lowerBound<T>(rows: readonly T[], value: (row: T) => number, at: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (value(rows[mid]!) < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
