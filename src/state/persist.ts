/**
 * The state file of a long-running server (`voxsim serve --state-file FILE`): a snapshot
 * plus change logs, so that every change acknowledged to a client survives the process
 * being killed, and saving never holds up request handling for long.
 *
 * - `FILE` is a snapshot in the format of `GET /__sim/state` (`voxsim-snapshot/1`),
 *   replaced atomically and durably (atomic.ts: a temp file flushed to disk, renamed
 *   over it, the directory flushed).
 * - `FILE.log.N` (N = 1, 2, ...) are change logs, JSON lines: a header line
 *   `{"format":"voxsim-log/1",...}`, then one record per save point with the rows,
 *   clock events and small parts that changed since the previous one (rows and events
 *   whole, as they now are; deletions by id; a table or queue emptied by `clear`).
 *   A record is written synchronously before the answer of the request that made the
 *   change is sent: answers wait for a save point at the end of their turn of the event
 *   loop, one record in one write for all of that turn's answers. Background changes
 *   (clock events in realtime mode, a webhook receiver's answer) are written at the next
 *   turn.
 * - Compaction writes a new snapshot in slices between requests: new records go to a new
 *   log first, then the snapshot is written (each slice sees only what is already
 *   logged), renamed over `FILE`, and the older logs are removed. Its file work (writes,
 *   the flush to disk before the rename, freeing the old files) runs on the thread pool.
 *
 * A save point that cannot write its record (the directory removed, the disk full, the
 * log deleted under the server) writes the whole state as a new snapshot at once instead,
 * making the directory again if it is gone. When that fails too, the answers of the turn
 * are refused (503: nothing unsaved is acknowledged) and every later save point tries
 * again; the changes stay in memory meanwhile (an answered request cannot be undone).
 *
 * Restoring reads `FILE` once and applies every log in order. Records are last-writer-
 * wins (a row's record holds the whole row), so replaying a log that the snapshot
 * already covers changes nothing: a crash at any point of a compaction restores the
 * same state. A log's last line without its newline (cut off by a kill) is ignored; any
 * other line that cannot be read refuses the start.
 */
