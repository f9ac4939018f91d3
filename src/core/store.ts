/**
 * Indexed in-memory tables. A record is a plain JSON-able object with an integer `id`
 * from the table's own sequence; lookups by id are O(1) and list queries read a
 * secondary index instead of scanning the table.
 */
import { cloneData } from './clone.js';

export interface Row {
  id: number;
}

/**
 * How a table whose rows are not plain objects (calls: calls/row) writes them into a
 * snapshot and reads them back; a table without one snapshots its rows as they are.
 */
export interface RowCodec<T> {
  /** The row as a plain object (its nested values may be the row's own: the snapshot copies them). */
  plain(row: T): T;
  /** The row a snapshot's plain object (the table's to keep) stands for. */
  row(plain: T): T;
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
 * How many rows' JSON texts a table keeps (`Table.text`): several pages of the largest
 * page size, about 2 MB of call texts.
 */
const TEXTS_KEPT = 4096;

/** The positions of an index that has needed none yet: never written (its length is 0). */
const NO_POSITIONS = new Int32Array(0);

/**
 * Where each row sits in its key's bucket, by row id: a typed array while ids are dense
 * (every table's ids count up from 1), a Map for ids far beyond the table's size (a
 * restored snapshot may hold any positive ids). No hashing on the dialer's path.
 */
class Positions {
  /** Empty until the index's first key holds two rows (most indexes of a fresh simulator never do). */
  private dense = NO_POSITIONS;
  private sparse: Map<number, number> | undefined;

  get(id: number): number {
    return id < this.dense.length ? this.dense[id]! : (this.sparse?.get(id) ?? -1);
  }

  set(id: number, position: number, rows: number): void {
    if (id >= this.dense.length && !this.grow(id, rows)) (this.sparse ??= new Map()).set(id, position);
    else this.dense[id] = position;
  }

  /** Widens the dense array to hold `id` unless that would be far larger than the table. */
  private grow(id: number, rows: number): boolean {
    let length = Math.max(64, this.dense.length);
    while (length <= id) length *= 2;
    if (length > 4 * rows + 1024) return false;
    const dense = new Int32Array(length);
    dense.set(this.dense);
    this.dense = dense;
    if (this.sparse) {
      for (const [sparseId, position] of this.sparse) {
        if (sparseId >= length) continue;
        dense[sparseId] = position;
        this.sparse.delete(sparseId);
      }
    }
    return true;
  }
}

/**
 * A table's rows by id: an array indexed by id while ids are dense (a table's own ids
 * count up from 1), a Map for ids far beyond the table's size (a restored snapshot may
 * hold any positive ids). Cheaper than a Map of every row, and already in id order.
 */
class RowsById<T extends Row> {
  private dense: (T | undefined)[] = [];
  private sparse: Map<number, T> | undefined;
  size = 0;

  get(id: number): T | undefined {
    return id < this.dense.length ? this.dense[id] : this.sparse?.get(id);
  }

  /** Puts `row`, whose id is `id` (read once by the table, which passes every table's rows here). */
  set(row: T, id: number): void {
    if (this.get(id) === undefined) this.size++;
    const dense = this.dense;
    if (id < dense.length) dense[id] = row;
    else if (id <= 2 * this.size + 1024) {
      // Rows the Map held for ids the array now reaches move into it.
      const sparse = this.sparse;
      while (dense.length < id) {
        const moved = sparse?.get(dense.length);
        if (moved !== undefined) sparse!.delete(moved.id);
        dense.push(moved);
      }
      sparse?.delete(id);
      dense.push(row);
    } else (this.sparse ??= new Map()).set(id, row);
  }

  delete(id: number): void {
    if (this.get(id) === undefined) return;
    this.size--;
    if (id < this.dense.length) this.dense[id] = undefined;
    else this.sparse!.delete(id);
  }

  /** Every row in ascending id order. */
  all(): T[] {
    const out: T[] = [];
    for (const row of this.dense) if (row !== undefined) out.push(row);
    if (this.sparse && this.sparse.size > 0) out.push(...[...this.sparse.values()].sort((a, b) => a.id - b.id));
    return out;
  }