import { closeSync, existsSync, fdatasync, fdatasyncSync, fstatSync, ftruncateSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, unlinkSync, write, writeSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { promisify } from 'node:util';
import { basename, dirname, join } from 'node:path';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { ClockEvent, ClockSnapshot } from '../core/clock.js';
import { COMMON_MESSAGES } from '../core/errors.js';
import type { SeededRandom } from '../core/random.js';
import { deepPathText, MAX_SNAPSHOT_DEPTH, tooDeepAt } from '../core/validation.js';
import { renameDurably, tempPathOf } from './atomic.js';
import { SNAPSHOT_FORMAT, type SimulatorSnapshot, type SnapshotParts } from './snapshot.js';
import { VERSION } from '../version.js';

export const LOG_FORMAT = 'voxsim-log/1';
/** A compaction starts once the logs hold this many bytes and at least as many as the last snapshot (64 MiB; `--compact-after`). */
export const DEFAULT_COMPACT_AFTER = 64 * 1024 * 1024;
/** How long one slice of a compaction may run before requests get their turn (ms). */
const SLICE_MS = 8;
/** While requests come in, a compaction works one slice in this many (the rest is theirs). */
const BUSY_SHARE = 16;
/** Written text is handed to the file in pieces of about this many characters. */
const WRITE_CHUNK = 1 << 20;

interface Keyed {
  id: number;
}

/** The changes of one table (or of the clock's queue) since the last record. */
interface Changes {
  clear?: true;
  put?: Keyed[];
  del?: number[];
}

/** One record of a change log. Every field is optional: only what changed is written. */
export interface LogRecord {
  tables?: Record<string, Changes & { seq: number }>;
  clock?: Changes & Partial<Omit<ClockSnapshot, 'events'>>;
  random?: SimulatorSnapshot['random'];
  seed?: number;
  webhooks?: Omit<SimulatorSnapshot['webhooks'], 'deliveries'>;
  replies?: SimulatorSnapshot['replies'];
  outcomes?: SimulatorSnapshot['outcomes'];
  message_outcomes?: SimulatorSnapshot['message_outcomes'];
  faults?: SimulatorSnapshot['faults'];
  /** The catalog document in force (null: each wire's own), written when it changed. */
  catalog?: SimulatorSnapshot['catalog'];
}

/** What the state file reads from a simulator and restores into it. */
export interface PersistedSimulator extends SnapshotParts {
  readonly seed: number;
  readonly start: number;
  readonly random: SeededRandom;
}

/** A reason the state file or one of its logs cannot be used, in one line naming the file. */
export class StateFileError extends Error {}

/** Texts of a state file that cannot be written while the server runs. */
export const STATE_FILE_MESSAGES = {
  /** The 503 answer while changes are not on disk. */
  notSaved: (file: string, reason: string) =>
    `The state could not be saved: state file ${file} cannot be written (${reason}). Changes are kept in memory only and lost if the server is killed; every request tries to save them again.`,
} as const;

/**
 * A file-system error in words: `permission denied` for EACCES, else its code (`ENOSPC`),
 * else the error's message.
 * @example fsReason(Object.assign(new Error('...'), { code: 'EACCES' })) // 'permission denied'
 */
export function fsReason(error: unknown): string {
  if (error instanceof StateNotSavedError) return fsReason(error.cause);
  const code = (error as NodeJS.ErrnoException).code ?? '';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EROFS') return 'read-only file system';
  return code || (error as Error).message;
}

/** The changes made since the last save point are not on disk (`cause`: why); its message is the 503 answer's. */
export class StateNotSavedError extends Error {
  constructor(file: string, cause: unknown) {
    super(STATE_FILE_MESSAGES.notSaved(file, fsReason(cause)), { cause });
  }
}

/** Collects the changes of one keyed collection between two records (the last change of a key wins). */
class Tracker {
  private cleared = false;
  private readonly puts = new Map<number, Keyed>();
  private readonly dels = new Set<number>();

  constructor(
    readonly name: string,
    /** The collection's last id given out (a record's `seq`). */
    readonly seq: () => number,
    private readonly touched: (tracker: Tracker) => void,
  ) {}

  put(row: Keyed): void {
    this.puts.set(row.id, row);
    this.dels.delete(row.id);
    this.touched(this);
  }

  delete(id: number): void {
    this.puts.delete(id);
    this.dels.add(id);
    this.touched(this);
  }

  clear(): void {
    this.cleared = true;
    this.puts.clear();
    this.dels.clear();
    this.touched(this);
  }

  get empty(): boolean {
    return !this.cleared && this.puts.size === 0 && this.dels.size === 0;
  }

  /** The changes as a record holds them (rows as they are now). */
  changes(): Changes {
    return {
      ...(this.cleared && { clear: true as const }),
      ...(this.puts.size > 0 && { put: [...this.puts.values()] }),
      ...(this.dels.size > 0 && { del: [...this.dels] }),
    };
  }

  reset(): void {
    this.cleared = false;
    this.puts.clear();
    this.dels.clear();
  }
}

/** The log files of `file` (`file.log.N`), oldest first. */
export function logFiles(file: string, upTo?: number): { gen: number; path: string }[] {
  // Told the last generation there may be (a directory of many state files, issue 44): each one up to it is asked for, not the directory read.
  if (upTo !== undefined) {
    const found: { gen: number; path: string }[] = [];
    for (let gen = 1; gen <= upTo; gen++) if (existsSync(`${file}.log.${gen}`)) found.push({ gen, path: `${file}.log.${gen}` });
    return found;
  }
  const prefix = `${basename(file)}.log.`;
  return readdirSync(dirname(file))
    .filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)))
    .map((name) => ({ gen: Number(name.slice(prefix.length)), path: join(dirname(file), name) }))
    .sort((a, b) => a.gen - b.gen);
}

/**
 * Applies the records of the log `path` to a parsed snapshot, in place. A last line
 * without its newline that cannot be read was cut off by a kill and is ignored; any
 * other unreadable line is a StateFileError naming the log and the line.
 */
export function applyLog(snapshot: SimulatorSnapshot, path: string): void {
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  // After a last "\n" split leaves '', otherwise the last line was cut off.
  const complete = lines[lines.length - 1] === '';
  lines.pop();
  const tables = new Map<string, Map<number, Keyed>>();
  const rowsOf = (name: string, rows: Keyed[]): Map<number, Keyed> => {
    let map = tables.get(name);
    if (!map) tables.set(name, (map = new Map(rows.map((row) => [row.id, row]))));
    return map;
  };
  let events: Map<number, Keyed> | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch (error) {
      if (!complete && i === lines.length - 1) break;
      throw new StateFileError(`state log ${path} is damaged at line ${i + 1} (${(error as Error).message.replace(/, ".*$/s, '').replace(/ \(line \d+ column \d+\)$/, '')})`);
    }
    if (i === 0) {
      const format = (record as { format?: unknown } | null)?.format;
      if (format !== LOG_FORMAT) throw new StateFileError(`state log ${path} is not a voxsim change log (no "format": "${LOG_FORMAT}" on its first line)`);
      continue;
    }
    if (record === null || typeof record !== 'object' || Array.isArray(record)) throw new StateFileError(`state log ${path} is damaged at line ${i + 1} (not a record)`);
    // A record nests as deep as the snapshot around the same rows: the snapshot's limit holds.
    const deep = tooDeepAt(record, 1, MAX_SNAPSHOT_DEPTH);
    if (deep) throw new StateFileError(`state log ${path} is damaged at line ${i + 1} (at ${deepPathText(deep)}: ${COMMON_MESSAGES.tooDeep('record', MAX_SNAPSHOT_DEPTH).replace(/\.$/, '')})`);
    const r = record as LogRecord;
    for (const [name, change] of Object.entries(r.tables ?? {})) {
      const target = name === WEBHOOK_TABLE ? snapshot.webhooks.deliveries : (snapshot.db as Record<string, { seq: number; rows: Keyed[] }>)[name];
      if (!target) throw new StateFileError(`state log ${path} is damaged at line ${i + 1} (unknown table "${name}")`);
      const rows = rowsOf(name, target.rows);
      applyChanges(rows, change);
      target.seq = change.seq;
    }
    if (r.clock) {
      const { clear, put, del, ...head } = r.clock;
      events ??= new Map(snapshot.clock.events.map((e) => [e.id, e]));
      applyChanges(events, { ...(clear && { clear }), ...(put && { put }), ...(del && { del }) });
      Object.assign(snapshot.clock, head);
    }
    if (r.random) snapshot.random = r.random;
    if (r.seed !== undefined) snapshot.seed = r.seed;
    if (r.webhooks) Object.assign(snapshot.webhooks, r.webhooks);
    if (r.replies) snapshot.replies = r.replies;
    if (r.outcomes) snapshot.outcomes = r.outcomes;
    if (r.message_outcomes) snapshot.message_outcomes = r.message_outcomes;
    if (r.faults) snapshot.faults = r.faults;
    if (r.catalog !== undefined) snapshot.catalog = r.catalog;
  }
  for (const [name, rows] of tables) {
    const target = name === WEBHOOK_TABLE ? snapshot.webhooks.deliveries : (snapshot.db as Record<string, { rows: Keyed[] }>)[name]!;
    target.rows = [...rows.values()].sort((a, b) => a.id - b.id);
  }
  if (events) snapshot.clock.events = [...events.values()].sort((a, b) => a.id - b.id) as ClockEvent[];
}

function applyChanges(rows: Map<number, Keyed>, change: Changes): void {
  if (change.clear) rows.clear();
  for (const id of change.del ?? []) rows.delete(id);
  for (const row of change.put ?? []) rows.set(row.id, row);
}

const datasync = promisify(fdatasync);
const writeAsync = promisify(write);

/** Writes all of `bytes` at the file's position, on a thread of the pool. */
async function writeFully(fd: number, bytes: Buffer): Promise<void> {
  let done = 0;
  while (done < bytes.length) done += (await writeAsync(fd, bytes, done, bytes.length - done, null)).bytesWritten;
}

/** The name the webhook journal's deliveries go by in log records. */
const WEBHOOK_TABLE = 'webhook_deliveries';

/** What the owner of a state file hears of its writes (the server logs each as a line). */
export interface StateStoreEvents {
  /** A save point could not write the state: its answers are refused until one can (once per run of failures). */
  onError?: (error: unknown) => void;
  /** A log write failed (`cause`) and a new snapshot, holding every change, was written in its place. */
  onRewritten?: (cause: unknown) => void;
  /** A save point wrote the state after a run of failures. */
  onSavedAgain?: () => void;
}

/**
 * Keeps a simulator's state file: observes every change, writes a record at each save
 * point (`flush()`), compacts the logs into a new snapshot in slices.
 * @example const store = new StateStore(file, sim, { nextGen: 1, logBytes: 0 }); store.flush()
 */