  clear(): void {
    this.dense = [];
    this.sparse = undefined;
    this.size = 0;
  }
}

/** Up to this many rows, a key holds them in a plain array of their exact number. */
const SMALL = 8;

/** A Bucket's slots come in chunks of this many (a power of two); the first starts at FIRST_SLOTS and doubles up to it. */
const CHUNK_BITS = 12;
const CHUNK = 1 << CHUNK_BITS;
const FIRST_SLOTS = 16;

/** A slot of a Bucket that holds no row (row ids are whole numbers from 1). */
const HOLE = 0;

/** Slots stay below this (an index keeps positions in an Int32Array): a bucket whose end reaches it is compacted, numbering its slots from 0 again. */
const MAX_SLOT = 2 ** 31 - 1;

/**
 * The rows of one index key once it holds more than SMALL, by id: in the order they
 * arrived under it, a row that left leaving a hole. Arrival order is what `first()`
 * answers (a FIFO); a row that comes back arrives again, at the end. Cheaper than a Set:
 * a push, and a hole by position. Slots are numbered from the first row's on; `head`
 * moves past the holes at the front (a queue's rows leave from there: a campaign's leads
 * waiting to be dialed, its retries falling due, calls leaving `initiated`), whole chunks
 * behind it are let go without copying anything, and the rows are compacted only when
 * the holes past `head` outnumber them. The slots are chunks of CHUNK ids (the first
 * grows to it, the next are made whole), so a key of two million rows never copies them
 * into a larger array. They hold ids, not the rows: writing a number into a typed array
 * costs none of the garbage collector's bookkeeping of a reference from an old array to
 * a new row (the dialer writes millions), and the collector never walks them. Until a
 * row leaves or one arrives out of id order (rows that keep their key, as an account's
 * calls do), the ids ascend without holes: a row's slot is found by binary search and the
 * index keeps no position for it; from then on the index keeps the position of each of
 * the key's rows.
 */
class Bucket {
  /** chunks[0] holds the slots from `base` (a multiple of CHUNK) on. */
  chunks: Float64Array[];
  base = 0;
  /** Slots before `head` are holes. */
  head = 0;
  /** Slots from `end` on are free. */
  end: number;
  live: number;
  /** Whether the index keeps the positions of these rows (else their ids ascend, without holes). */
  positioned: boolean;
  /** The id of the latest row to arrive. */
  lastId: number;

  /** A bucket of the rows with `ids` (at most SMALL + 1) under `key`, in the order they arrived; the caller keeps their positions unless the ids ascend. */
  constructor(
    readonly key: Key,
    ids: readonly number[],
  ) {
    const first = new Float64Array(FIRST_SLOTS);
    for (let i = 0; i < ids.length; i++) first[i] = ids[i]!;
    this.chunks = [first];
    this.end = ids.length;
    this.live = ids.length;
    this.positioned = false;
    this.lastId = ids[ids.length - 1]!;
  }

  /** The id in `slot` (HOLE when none). */
  at(slot: number): number {
    return this.chunks[(slot - this.base) >> CHUNK_BITS]![slot & (CHUNK - 1)]!;
  }

  /** Makes `slot` a hole if it holds `id`; answers whether it did. */
  take(slot: number, id: number): boolean {
    const chunk = this.chunks[(slot - this.base) >> CHUNK_BITS]!;
    if (chunk[slot & (CHUNK - 1)] !== id) return false;
    chunk[slot & (CHUNK - 1)] = HOLE;
    return true;
  }

  /** Adds a row's id at the end; answers its slot. */
  push(id: number): number {
    const slot = this.end++;
    let chunk = this.chunks[(slot - this.base) >> CHUNK_BITS];
    if (chunk === undefined) this.chunks.push((chunk = new Float64Array(CHUNK)));
    else if ((slot & (CHUNK - 1)) >= chunk.length) {
      // Only the first chunk is ever short: it doubles.
      const grown = new Float64Array(Math.min(CHUNK, 2 * chunk.length));
      grown.set(chunk);
      this.chunks[0] = chunk = grown;
    }
    chunk[slot & (CHUNK - 1)] = id;
    this.live++;
    this.lastId = id;
    return slot;
  }

  /** Moves `head` past the holes at the front (some row is live) and lets go of the whole chunks behind it. */
  advance(): void {
    while (this.at(this.head) === HOLE) this.head++;
    while (this.head - this.base >= CHUNK) {
      this.chunks.shift();
      this.base += CHUNK;
    }
  }

  /** The slot of the row with `id` while not positioned (rows ascending, no holes), -1 when it is not here. */
  find(id: number): number {
    let lo = this.head;
    let hi = this.end;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const at = this.at(mid);
      if (at === id) return mid;
      if (at < id) lo = mid + 1;
      else hi = mid;
    }
    return -1;
  }

  /**
   * Starts it again once its last row left (every slot is a hole already), keeping a small
   * first chunk. It stays positioned: rows that come and go under a key (a call's status,
   * a lead's) will leave again, and the index keeping each one's position as it arrives
   * costs less than finding the rows again on the first to leave.
   */
  empty(): void {
    if (this.chunks.length > 1 || this.chunks[0]!.length > 64) this.chunks = [new Float64Array(FIRST_SLOTS)];
    this.base = 0;
    this.head = 0;
    this.end = 0;
    this.live = 0;
  }
}

/**
 * The rows of one index key in ascending id order, for reading pages from either end
 * without copying the key's rows. Built on the first `ordered()` of a key; an insert
 * (always the highest id) appends; a row that arrives or leaves near the newest end (a
 * call that ends after a later one began, moving between statuses) is put in or taken
 * out at its place; anything farther drops it, to be rebuilt on the next read.
 */
interface OrderedRows<T> {
  rows: T[];
  /** Whether the index's `monotone` value never decreases along `rows` (so ranges of it are binary-searchable). */
  monotone: boolean;
}

/**
 * How far from the newest end of a key's ordered rows a row may arrive or leave in place
 * (a step back each): a list read while calls change status keeps reading the same rows
 * instead of rebuilding them after every change.
 */
const IN_PLACE = 256;