export class StateStore {
  private readonly trackers = new Map<string, Tracker>();
  private readonly clockEvents: Tracker;
  private fd: number | undefined;
  private gen: number;
  private logBytes = 0;
  /** Bytes of every log not yet compacted away. */
  private allLogBytes: number;
  private snapshotBytes: number;
  private compacting: Promise<void> | undefined;
  private closed = false;
  /** Why the changes since the last save point are not on disk; undefined while they are. */
  private unsaved: unknown;
  /** Records in the open log (a log that holds none is removed when its first write fails). */
  private logRecords = 0;
  /** Set when a snapshot written at once replaced the one a compaction was writing: the compaction stops. */
  private abandoned = false;
  /** Save points so far: a compaction that sees them move knows requests are coming in. */
  private flushes = 0;
  /** Files being removed in the background (replaced snapshots, compacted logs). */
  private readonly removing = new Set<Promise<void>>();
  private readonly compactAfter: number;
  private readonly events: StateStoreEvents;
  /** Its directory holds many state files: logs are looked for by name, the directory is not read. */
  private readonly tidied: boolean;
  /** What the last record (or snapshot) held of the small parts, to write them only when they changed. */
  private last: { clock: string; random: string; seed: number; webhooks: string; replies: number; outcomes: number; message_outcomes: number; faults: number; catalog: number };
  /** The trackers with changes since the last record (most records touch one or two of some thirty). */
  private readonly changed = new Set<Tracker>();
  /** The save point at the end of this turn of the event loop that answers wait for (see `flushed`). */
  private batch: Promise<void> | undefined;

  constructor(
    private readonly file: string,
    private readonly sim: PersistedSimulator,
    options: { nextGen: number; logBytes: number; compactAfter?: number; tidied?: boolean } & StateStoreEvents,
  ) {
    this.gen = options.nextGen;
    this.tidied = options.tidied === true;
    this.allLogBytes = options.logBytes;
    this.compactAfter = options.compactAfter ?? DEFAULT_COMPACT_AFTER;
    this.events = options;
    this.snapshotBytes = safeSize(file);
    const touched = (tracker: Tracker) => this.touched(tracker);
    for (const table of sim.db.tables()) {
      const tracker = new Tracker(table.name, () => table.lastId, touched);
      this.trackers.set(table.name, tracker);
      table.observe(tracker);
    }
    const deliveries = new Tracker(WEBHOOK_TABLE, () => sim.webhooks.lastDeliveryId, touched);
    this.trackers.set(WEBHOOK_TABLE, deliveries);
    sim.webhooks.observe(deliveries);
    this.clockEvents = new Tracker('clock', () => sim.clock.head().seq, touched);
    sim.clock.observe(this.clockEvents);
    this.last = this.smallParts();
    // What a killed server left: old copies not removed yet (`FILE.<pid>.<gen>.old`, see replaceFile),
    // removed in the background, and snapshots it was writing (`FILE.<pid>.tmp`, as large as the state),
    // removed now: under the same pid (a container started again) one is this run's next temp file.
    // Only these exact names are ours.
    const prefix = `${basename(file)}.`;
    // `tidied`: whoever owns the directory removed them for every file in it, once (a sandbox directory: src/sandboxes/durable.ts).
    for (const name of options.tidied ? [] : readdirSync(dirname(file))) {
      if (!name.startsWith(prefix)) continue;
      const rest = name.slice(prefix.length);
      if (/^\d+\.\d+\.old$/.test(rest)) this.remove(join(dirname(file), name));
      else if (/^\d+\.tmp$/.test(rest)) removeQuietly(join(dirname(file), name));
    }
  }

  /**
   * Writes what changed since the last record, synchronously. Called at the end of each
   * turn with changes or answers (`flushed`) and before each slice of a compaction. When
   * the record cannot be written, the whole state is written as a new snapshot instead
   * (`rewrite`); when that fails too, the changes are kept for the next save point and
   * the failure is reported to `onError` (once until a save point succeeds again).
   */
  flush(): void {
    if (this.closed) return;
    this.flushes++;
    const record: LogRecord = {};
    const small = this.smallParts();
    for (const tracker of this.changed) {
      if (tracker === this.clockEvents || tracker.empty) continue;
      record.tables ??= {};
      record.tables[tracker.name] = { seq: tracker.seq(), ...tracker.changes() };
    }
    if (!this.clockEvents.empty || small.clock !== this.last.clock) record.clock = { ...this.clockEvents.changes(), ...this.sim.clock.head() };
    if (small.random !== this.last.random) record.random = this.sim.random.state;
    if (small.seed !== this.last.seed) record.seed = small.seed;
    if (small.webhooks !== this.last.webhooks) record.webhooks = this.sim.webhooks.head();
    if (small.replies !== this.last.replies) record.replies = this.sim.replies.list();
    if (small.outcomes !== this.last.outcomes) record.outcomes = this.sim.outcomes.snapshot();
    if (small.message_outcomes !== this.last.message_outcomes) record.message_outcomes = this.sim.messageOutcomes.snapshot();
    if (small.faults !== this.last.faults) record.faults = this.sim.faults.snapshot();
    if (small.catalog !== this.last.catalog) record.catalog = this.sim.catalogs.document;
    if (Object.keys(record).length === 0) {
      // Nothing to write: what is on disk is the state.
      this.saved(small);
      return;
    }
    try {
      this.write(`${JSON.stringify(record)}\n`);
    } catch (error) {
      this.rewrite(error);
      return;
    }
    this.saved(small);
    if (this.allLogBytes >= Math.max(this.compactAfter, this.snapshotBytes) && !this.compacting) {
      void this.compact().catch((error: unknown) => this.events.onError?.(error));
    }
  }