/** Puts `row` in `ordered` at its place by id; false when that is more than IN_PLACE from the end. */
function arrive<T extends Row>(ordered: OrderedRows<T>, row: T, value: ((row: T) => number) | undefined): boolean {
  const rows = ordered.rows;
  let at = rows.length;
  while (at > 0 && rows[at - 1]!.id > row.id) {
    at--;
    if (rows.length - at > IN_PLACE) return false;
  }
  if (at === rows.length) rows.push(row);
  else rows.splice(at, 0, row);
  if (ordered.monotone && value !== undefined) {
    const v = value(row);
    if ((at > 0 && v < value(rows[at - 1]!)) || (at + 1 < rows.length && value(rows[at + 1]!) < v)) ordered.monotone = false;
  }
  return true;
}

/**
 * Takes `row` out of `ordered`; false when it is more than IN_PLACE from the end, or when
 * the rows are not monotone (a rebuild may find them monotone again without it).
 */
function leave<T extends Row>(ordered: OrderedRows<T>, row: T, value: ((row: T) => number) | undefined): boolean {
  if (value !== undefined && !ordered.monotone) return false;
  const rows = ordered.rows;
  for (let at = rows.length - 1; at >= 0 && rows.length - at <= IN_PLACE && rows[at]!.id >= row.id; at--) {
    if (rows[at] !== row) continue;
    if (at === rows.length - 1) rows.pop();
    else rows.splice(at, 1);
    return true;
  }
  return false;
}

/** How an index is declared: which fields its key reads (so an update touching none of them skips it) and an optional order. */
export interface IndexOptions<T> {
  /** The fields `key` reads; an update whose patch has none of them leaves the index alone. Absent: every update re-keys. */
  fields?: readonly (keyof T)[];
  /** A value that usually grows with the id (a creation time): `range()` binary-searches it while it does. */
  monotone?: (row: T) => number;
  /**
   * Few keys that rows move between (an account's calls by status): each key holds its
   * rows in a growing bucket from the first and keeps it when emptied, instead of the
   * compact forms a key of a few rows takes (which suit the many keys of a unique index).
   */
  fewKeys?: boolean;
  /**
   * Built on its first read, from every row, and kept current from then on: an index few
   * callers read (calls by client number) costs nothing to the many writes before. Only
   * for keys a row keeps, so that arrival order under a key is id order either way.
   */
  deferred?: boolean;
  /**
   * Rows move between its keys several times in a row with no read in between (a call's
   * status: initiated, ringing, in-progress, ended, while the clock runs): an insert or a
   * change notes the key the row is indexed under (none for a new row), and the row moves
   * once, to the key it has then, when the table's indexes are next read (or after
   * MOVES_KEPT notes). Arrival order under a key is then the order rows were first noted,
   * not the order they last moved: only for an index read in id order (`select`,
   * `ordered`, `count`); `first` refuses it.
   */
  coalesce?: boolean;
}

/** How many rows' moves an index of `coalesce` notes before it makes them (memory stays bounded whoever reads it). */
const MOVES_KEPT = 1024;

/** The rows whose moves an index of `coalesce` has noted, with the key each is indexed under. */
interface Moves {
  ids: number[];
  from: (Key | null | undefined)[];
  /** Each noted row's place in `ids` plus one, by id (a stale place is told by `ids` not holding the id there). */
  places: Positions;
}

function noMoves(): Moves {
  return { ids: [], from: [], places: new Positions() };
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

interface IndexEntry<T extends Row> {
  key: KeyOf<T>;
  fewKeys: boolean;
  monotone: ((row: T) => number) | undefined;
  /**
   * The rows of each key: the row itself while a key has one (most keys of a unique
   * index), an array of exactly its rows in arrival order up to SMALL (a number's few
   * calls), then a Bucket; with `fewKeys`, a Bucket from the first row.
   */
  map: Map<Key, T | T[] | Bucket>;
  /** Each row's slot in its key's Bucket, for the buckets whose rows did not arrive in ascending id order or have left (`Bucket.positioned`). */
  positions: Positions;
  /** Built on the first `ordered()` of a key, kept while rows only arrive at its end. */
  ordered: Map<Key, OrderedRows<T>>;
  /** Whether writes keep it current: false for a deferred index until its first read. */
  live: boolean;
  /**
   * With `fewKeys`, the Buckets of the integer keys used last, by the key's low bits: a
   * key's Bucket stays under it until the index is emptied, and the dialer's writes go
   * to a few keys over and over (a call's five indexes, its status moves, its lead's),
   * so most of them skip hashing the key. Made on the first write.
   */
  recent: (Bucket | undefined)[] | undefined;
  /** With `coalesce`, the moves noted and not made yet. */
  moves: Moves | undefined;
}

/** How many Buckets an index of few keys keeps at hand (a power of two: one per status of a call group, `groupStatusKey`). */
const RECENT = 16;

/** The rows under `key` in an index: the Map's entry, from the Buckets used last when the index has few keys. */
function rowsUnder<T extends Row>(entry: IndexEntry<T>, key: Key): T | T[] | Bucket | undefined {
  if (!entry.fewKeys || typeof key !== 'number') return entry.map.get(key);
  const recent = (entry.recent ??= new Array<Bucket | undefined>(RECENT).fill(undefined));
  const at = key & (RECENT - 1);
  const hit = recent[at];
  if (hit !== undefined && hit.key === key) return hit;
  const bucket = entry.map.get(key) as Bucket | undefined;
  if (bucket !== undefined) recent[at] = bucket;
  return bucket;
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
  private readonly rows = new RowsById<T>();
  private seq = 0;
  private readonly indexes = new Map<string, IndexEntry<T>>();
  /** The indexes in declaration order, and by field the bit mask of those whose key reads it. */
  private readonly entries: IndexEntry<T>[] = [];
  private readonly byField = new Map<string, number>();
  /**
   * The masks of the field lists `changing` was given, with the lists (made on the first:
   * most tables never see one). A table sees a few lists, each a constant of its caller's:
   * a scan by identity costs less than hashing the list on every change.
   */
  private masks: { fields: readonly string[]; mask: number }[] | undefined;
  /** The indexes declared without fields: every update re-keys them. */
  private everyUpdate = 0;
  /** The bit mask of the indexes writes keep current (all but a deferred index not read yet). */
  private live = 0;
  /** The indexes a restore left to build when the table is next read or written (bit per index, as `live`). */
  private restored = 0;
  /** The bit mask of the indexes of `coalesce` (their moves are noted by `keep`, made by `settleMoves`). */
  private coalesced = 0;
  /** Whether any index of `coalesce` has moves noted. */
  private moving = false;
  private readonly before: (Key | null | undefined)[] = [];
  private observer: TableObserver<T> | undefined;
  private fills: DeferredFills | undefined;
  private removed = 0;
  /** The rows a restore left to put in when the table is first used (`ready`), as the snapshot holds them. */
  private packed: T[] | undefined;
  /** How many of `packed` are in the table already (`unpackSome`). */
  private unpacked = 0;
  /** The rows' kept JSON texts (`text`), oldest first; made on first use. */
  private texts: Map<T, string> | undefined;

  constructor(
    readonly name: string,
    private readonly codec?: RowCodec<T>,
  ) {}

  /**
   * Makes the table ready to read or write: runs the fills queued for it and puts in the
   * rows a restore left (`restore`). Every read and write does it first.
   */
  private ready(): void {
    this.fills?.settle();
    if (this.packed !== undefined) this.unpack();
  }

  /**
   * Brings every index key up to date, the moves of coalesced indexes made: before
   * reading what the keys made elsewhere (the calls' groups, made as calls are keyed).
   */
  keysCurrent(): void {
    this.ready();
    this.settle();
  }

  /** `ready`, with every index a restore left built: a write keeps each index current. */
  private readyToWrite(): void {
    this.ready();
    if (this.restored !== 0) this.indexRestored();
  }

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
    if (this.entries.length >= 30) throw new Error(`${this.name} has too many indexes`);
    const live = options.deferred !== true;
    const moves = options.coalesce === true ? noMoves() : undefined;
    if (moves && !live) throw new Error(`${this.name}: an index of coalesced moves is kept from the start`);
    const entry: IndexEntry<T> = { key, fewKeys: options.fewKeys === true, monotone: options.monotone, map: unused(), positions: new Positions(), ordered: unused(), live, recent: undefined, moves };
    const bit = 1 << this.entries.length;
    if (live) this.live |= bit;
    if (moves) this.coalesced |= bit;
    this.indexes.set(name, entry);
    this.entries.push(entry);
    this.masks = undefined;
    if (options.fields) for (const field of options.fields) this.byField.set(field as string, (this.byField.get(field as string) ?? 0) | bit);
    else this.everyUpdate |= bit;
    if (live) this.fill(entry);
    return this;
  }

  get size(): number {
    this.ready();
    return this.rows.size;
  }

  /** The id the next insert will take. */
  get nextId(): number {
    this.fills?.settle();
    return this.seq + 1;
  }

  /** Inserts a row, giving it the next id. */
  insert(data: Omit<T, 'id'>): T {
    return this.insertRow((id) => ({ id, ...data }) as T);
  }

  /**
   * Inserts the row `build` makes for the next id. A table of many rows builds each as
   * one object literal (id first): no copy of its fields, and the row takes no more
   * memory than its fields.
   * @example calls.insertRow((id) => callRow(id, fields))
   */
  insertRow(build: (id: number) => T): T {
    this.readyToWrite();
    const row = build(this.seq + 1);
    if (row.id !== this.seq + 1) throw new Error(`${this.name}: a new row takes the id ${this.seq + 1}`);
    this.seq++;
    return this.add(row);
  }

  private add(row: T): T {
    const id = row.id;
    this.rows.set(row, id);
    for (const entry of this.entries) {
      if (!entry.live) continue;
      // A new row of an index of `coalesce` is noted as a move from no key: it arrives once, under the key it has when read.
      if (entry.moves === undefined) this.addToIndex(entry, entry.key(row), row, id);
      else this.noteMove(entry, entry.moves, id, undefined);
    }
    this.observer?.put(row);
    return row;
  }

  /**
   * Inserts a row of one account: `insert({ ...data, account_id })` with one copy of
   * `data` instead of two (the same fields in the same order).
   */
  insertOwned(data: Omit<T, 'id' | 'account_id'>, accountId: number): T {
    this.readyToWrite();
    return this.add({ id: ++this.seq, ...data, account_id: accountId } as unknown as T);
  }

  get(id: number): T | undefined {
    this.ready();
    return this.rows.get(id);
  }

  /**
   * The row's JSON text as `encode` writes it, kept until the row changes (an update, a
   * deletion, an emptying or a restore of the table), so a page of rows that did not
   * change is written without encoding them again. `encode` must read nothing but the
   * row, and be the same for every row of the table. The texts of the latest
   * `TEXTS_KEPT` rows encoded are kept, the oldest dropped first.
   * @example calls.text(call, (c) => JSON.stringify(serialiseCall(c)))
   */
  text(row: T, encode: (row: T) => string): string {
    const texts = (this.texts ??= new Map());
    let text = texts.get(row);
    if (text === undefined) {
      text = encode(row);
      if (texts.size >= TEXTS_KEPT) texts.delete(texts.keys().next().value!);
      texts.set(row, text);
    }
    return text;
  }

  /** Forgets every kept text (`text`): what its encoder reads besides the rows changed (the base URL of the links it writes). */
  dropTexts(): void {
    this.texts = undefined;
  }

  /** Applies `patch` to a row and keeps the indexes current. */
  update(id: number, patch: Partial<Omit<T, 'id'>>): T {
    this.readyToWrite();
    const row = this.rows.get(id);
    if (!row) throw new Error(`${this.name} ${id} does not exist`);
    this.texts?.delete(row);
    // Only the indexes whose key reads a patched field can move (most updates touch none).
    let touched = this.everyUpdate;
    for (const field in patch) touched |= this.byField.get(field) ?? 0;
    this.keep(row, touched & this.live);
    assign(row, patch);
    return this.rekey(row, touched & this.live);
  }

  /**
   * The first half of a change written into a row in place, with the caller's own typed
   * writes (the dialer's transitions: cheaper than a patch's generic ones): notes the keys
   * of the indexes that read any of `fields` (every field the writes may change) and
   * answers them for `changed`. Nothing else may change the table in between.
   * @example const moving = calls.changing(row, STATUS_FIELDS); row.status = 'ringing'; row.updated_at = now; calls.changed(row, moving)
   */
  changing(row: T, fields: readonly (keyof T & string)[]): number {
    this.readyToWrite();
    // The row's kept text is stale once the writes are made (as after an `update`).
    this.texts?.delete(row);
    const masks = (this.masks ??= []);
    let at = 0;
    while (at < masks.length && masks[at]!.fields !== fields) at++;
    if (at === masks.length) {
      let mask = this.everyUpdate;
      for (const field of fields) mask |= this.byField.get(field) ?? 0;
      masks.push({ fields, mask });
    }
    const touched = masks[at]!.mask & this.live;
    this.keep(row, touched);
    return touched;
  }

  /** The second half of a change in place (`changing`): the row's indexes are kept current and the change reported. */
  changed(row: T, touched: number): T {
    return this.rekey(row, touched);
  }

  /** Notes the keys `row` has now in the `touched` indexes, in a scratch array of the table's (a change runs to its end before the next). */
  private keep(row: T, touched: number): void {
    // The touched indexes alone, lowest bit first (a status change of a call touches one of six).
    for (let bits = touched; bits !== 0; bits &= bits - 1) {
      const i = 31 - Math.clz32(bits & -bits);
      const entry = this.entries[i]!;
      if (entry.moves === undefined) this.before[i] = entry.key(row);
      else if (!this.noted(entry.moves, row.id)) this.noteMove(entry, entry.moves, row.id, entry.key(row));
    }
  }

  /** Whether a move of the row with `id` is noted already. */
  private noted(moves: Moves, id: number): boolean {
    const place = moves.places.get(id);
    return place > 0 && moves.ids[place - 1] === id;
  }

  /** Notes that the row with `id` (not noted yet) may move in an index of `coalesce`, from the key `from` it is indexed under (undefined: none). */
  private noteMove(entry: IndexEntry<T>, moves: Moves, id: number, from: Key | null | undefined): void {
    if (moves.ids.length >= MOVES_KEPT) this.settleMoves(entry, moves);
    moves.ids.push(id);
    moves.from.push(from);
    moves.places.set(id, moves.ids.length, this.rows.size);
    this.moving = true;
  }

  /** Makes the moves an index of `coalesce` noted: each row from the key it was indexed under to the one it has now. */
  private settleMoves(entry: IndexEntry<T>, moves: Moves): void {
    const { ids, from } = moves;
    // Emptied first: a row's move is made once, whatever the moves below do.
    moves.ids = [];
    moves.from = [];
    for (let n = 0; n < ids.length; n++) {
      const id = ids[n]!;
      const row = this.rows.get(id);
      // A row deleted meanwhile was taken from its noted key then (`delete`).
      if (row !== undefined) this.move(entry, from[n], row, id);
    }
  }

  /** Makes every noted move (before any read of an index, a deletion, or anything that reads the keys rows are under). */
  private settle(): void {
    if (!this.moving) return;
    this.moving = false;
    for (const entry of this.entries) if (entry.moves !== undefined && entry.moves.ids.length > 0) this.settleMoves(entry, entry.moves);
  }

  /** Reports a changed row and moves it in the `touched` indexes whose key moved from the one `keep` noted. */
  private rekey(row: T, touched: number): T {
    this.observer?.put(row);
    // Moves in an index of `coalesce` were noted by `keep`; they are made when it is read.
    touched &= ~this.coalesced;
    if (touched === 0) return row;
    const id = row.id;
    for (let bits = touched; bits !== 0; bits &= bits - 1) {
      const i = 31 - Math.clz32(bits & -bits);
      this.move(this.entries[i]!, this.before[i], row, id);
    }
    return row;
  }

  /** Moves `row` (whose id is `id`) in an index from the key `old` it is indexed under to the one it has now. */
  private move(entry: IndexEntry<T>, old: Key | null | undefined, row: T, id: number): void {
    const now = entry.key(row);
    if (old !== now) {
      this.removeFromIndex(entry, old, row, id);
      this.addToIndex(entry, now, row, id);
    } else if (entry.monotone) {
      // The key stays but the ordered value may have moved.
      entry.ordered.delete(now as Key);
    }
  }

  delete(id: number): T | undefined {
    this.readyToWrite();
    const row = this.rows.get(id);
    if (!row) return undefined;
    // The row leaves the keys it is indexed under: its noted moves are made first.
    this.settle();
    this.rows.delete(id);
    this.removed++;
    this.texts?.delete(row);
    for (const entry of this.entries) if (entry.live) this.removeFromIndex(entry, entry.key(row), row, id);
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
    this.ready();
    const bucket = rowsUnder(this.entry(index), key);
    if (bucket === undefined) return [];
    if (!(bucket instanceof Bucket || Array.isArray(bucket))) return keep && !keep(bucket) ? [] : [bucket];
    const out: T[] = [];
    let ordered = true;
    let last = 0;
    const big = bucket instanceof Bucket;
    const end = big ? bucket.end : bucket.length;
    for (let i = big ? bucket.head : 0; i < end; i++) {
      const row = big ? this.rowIn(bucket, i) : bucket[i];
      if (row === undefined || (keep && !keep(row))) continue;
      // A row re-indexed by an update arrives at the end.
      if (row.id < last) ordered = false;
      last = row.id;
      out.push(row);
    }
    return ordered ? out : out.sort((a, b) => a.id - b.id);
  }

  /** How many rows an index holds under `key`. */
  count(index: string, key: string | number): number {
    this.ready();
    this.settle();
    const entry = this.indexes.get(index);
    const bucket = entry === undefined ? undefined : rowsUnder(entry.live ? entry : this.entry(index), key);
    return bucket === undefined ? 0 : bucket instanceof Bucket ? bucket.live : Array.isArray(bucket) ? bucket.length : 1;
  }

  /**
   * The rows under `key` in an index in ascending id order, shared (not a copy: never
   * modify it), for walking a page from either end. `monotone` says whether the index's
   * monotone value never decreases along it.
   */
  ordered(index: string, key: string | number): { rows: readonly T[]; monotone: boolean } {
    this.ready();
    const entry = this.entry(index);
    let ordered = entry.ordered.get(key);
    if (!ordered) {
      const rows = this.select(index, key);
      if (rows.length === 0) return { rows: [], monotone: true };
      ordered = { rows, monotone: entry.monotone ? isMonotone(rows, entry.monotone) : false };
      entry.ordered = own(entry.ordered);
      entry.ordered.set(key, ordered);
    }
    return ordered;
  }

  /** How many keys an index holds (an index of few keys counts its emptied keys too). */
  keyCount(index: string): number {
    this.ready();
    return this.entry(index).map.size;
  }

  /** Every key an index holds rows under, in the order the keys first appeared (an emptied key of an index of few keys keeps its place). */
  keys(index: string): IterableIterator<Key> {
    this.ready();
    const entry = this.entry(index);
    // Only an index of few keys keeps emptied keys; any other holds rows under each of its keys.
    return entry.fewKeys ? liveKeys(entry.map) : entry.map.keys();
  }

  /** The row that has been under `key` in an index the longest (a unique key's row, or a FIFO's head). */
  first(index: string, key: string | number): T | undefined {
    this.ready();
    const entry = this.entry(index);
    if (entry.moves !== undefined) throw new Error(`${this.name}: the index "${index}" coalesces moves, so it keeps no arrival order for first()`);
    const bucket = rowsUnder(entry, key);
    if (Array.isArray(bucket)) return bucket[0];
    if (!(bucket instanceof Bucket)) return bucket;
    if (bucket.live === 0) return undefined;
    bucket.advance();
    return this.rowIn(bucket, bucket.head);
  }

  /** The row in a slot of a bucket (undefined for a hole). */
  private rowIn(bucket: Bucket, slot: number): T | undefined {
    const id = bucket.at(slot);
    return id === HOLE ? undefined : this.rows.get(id);
  }

  /** Every row in ascending id order. */
  all(): T[] {
    this.ready();
    return this.rows.all();
  }

  clear(): void {
    this.rows.clear();
    this.packed = undefined;
    this.unpacked = 0;
    this.removed++;
    this.seq = 0;
    this.texts = undefined;
    this.moving = false;
    for (const entry of this.entries) {
      if (entry.moves) entry.moves = noMoves();
      entry.map.clear();
      entry.recent = undefined;
      entry.positions = new Positions();
      entry.ordered.clear();
    }
    this.observer?.clear();
  }

  snapshot(): TableSnapshot<T> {
    // Before `seq` is read (`all()` would settle only after it).
    this.ready();
    const rows = this.all();
    return { seq: this.seq, rows: cloneData(this.codec ? rows.map(this.codec.plain) : rows) };
  }

  /**
   * Replaces every row with a snapshot's. The rows are copied unless `owned` (the caller
   * gives them up, as a state file just parsed does: no second copy of a large state).
   */
  restore(snapshot: TableSnapshot<T>, owned = false): void {
    this.clear();
    this.seq = snapshot.seq;
    // The indexes are built again each on its first read (`entry`), or all at the table's
    // first write (`indexRestored`): a restart on a large state answers before it has
    // indexed what no request has read yet (issue 29: a third of a 100k-lead restore). Built then in id order (the
    // order a snapshot lists its rows) and before any change, so every key keeps the
    // arrival order a restore gives.
    // An index of coalesced moves is kept from the start.
    for (let i = 0; i < this.entries.length; i++) {
      const entry = this.entries[i]!;
      const bit = 1 << i;
      if (entry.moves !== undefined || (!entry.live && (this.restored & bit) === 0)) continue;
      entry.live = false;
      this.live &= ~bit;
      this.restored |= bit;
    }
    this.packed = owned ? snapshot.rows : structuredClone(snapshot.rows);
    // An observer sees the restore as it happens (the rows, after the emptying); a table
    // nobody observes takes its rows on first use (`unpack`): a restart on a large state
    // answers before it has made the 220k call records of a 100k-lead campaign (issue 29).
    if (this.observer) this.unpack(true);
  }

  /** How many rows a restore left that are not in the table yet (`ready`, `unpackSome`). */
  get waiting(): number {
    return this.packed === undefined ? 0 : this.packed.length - this.unpacked;
  }

  /**
   * Puts in up to `count` more of the rows a restore left, in id order: the server does
   * it a slice per turn of its event loop after a restore (`Database.unpackSome`), so
   * that the rows take their compact form without a request waiting for all of them.
   * Answers whether it had any to put in.
   */
  unpackSome(count: number): boolean {
    if (this.packed === undefined) return false;
    this.unpack(false, count);
    return true;
  }

  /**
   * Puts in the rows a restore left (`restore`), all or the next `count`, with the
   * indexes of coalesced moves (kept from the start); the others are built by
   * `indexRestored`. Reported to the observer only as the restore's own rows (`report`):
   * made later, they are rows the table held already when an observer started to watch it.
   */
  private unpack(report = false, count = Infinity): void {
    const packed = this.packed!;
    const from = this.unpacked;
    const to = Math.min(packed.length, from + count);
    if (to < packed.length) this.unpacked = to;
    else {
      this.packed = undefined;
      this.unpacked = 0;
    }
    // The indexes built now (coalesced ones), listed once rather than looked for per row.
    const live = this.entries.filter((entry) => entry.live);
    for (let n = from; n < to; n++) {
      const plain = packed[n]!;
      const row = this.codec ? this.codec.row(plain) : plain;
      const id = row.id;
      this.rows.set(row, id);
      for (let i = 0; i < live.length; i++) this.addToIndex(live[i]!, live[i]!.key(row), row, id);
      if (report) this.observer!.put(row);
    }
  }

  /** Builds the indexes a restore left (`restore`) that no read has built, before the table's first write after it. */
  private indexRestored(): void {
    const restored = this.restored;
    if (restored === 0) return;
    this.restored = 0;
    for (let i = 0; i < this.entries.length; i++) {
      if ((restored & (1 << i)) === 0) continue;
      const entry = this.entries[i]!;
      entry.live = true;
      this.live |= 1 << i;
      this.fill(entry);
    }
  }

  private entry(index: string): IndexEntry<T> {
    this.settle();
    const entry = this.indexes.get(index);
    if (!entry) throw new Error(`${this.name} has no index "${index}"`);
    if (!entry.live) {
      // Deferred, or left by a restore: built now, alone (the restore's others wait for their own first read, or a write).
      const bit = 1 << this.entries.indexOf(entry);
      entry.live = true;
      this.live |= bit;
      this.restored &= ~bit;
      this.fill(entry);
    }
    return entry;
  }

  /** Indexes every row under `entry`, in id order. */
  private fill(entry: IndexEntry<T>): void {
    for (const row of this.rows.all()) this.addToIndex(entry, entry.key(row), row, row.id);
  }

  /** Puts `row` (whose id is `id`: read once by the caller, the rows of every table passing here) under `key`. */
  private addToIndex(entry: IndexEntry<T>, key: Key | null | undefined, row: T, id: number): void {
    if (key === null || key === undefined) return;
    const bucket = rowsUnder(entry, key);
    if (bucket === undefined) {
      entry.map = own(entry.map);
      entry.map.set(key, entry.fewKeys ? new Bucket(key, [id]) : row);
    } else if (entry.fewKeys || bucket instanceof Bucket) this.arrive(entry, bucket as Bucket, id);
    else if (Array.isArray(bucket)) {
      if (bucket.length < SMALL) {
        // A new array of the exact length: a push would leave room for 16 more.
        const rows = new Array<T>(bucket.length + 1);
        for (let i = 0; i < bucket.length; i++) rows[i] = bucket[i]!;
        rows[bucket.length] = row;
        entry.map.set(key, rows);
      } else {
        const ids = [...bucket.map((r) => r.id), id];
        const grown = new Bucket(key, ids);
        for (let i = 1; i < ids.length; i++) if (ids[i]! <= ids[i - 1]!) this.keepPositions(entry, grown);
        entry.map.set(key, grown);
      }
    } else if (bucket !== row) entry.map.set(key, [bucket, row]);
    // Most keys are never read in order: skip the lookup while none is.
    const ordered = entry.ordered.size > 0 ? entry.ordered.get(key) : undefined;
    if (ordered && !arrive(ordered, row, entry.monotone)) entry.ordered.delete(key);
  }

  /** Takes `row` (whose id is `id`, as for `addToIndex`) from under `key`. */
  private removeFromIndex(entry: IndexEntry<T>, key: Key | null | undefined, row: T, id: number): void {
    if (key === null || key === undefined) return;
    const bucket = rowsUnder(entry, key);
    if (bucket === undefined) return;
    if (entry.fewKeys || bucket instanceof Bucket) {
      const big = bucket as Bucket;
      let slot: number;
      if (big.positioned) slot = entry.positions.get(id);
      else {
        // The first row to leave: the others will leave by position, holes being about to appear.
        slot = big.find(id);
        this.keepPositions(entry, big);
      }
      if (slot < big.head || slot >= big.end || !big.take(slot, id)) return;
      if (--big.live > 0) {
        if (slot === big.head) big.advance();
        if (big.end - big.head >= 64 && big.live * 2 < big.end - big.head) this.compact(entry, big);
      } else if (entry.fewKeys) {
        // Kept under its key (keys() skips it): a status whose rows come and go, as the
        // dialer's do, would otherwise rebuild its key again and again. Large chunks are
        // let go (a drained queue of a million leads).
        big.empty();
      } else entry.map.delete(key);
    } else if (Array.isArray(bucket)) {
      const position = bucket.indexOf(row);
      if (position < 0) return;
      if (bucket.length === 2) entry.map.set(key, bucket[1 - position]!);
      else bucket.splice(position, 1);
    } else if (bucket === row) entry.map.delete(key);
    else return;
    const ordered = entry.ordered.size > 0 ? entry.ordered.get(key) : undefined;
    if (ordered && (!leave(ordered, row, entry.monotone) || ordered.rows.length === 0)) entry.ordered.delete(key);
  }

  /** A row arrives at the end of a bucket; the first to arrive out of id order makes the index keep the bucket's positions. */
  private arrive(entry: IndexEntry<T>, bucket: Bucket, id: number): void {
    if (!bucket.positioned && id <= bucket.lastId) this.keepPositions(entry, bucket);
    if (bucket.end >= MAX_SLOT) this.compact(entry, bucket);
    const slot = bucket.push(id);
    if (bucket.positioned) entry.positions.set(id, slot, this.rows.size);
  }

  /** From now on the index keeps the slot of each row of `bucket`: those it holds are recorded. */
  private keepPositions(entry: IndexEntry<T>, bucket: Bucket): void {
    if (bucket.positioned) return;
    bucket.positioned = true;
    for (let i = bucket.head; i < bucket.end; i++) {
      const id = bucket.at(i);
      if (id !== HOLE) entry.positions.set(id, i, this.rows.size);
    }
  }

  /**
   * Drops a bucket's holes in place, keeping the rows in arrival order in slots from 0
   * again, and lets go of the chunks left empty (what lies past the end is never read).
   * The slots are walked by their place in the chunks: a row moves only towards the
   * first chunk's start, over slots already read.
   */
  private compact(entry: IndexEntry<T>, bucket: Bucket): void {
    const chunks = bucket.chunks;
    let kept = 0;
    for (let at = bucket.head - bucket.base; at < bucket.end - bucket.base; at++) {
      const id = chunks[at >> CHUNK_BITS]![at & (CHUNK - 1)]!;
      if (id === HOLE) continue;
      chunks[kept >> CHUNK_BITS]![kept & (CHUNK - 1)] = id;
      if (bucket.positioned) entry.positions.set(id, kept, this.rows.size);
      kept++;
    }
    chunks.length = Math.max(1, Math.ceil(kept / CHUNK));
    bucket.base = 0;
    bucket.head = 0;
    bucket.end = kept;
  }
}

/** Writes a patch's fields into a row: `Object.assign` without its generic path (slower on small patches). */
function assign<T>(row: T, patch: Partial<T>): void {
  for (const field in patch) row[field] = patch[field]!;
}

/** The keys of an index of few keys that hold rows now. */
function* liveKeys<T extends Row>(map: Map<Key, T | T[] | Bucket>): IterableIterator<Key> {
  for (const [key, bucket] of map) if (!(bucket instanceof Bucket) || bucket.live > 0) yield key;
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