  /**
   * Resolves once every change made so far is written: one save point at the end of this
   * turn of the event loop (its check phase) for all the answers of the turn, so that a
   * server answering several requests per turn writes one record, in one write, for them
   * all. An answer waits for it, so none leaves before its changes (and whatever it saw)
   * are in the log; the wait is the rest of the turn. Rejects with a StateNotSavedError
   * while changes are not on disk (the answer must not acknowledge them), or with what the
   * save point threw.
   */
  flushed(): Promise<void> {
    this.batch ??= new Promise((resolve, reject) => {
      setImmediate(() => {
        this.batch = undefined;
        try {
          this.flush();
          if (this.unsaved === undefined) resolve();
          else reject(new StateNotSavedError(this.file, this.unsaved));
        } catch (error) {
          reject(error as Error);
        }
      });
    });
    return this.batch;
  }

  /**
   * Writes a new snapshot now, in one go, and removes the logs (start-up, `saveState()`,
   * close); throws a StateNotSavedError when the changes cannot be written at all.
   */
  saveNow(): void {
    if (this.compacting) throw new Error('a compaction is running');
    // Logged first, so that a snapshot that cannot be written leaves the changes in a log;
    // with no snapshot yet (a first start, or it was removed) no log may be written.
    const logged = existsSync(this.file);
    if (logged) {
      // A record that cannot be written makes flush write the snapshot at once, or leaves the changes unsaved.
      this.flush();
      if (this.unsaved !== undefined) throw new StateNotSavedError(this.file, this.unsaved);
    }
    try {
      this.snapshotNow();
    } catch (error) {
      throw logged ? error : new StateNotSavedError(this.file, error);
    }
    this.saved(this.smallParts());
  }

  /**
   * Writes the whole state as a new snapshot, in one go, and removes the logs it replaces;
   * makes the state file's directory again first if it is gone (not its parents).
   */
  private snapshotNow(): void {
    try {
      mkdirSync(dirname(this.file));
    } catch {
      // It exists (EEXIST), or cannot be made: then the snapshot's own write says why.
    }
    const old = this.rotate();
    for (const _ of this.writeSnapshot(false)) {
      // No yielding: the whole snapshot is written before anything else runs.
    }
    this.dropLogs(old, false);
  }

  /**
   * Makes good a record that could not be written (`cause`): the whole state goes to a
   * new snapshot at once, which holds every change. A compaction writing its own snapshot
   * meanwhile is abandoned (its temp file unlinked first: the new one is another file).
   * When this fails too, the changes stay unsaved.
   */
  private rewrite(cause: unknown): void {
    try {
      if (this.compacting) {
        this.abandoned = true;
        unlinkIfThere(this.tempPath());
      }
      this.snapshotNow();
    } catch (error) {
      // One report per run of failures, not one per save point.
      if (this.unsaved === undefined) this.events.onError?.(error);
      this.unsaved = error;
      return;
    }
    this.events.onRewritten?.(cause);
    this.saved(this.smallParts());
  }

  /** Everything observed so far is on disk (`small`: the small parts as written). */
  private saved(small: ReturnType<StateStore['smallParts']>): void {
    for (const tracker of this.changed) tracker.reset();
    this.changed.clear();
    this.last = small;
    if (this.unsaved === undefined) return;
    this.unsaved = undefined;
    this.events.onSavedAgain?.();
  }

  /**
   * Writes a new snapshot in slices of at most about SLICE_MS, letting requests run in
   * between, then removes the logs it covers. One at a time; answers the running one.
   */
  compact(): Promise<void> {
    // `finally` runs at a later microtask, so the promise is stored before it is cleared.
    this.compacting ??= this.runCompaction().finally(() => {
      this.compacting = undefined;
    });
    return this.compacting;
  }

  private async runCompaction(): Promise<void> {
    this.abandoned = false;
    this.flush();
    // The snapshot may hold only what a log holds: with changes not written, it waits.
    if (this.unsaved !== undefined) return;
    const old = this.rotate();
    let seen = this.flushes;
    let sliceStart = performance.now();
    for (const waitFor of this.writeSnapshot(true)) {
      const worked = performance.now() - sliceStart;
      // The slice's writes, done off the event loop, are waited for (their time is not the slice's).
      await waitFor;
      // Idle, the next slice follows at once; while requests come in, the compaction takes
      // about one part in BUSY_SHARE of the time, so it barely dents their throughput.
      const busy = this.flushes !== seen;
      await (busy ? sleep(worked * (BUSY_SHARE - 1)) : nextTurn());
      seen = this.flushes;
      sliceStart = performance.now();
      if (this.closed) return;
      // Each slice sees only logged state: whatever the snapshot holds, a log holds too.
      this.flush();
      // A snapshot written at once replaced this one (a record could not be written): it covers more, and the logs are gone.
      // Or nothing could be written: the next slice would hold changes no log holds.
      if (this.abandoned || this.unsaved !== undefined) return;
    }
    this.dropLogs(old, true);
  }

  /** Resolves when no compaction is running and the files it replaced are gone (at once when none is). */
  async idle(): Promise<void> {
    while (this.compacting) await this.compacting.catch(() => undefined);
    await Promise.all(this.removing);
  }

  /** Writes the last changes and a final snapshot, then stops observing (the server is closing). */
  async close(): Promise<void> {
    if (this.closed) return;
    // A compaction in flight is let finish (its snapshot is complete); then one final write.
    await this.idle();
    try {
      this.saveNow();
    } finally {
      this.detach();
    }
  }

  /** The last log generation this store may have written (its logs are `FILE.log.1` to `FILE.log.N`, some removed). */
  get lastGen(): number {
    return this.gen;
  }

  /**
   * Writes the last changes to the log and stops observing, when it can at once: not while
   * a compaction runs, nor when the changes cannot be written (false: nothing changed, it
   * goes on). No snapshot is written: the snapshot and its logs hold the whole state, as
   * after any save point, so a kill at any point leaves what the answers acknowledged
   * (a sandbox unloaded from memory, issue 44).
   */
  release(): boolean {
    if (this.closed) return true;
    if (this.compacting) return false;
    this.flush();
    if (this.unsaved !== undefined) return false;
    this.detach();
    return true;
  }

  /** Stops observing and closes the log without writing anything more. */
  detach(): void {
    this.closed = true;
    for (const table of this.sim.db.tables()) table.observe(undefined);
    this.sim.webhooks.observe(undefined);
    this.sim.clock.observe(undefined);
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private touched(tracker: Tracker): void {
    this.changed.add(tracker);
    if (this.batch || this.closed) return;
    // Background changes (realtime clock events, a receiver's answer) are written at the end
    // of the turn too, by the save point that answers of the turn wait for.
    this.flushed().catch((error: unknown) => {
      // Unsaved changes were reported by the save point, once.
      if (!(error instanceof StateNotSavedError)) this.events.onError?.(error);
    });
  }

  /** What tells whether each small part changed: its values, or its revision (read at every save point, so kept cheap). */
  private smallParts() {
    const head = this.sim.clock.head();
    return {
      clock: `${head.now}|${head.seq}|${head.mode}|${head.speed}`,
      random: this.sim.random.state.join(','),
      seed: this.sim.seed,
      webhooks: this.sim.webhooks.headRevision,
      replies: this.sim.replies.revision,
      outcomes: this.sim.outcomes.revision,
      message_outcomes: this.sim.messageOutcomes.revision,
      faults: this.sim.faults.revision,
      catalog: this.sim.catalogs.revision,
    };
  }

  /**
   * Appends a record to the log, opening a new log first if none is open. Throws when it
   * is not on disk after all: the write failed, the snapshot the log would follow is gone
   * (a log without it refuses the next start), or the log was removed while open (what is
   * written to it then no restart reads).
   */
  private write(text: string): void {
    try {
      if (this.fd === undefined) {
        statSync(this.file);
        this.fd = openSync(this.logPath(this.gen), 'a');
        this.logRecords = 0;
        this.logBytes = 0;
        this.append(`${JSON.stringify({ format: LOG_FORMAT, version: VERSION })}\n`);
      }
      this.append(text);
      this.logRecords++;
      if (fstatSync(this.fd).nlink === 0) throw Object.assign(new Error(`state log ${this.logPath(this.gen)} was removed`), { code: 'ENOENT' });
    } catch (error) {
      this.closeFailedLog();
      throw error;
    }
  }

  private append(text: string): void {
    const bytes = Buffer.from(text);
    try {
      let done = 0;
      while (done < bytes.length) done += writeSync(this.fd!, bytes, done);
    } catch (error) {
      // A half-written record would read as damage in the middle of the log: cut it off.
      try {
        ftruncateSync(this.fd!, this.logBytes);
      } catch {
        // Left as a cut-off last line: closeFailedLog sends later records to a new log.
      }
      throw error;
    }
    this.logBytes += bytes.length;
    this.allLogBytes += bytes.length;
  }

  /**
   * Closes the log after a failed write. A log holding no record is removed (a run of
   * failing save points leaves no trail of empty logs); one holding records is kept, and
   * later records go to a new log, so that a record cut off in it stays its last line.
   */
  private closeFailedLog(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      // Closed all the same.
    }
    this.fd = undefined;
    if (this.logRecords === 0) {
      try {
        unlinkIfThere(this.logPath(this.gen));
        return;
      } catch {
        // Kept (a header, maybe cut off): later records go to a new log, as below.
      }
    }
    this.gen++;
  }

  private logPath(gen: number): string {
    return `${this.file}.log.${gen}`;
  }

  /** The file a snapshot is written to before it is renamed over the state file (atomic.ts). */
  private tempPath(): string {
    return tempPathOf(this.file);
  }

  /** Sends new records to a new log; answers the last generation the next snapshot covers. */
  private rotate(): number {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.logBytes = 0;
    this.allLogBytes = 0;
    return this.gen++;
  }

  private dropLogs(upTo: number, background: boolean): void {
    for (const { gen, path } of logFiles(this.file, this.tidied ? upTo : undefined)) {
      if (gen > upTo) continue;
      if (background) this.remove(path);
      // One a compaction is still removing in the background may be gone already.
      else unlinkIfThere(path);
    }
  }

  /**
   * Removes a file off the event loop (a thread of the pool frees its blocks: for a
   * 200 MB file that takes about 100 ms, which would stall every request). Until it is
   * gone, a restart may still find it: a log it covers is applied again, to no change.
   */
  private remove(path: string): void {
    const removed = unlink(path)
      .catch(() => undefined)
      .finally(() => this.removing.delete(removed));
    this.removing.add(removed);
  }

  /**
   * Renames the written temp file over the state file. In the background the old file
   * is first linked under another name (`FILE.<pid>.<gen>.old`), so that the rename only
   * drops a name and the old file's blocks are freed off the event loop; without hard
   * links (some file systems) it is renamed over as it is.
   */
  private replaceFile(temp: string, background: boolean): void {
    const retired = `${this.file}.${process.pid}.${this.gen}.old`;
    let linked = false;
    if (background) {
      try {
        linkSync(this.file, retired);
        linked = true;
      } catch {
        // No old file yet, or no hard links here: the rename frees the old one itself.
      }
    }
    // The temp file's data is on disk already (writeSnapshot); the rename is made durable too.
    renameDurably(temp, this.file);
    if (linked) this.remove(retired);
  }

  /**
   * Writes the snapshot to a temp file and renames it over the state file; yields
   * between slices (the caller decides whether to let others run there), in the
   * background with a promise to wait for before going on.
   */
  private *writeSnapshot(background: boolean): Generator<Promise<void> | void> {
    const temp = this.tempPath();
    const fd = openSync(temp, 'w');
    // Text is encoded straight into a buffer (no joined string to flatten and copy), reused
    // when written synchronously, a new one after each background write.
    let buffer = Buffer.allocUnsafe(WRITE_CHUNK * 2);
    let used = 0;
    let size = 0;
    // In the background, writes go to a thread of the pool, in order, and each slice ends by
    // waiting for them: a write that blocks (the disk busy) holds up no request.
    let pending: Promise<void> | undefined;
    let inFlight = 0;
    const out = (text: string) => {
      // A UTF-16 unit takes at most 3 bytes in UTF-8: a text that may not fit goes after a drain, or alone.
      if (used + text.length * 3 > buffer.length) {
        drain();
        if (text.length * 3 > buffer.length) return writeAll(Buffer.from(text));
      }
      used += buffer.write(text, used);
      if (used >= WRITE_CHUNK) drain();
    };
    const writeAll = (bytes: Buffer) => {
      size += bytes.length;
      if (background) {
        inFlight++;
        pending = (pending ?? Promise.resolve()).then(() => writeFully(fd, bytes)).finally(() => inFlight--);
        // Waited for at the end of the slice; a failure is seen there, not as an unhandled rejection.
        pending.catch(() => undefined);
        return;
      }
      let done = 0;
      while (done < bytes.length) done += writeSync(fd, bytes, done);
    };
    const drain = () => {
      if (used === 0) return;
      writeAll(buffer.subarray(0, used));
      if (background) buffer = Buffer.allocUnsafe(WRITE_CHUNK * 2);
      used = 0;
    };
    let sliceStart = performance.now();
    const due = () => performance.now() - sliceStart >= SLICE_MS;
    const sim = this.sim;
    let written = false;
    try {
      out(`{"format":${JSON.stringify(SNAPSHOT_FORMAT)},"version":${JSON.stringify(VERSION)},"start":${sim.start},"db":{`);
      const walk = function* (lastId: () => number, get: (id: number) => unknown): Generator<Promise<void> | undefined> {
        let first = true;
        for (let id = 1; id <= lastId(); id++) {
          const row = get(id);
          if (row !== undefined) {
            out(`${first ? '' : ','}${JSON.stringify(row)}`);
            first = false;
          }
          if ((id & 255) === 0 && due()) {
            drain();
            yield pending;
            sliceStart = performance.now();
          }
        }
      };
      let firstTable = true;
      for (const table of sim.db.tables()) {
        out(`${firstTable ? '' : ','}${JSON.stringify(table.name)}:{"rows":[`);
        firstTable = false;
        yield* walk(
          () => table.lastId,
          (id) => table.get(id),
        );
        out(`],"seq":${table.lastId}}`);
      }
      out(`},"webhooks":{"deliveries":{"rows":[`);
      yield* walk(
        () => sim.webhooks.lastDeliveryId,
        (id) => sim.webhooks.delivery(id),
      );
      const webhooks = sim.webhooks.head();
      out(`],"seq":${sim.webhooks.lastDeliveryId}},"rules":${JSON.stringify(webhooks.rules)},"ruleSeq":${webhooks.ruleSeq},"evicted":${webhooks.evicted}},"clock":{"events":[`);
      yield* walk(
        () => sim.clock.head().seq,
        (id) => sim.clock.pendingEvent(id),
      );
      // The small parts last, as they stand once every row is written.
      const head = sim.clock.head();
      out(`],"now":${head.now},"seq":${head.seq},"mode":${JSON.stringify(head.mode)},"speed":${head.speed}}`);
      out(`,"random":${JSON.stringify(sim.random.state)},"seed":${sim.seed},"replies":${JSON.stringify(sim.replies.list())}`);
      // Attempt counts grow with every scripted call (100k leads, 100k counts): written in slices too.
      out(`,"outcomes":{"rules":${JSON.stringify(sim.outcomes.list())},"attempts":{`);
      let firstCount = true;
      let counted = 0;
      for (const [key, count] of sim.outcomes.attemptEntries()) {
        out(`${firstCount ? '' : ','}${JSON.stringify(key)}:${count}`);
        firstCount = false;
        if ((++counted & 1023) === 0 && due()) {
          drain();
          yield pending;
          sliceStart = performance.now();
        }
      }
      out(`}},"message_outcomes":${JSON.stringify(sim.messageOutcomes.snapshot())},"faults":${JSON.stringify(sim.faults.snapshot())},"catalog":${JSON.stringify(sim.catalogs.document)}}`);
      drain();
      // In the background the new file's data goes to disk on a thread of the pool before
      // the rename: a rename over an existing file makes ext4 allocate and flush the
      // renamed file's delayed blocks in the rename itself (75 ms for 206 MB, in the event loop).
      if (background) yield (pending ?? Promise.resolve()).then(() => datasync(fd));
      // In one go, the same flush before the rename (atomic.ts: a name never points at blocks not on disk).
      else fdatasyncSync(fd);
      written = true;
    } finally {
      // A failed or abandoned write (the server closing mid-compaction, a snapshot written at
      // once in its place, which unlinked its temp file) leaves no temp file behind;
      // background writes still in flight (a failure mid-slice) finish first.
      const discard = () => {
        closeSync(fd);
        unlinkIfThere(temp);
      };
      if (written) closeSync(fd);
      else if (inFlight > 0)
        void pending!
          .catch(() => undefined)
          .then(discard)
          .catch(() => undefined);
      else discard();
    }
    this.replaceFile(temp, background);
    this.snapshotBytes = size;
  }
}

/** Removes a file now if it can (one that cannot be removed is left: it is only litter). */
function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Left.
  }
}

/** Removes a file, if it is there (a file already gone is no failure). */
function unlinkIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function safeSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
