/**
 * Durable sandboxes (`voxsim serve --state-dir DIR`, issue 35 part 5): the `SandboxKeeper`
 * of a SandboxHost, in a directory.
 *
 * - `DIR/sandboxes.json` is the list: each sandbox's id, name, key, ttl, creation time,
 *   what it was made with, and its seed, wire and virtual time when the list was written.
 *   It is replaced atomically and durably (src/state/atomic.ts) when a sandbox is made or
 *   deleted, when sandboxes expire (all those due in one write, after the request that
 *   found them: the host's sweep), and when the server closes. A kept sandbox whose line
 *   says its values are exact gets a mark when it is loaded (`<id>.json.loaded`, an empty
 *   file): from then on they may be behind it, and a restart that finds the mark treats
 *   the line as not exact. The next write of the list drops the marks.
 * - `DIR/sandboxes/<id>.json` (+ `.log.N`) is each sandbox's state file, kept by a
 *   `StateStore` exactly as `--state-file` keeps the server's own (src/state/persist.ts):
 *   every change is logged before the answer of the request that made it is sent.
 * - At start only the list is read (and each sandbox's state file checked to be there); a
 *   sandbox's state is read when it is first used. One that cannot be read then answers
 *   503 (the host's), the others go on.
 * - A sandbox the host unloads (`--max-loaded-sandboxes`, issue 44) has its last changes
 *   appended to its log and its store closed; no other file is written, so a kill in the
 *   middle leaves the files an answer left. Its next use reads it as a restart does.
 *
 * A made sandbox's state is written before the list names it, a deleted one's files are
 * removed after the list stops naming it: a kill between the two leaves files no list
 * names, which the next start removes.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { SANDBOX_ID, SANDBOX_ID_PREFIX, SANDBOX_KEY } from '../core/sandbox-keys.js';
import { WIRES } from '../core/wire.js';
import { SNAPSHOT_FORMAT, type Simulator, type SimulatorSnapshot } from '../simulator.js';
import { writeFileAtomically } from '../state/atomic.js';
import { applyLog, fsReason, logFiles, StateFileError, StateStore } from '../state/persist.js';
import { VERSION } from '../version.js';
import type { KeptSandbox, SandboxKeeper } from './host.js';

export const SANDBOX_LIST_FORMAT = 'voxsim-sandboxes/1';
/** The list's name in the directory. */
export const SANDBOX_LIST_FILE = 'sandboxes.json';
/** The directory of the sandboxes' state files. */
export const SANDBOX_STATE_DIR = 'sandboxes';
/** Beside a sandbox's state file once it was loaded after the list last called its line exact (`<id>.json.loaded`). */
const LOAD_MARK = '.loaded';
/** A file of a sandbox's state (`<id>.json`, its logs and the temp and old files of its StateStore). */
const SANDBOX_FILE = new RegExp(`^(${SANDBOX_ID_PREFIX}[a-z0-9_-]+)\\.json(?:\\..*)?$`);

/** The one-line texts of a directory that cannot be used: `voxsim serve` prints them at start; a sandbox's 503 carries them. */
export const DURABLE_MESSAGES = {
  listUnreadable: (file: string, why: string) => `sandbox list ${file} cannot be read (${why})`,
  listNotJson: (file: string, why: string) => `sandbox list ${file} is not JSON (${why})`,
  listForeign: (file: string) => `sandbox list ${file} is not a voxsim sandbox list (no "format": "${SANDBOX_LIST_FORMAT}")`,
  listDamaged: (file: string, at: string, why: string) => `sandbox list ${file} is damaged (at ${at}: ${why})`,
  stateMissing: (file: string, id: string) => `sandbox state file ${file} of sandbox ${id} is missing`,
  stateUnreadable: (file: string, why: string) => `sandbox state file ${file} cannot be read (${why})`,
  stateNotJson: (file: string, why: string) => `sandbox state file ${file} is not JSON (${why})`,
  stateForeign: (file: string) => `sandbox state file ${file} is not a voxsim snapshot (no "format": "${SNAPSHOT_FORMAT}")`,
  stateDamaged: (file: string, why: string) => `sandbox state file ${file} is a damaged voxsim snapshot (${why})`,
} as const;

/** A directory or file that cannot be used: its message is one line naming the file. */
export class SandboxDirError extends Error {}

const ms = z.number().int().min(-8.64e15).max(8.64e15);
const Entry = z.strictObject({
  // The list's ids name files: only an id as the host mints it is taken.
  id: z.string().regex(SANDBOX_ID, 'not a sandbox id'),
  name: z.string().nullable(),
  api_key: z.string().regex(SANDBOX_KEY, 'not a sandbox key'),
  ttl_ms: z.number().int().positive(),
  created_at: ms,
  options: z.strictObject({ seed: z.number().int(), start: ms, wire: z.enum(WIRES), catalog: z.record(z.string(), z.unknown()).optional() }),
  seed: z.number().int(),
  wire: z.enum(WIRES),
  now: ms,
  exact: z.boolean(),
});
const List = z.object({ format: z.literal(SANDBOX_LIST_FORMAT), version: z.string().optional(), sandboxes: z.array(Entry) });

/** What a directory reports while the server runs (the server logs each as a line). */
export interface SandboxDirEvents {
  /** A sandbox's state file could not be written (`file`), or was written again after a failure. */
  report?: (entry: { level: 'error' | 'warn' | 'info'; msg: string; file: string; error?: string }) => void;
  /** Change logs are folded into a new snapshot past this many bytes (`--compact-after`). */
  compactAfter?: number;
}

interface Held {
  kept: KeptSandbox;
  /** Its load mark is on disk (`<id>.json.loaded`): the list's line may say `exact`, the mark says it is not. */
  marked?: boolean;
  sim?: Simulator;
  store?: StateStore;
  /** The last generation of its change logs there may be (read at start, then its last store's): its logs are looked for by name. */
  lastGen?: number;
  /** Unloaded by the host since its last load: its files hold its state exactly (nothing moves it until it loads again). */
  unloaded?: boolean;
}

/**
 * The sandboxes of `voxsim serve --state-dir DIR`.
 * @example const dir = SandboxDirectory.open('/var/voxsim'); new SandboxHost(sim, { keeper: dir })
 */
export class SandboxDirectory implements SandboxKeeper {
  private readonly held = new Map<string, Held>();
  private closed = false;

  private constructor(
    readonly dir: string,
    kept: KeptSandbox[],
    private readonly events: SandboxDirEvents,
  ) {
    for (const sandbox of kept) this.held.set(sandbox.id, { kept: sandbox });
  }

  /**
   * Reads the list of `dir` (none yet: no sandboxes), checks each sandbox's state file is
   * there and removes the files no sandbox of the list owns. Throws a SandboxDirError.
   * @example SandboxDirectory.open('/var/voxsim').kept.length // 2
   */
  static open(dir: string, events: SandboxDirEvents = {}): SandboxDirectory {
    const states = join(dir, SANDBOX_STATE_DIR);
    try {
      mkdirSync(states, { recursive: true });
    } catch (error) {
      throw new SandboxDirError(DURABLE_MESSAGES.stateUnreadable(states, fsReason(error)));
    }
    const kept = readList(join(dir, SANDBOX_LIST_FILE));
    const ids = new Set(kept.map((s) => s.id));
    const marked = new Set<string>();
    for (const sandbox of kept) {
      const file = join(states, `${sandbox.id}.json`);
      try {
        if (!statSync(file).isFile()) throw new SandboxDirError(DURABLE_MESSAGES.stateUnreadable(file, 'it is a directory'));
      } catch (error) {
        if (error instanceof SandboxDirError) throw error;
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new SandboxDirError(DURABLE_MESSAGES.stateMissing(file, sandbox.id));
        throw new SandboxDirError(DURABLE_MESSAGES.stateUnreadable(file, fsReason(error)));
      }
      // Loaded since the list was written (its mark left): the line's values may be behind it.
      if (existsSync(`${file}${LOAD_MARK}`)) {
        marked.add(sandbox.id);
        sandbox.exact = false;
      }
    }
    // Files of sandboxes the list no longer names (a kill between a delete's list write and its removals);
    // what a killed run's stores left of the others (old copies, temp snapshots: StateStore's own tidying, done
    // here once for all, issue 44); the last log generation of each.
    const lastGen = new Map<string, number>();
    for (const name of readdirSync(states)) {
      const match = SANDBOX_FILE.exec(name);
      const owner = match?.[1];
      if (owner === undefined) continue;
      if (!ids.has(owner)) removeQuietly(join(states, name));
      else if (/^\.json\.\d+\.\d+\.old$|^\.json\.\d+\.tmp$/.test(name.slice(owner.length))) removeQuietly(join(states, name));
      else {
        const gen = /^\.json\.log\.(\d+)$/.exec(name.slice(owner.length))?.[1];
        if (gen !== undefined) lastGen.set(owner, Math.max(lastGen.get(owner) ?? 0, Number(gen)));
      }
    }
    const directory = new SandboxDirectory(dir, kept, events);
    for (const id of marked) directory.held.get(id)!.marked = true;
    for (const [id, gen] of lastGen) directory.held.get(id)!.lastGen = gen;
    return directory;
  }

  get kept(): readonly KeptSandbox[] {
    return [...this.held.values()].map((h) => h.kept);
  }

  /** The state file of a sandbox. */
  stateFile(id: string): string {
    return join(this.dir, SANDBOX_STATE_DIR, `${id}.json`);
  }

  created(sandbox: KeptSandbox, sim: Simulator): void {
    const store = this.store(sandbox.id, sim, 1, 0);
    const held: Held = { kept: { ...sandbox }, sim, store };
    try {
      store.saveNow();
      this.held.set(sandbox.id, held);
      this.writeList();
    } catch (error) {
      this.held.delete(sandbox.id);
      store.detach();
      this.removeFiles(sandbox.id, store.lastGen);
      throw new Error(fsReason(error));
    }
  }

  load(sandbox: KeptSandbox, build: (snapshot: SimulatorSnapshot) => Simulator): Simulator {
    const held = this.held.get(sandbox.id)!;
    const file = this.stateFile(sandbox.id);
    const { snapshot, nextGen, logBytes } = readSandboxState(file, held.lastGen ?? 0);
    let sim: Simulator;
    try {
      sim = build(snapshot);
    } catch (error) {
      // restore() refuses a damaged snapshot whole: "The snapshot is damaged at clock.now: ...".
      throw new SandboxDirError(DURABLE_MESSAGES.stateDamaged(file, (error as Error).message.replace(/^The snapshot is damaged /, '').replace(/\.$/, '')));
    }
    const store = this.store(sandbox.id, sim, nextGen, logBytes);
    held.sim = sim;
    held.store = store;
    held.unloaded = false;
    // From now on its clock may move: the list's values are no longer sure to be its own. A
    // mark beside its state file says so (a few bytes, not the whole list: issue 44, a first
    // load's cost does not grow with the number of sandboxes); the next list write drops it.
    if (held.kept.exact) {
      held.kept.exact = false;
      try {
        // As durable as the change logs (written, not flushed to disk): a process kill keeps it, like them.
        writeFileSync(`${file}${LOAD_MARK}`, '');
        held.marked = true;
      } catch (error) {
        this.events.report?.({ level: 'error', msg: 'sandbox list not saved', file: `${file}${LOAD_MARK}`, error: fsReason(error) });
      }
    }
    // Logs left by the last run are folded into a new snapshot in the background.
    if (logBytes > 0) void store.compact().catch((error: unknown) => this.events.report?.({ level: 'error', msg: 'state not saved', file, error: fsReason(error) }));
    return sim;
  }

  unloaded(id: string): boolean {
    const held = this.held.get(id);
    if (!held?.store || !held.sim) return false;
    if (!held.store.release()) return false;
    const { sim } = held;
    held.lastGen = held.store.lastGen;
    // Its values as it leaves memory: what the list shows of it from now on (its `exact` as the file on disk says it, until close).
    held.kept = { ...held.kept, seed: sim.seed, wire: sim.wire, now: sim.clock.now() };
    held.sim = undefined;
    held.store = undefined;
    held.unloaded = true;
    return true;
  }

  removed(ids: readonly string[]): void {
    const gone = ids.flatMap((id) => {
      const held = this.held.get(id);
      return held ? [{ id, held }] : [];
    });
    if (gone.length === 0) return;
    // The list first (one write for them all), then their files: a kill between the two leaves files the next start removes.
    const before = [...this.held];
    for (const { id } of gone) this.held.delete(id);
    try {
      this.writeList();
    } catch (error) {
      // Put back in their places (the list keeps the order of creation).
      this.held.clear();
      for (const [id, held] of before) this.held.set(id, held);
      this.events.report?.({ level: 'error', msg: 'sandbox list not saved', file: this.listFile(), error: fsReason(error) });
      throw new Error(`sandbox list ${this.listFile()} cannot be written (${fsReason(error)})`);
    }
    for (const { id, held } of gone) {
      const lastGen = Math.max(held.lastGen ?? 0, held.store?.lastGen ?? 0);
      held.store?.detach();
      this.removeFiles(id, lastGen);
      // A compaction that was running may still be removing or renaming files: once it is done, whatever it left goes too.
      void held.store?.idle().then(() => this.removeFiles(id, Math.max(lastGen, held.store?.lastGen ?? 0)));
    }
  }

  flushed(id: string): Promise<void> | undefined {
    return this.held.get(id)?.store?.flushed();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    let failure: unknown;
    for (const held of this.held.values()) {
      // Unloaded since its last load: its files hold its state, and nothing moved it since.
      if (held.unloaded) held.kept = { ...held.kept, exact: true };
      if (!held.store || !held.sim) continue;
      try {
        await held.store.close();
        held.kept = { ...held.kept, seed: held.sim.seed, wire: held.sim.wire, now: held.sim.clock.now(), exact: true };
      } catch (error) {
        failure ??= error;
      }
    }
    this.writeList();
    if (failure !== undefined) throw new Error(`a sandbox's state could not be written (${fsReason(failure)}); its change logs hold the last changes`);
  }

  private listFile(): string {
    return join(this.dir, SANDBOX_LIST_FILE);
  }

  private store(id: string, sim: Simulator, nextGen: number, logBytes: number): StateStore {
    const file = this.stateFile(id);
    const report = this.events.report;
    return new StateStore(file, sim, {
      nextGen,
      logBytes,
      tidied: true,
      ...(this.events.compactAfter !== undefined && { compactAfter: this.events.compactAfter }),
      onError: (error) => report?.({ level: 'error', msg: 'state not saved', file, error: fsReason(error) }),
      onRewritten: (cause) => report?.({ level: 'warn', msg: 'state file rewritten', file, error: fsReason(cause) }),
      onSavedAgain: () => report?.({ level: 'info', msg: 'state saved again', file }),
    });
  }

  /** Writes the list atomically and durably (src/state/atomic.ts: a temp file flushed to disk, renamed over it, the directory flushed). */
  private writeList(): void {
    const sandboxes = [...this.held.values()].map(({ kept, sim }) => {
      // A loaded sandbox's values as they are now (the list is written seldom: they may move on after).
      const shown = sim && !this.closed ? { seed: sim.seed, wire: sim.wire, now: sim.clock.now(), exact: false } : kept;
      return {
        id: kept.id,
        name: kept.name,
        api_key: kept.key,
        ttl_ms: kept.ttlMs,
        created_at: kept.createdAt,
        options: kept.options,
        seed: shown.seed,
        wire: shown.wire,
        now: shown.now,
        exact: shown.exact,
      };
    });
    writeFileAtomically(this.listFile(), `${JSON.stringify({ format: SANDBOX_LIST_FORMAT, version: VERSION, sandboxes }, null, 1)}\n`);
    // The list now says what the marks said (a kill before their removal leaves marks that only make a restart load those sandboxes to list them).
    for (const held of this.held.values()) {
      if (!held.marked) continue;
      held.marked = false;
      removeQuietly(`${this.stateFile(held.kept.id)}${LOAD_MARK}`);
    }
  }

  /** Removes a sandbox's files: its state file, its mark, its logs up to `lastGen`. */
  private removeFiles(id: string, lastGen: number): void {
    const file = this.stateFile(id);
    removeQuietly(file);
    removeQuietly(`${file}${LOAD_MARK}`);
    for (const log of logFiles(file, lastGen)) removeQuietly(log.path);
  }
}

/** The list at `file`: none when it does not exist yet. */
function readList(file: string): KeptSandbox[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new SandboxDirError(DURABLE_MESSAGES.listUnreadable(file, (error as NodeJS.ErrnoException).code === 'EISDIR' ? 'it is a directory' : fsReason(error)));
  }
  const parsed = parseJson(text, (why) => DURABLE_MESSAGES.listNotJson(file, why));
  if ((parsed as { format?: unknown } | null)?.format !== SANDBOX_LIST_FORMAT) throw new SandboxDirError(DURABLE_MESSAGES.listForeign(file));
  const result = List.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new SandboxDirError(DURABLE_MESSAGES.listDamaged(file, issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '') || 'the top', issue.message));
  }
  const ids = new Set<string>();
  return result.data.sandboxes.map((entry, i) => {
    if (ids.has(entry.id)) throw new SandboxDirError(DURABLE_MESSAGES.listDamaged(file, `sandboxes[${i}].id`, `${entry.id} is listed twice`));
    ids.add(entry.id);
    const { catalog, ...options } = entry.options;
    return {
      id: entry.id,
      name: entry.name,
      key: entry.api_key,
      ttlMs: entry.ttl_ms,
      createdAt: entry.created_at,
      options: { ...options, ...(catalog !== undefined && { catalog }) },
      seed: entry.seed,
      wire: entry.wire,
      now: entry.now,
      exact: entry.exact,
    };
  });
}

/**
 * A sandbox's state: its snapshot with every change log left beside it applied, the next
 * log generation and the bytes of those logs. Throws a SandboxDirError naming the file.
 */
function readSandboxState(file: string, lastGen: number): { snapshot: SimulatorSnapshot; nextGen: number; logBytes: number } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new SandboxDirError(DURABLE_MESSAGES.stateUnreadable(file, (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'it is missing' : fsReason(error)));
  }
  const snapshot = parseJson(text, (why) => DURABLE_MESSAGES.stateNotJson(file, why)) as SimulatorSnapshot;
  if ((snapshot as { format?: unknown } | null)?.format !== SNAPSHOT_FORMAT) throw new SandboxDirError(DURABLE_MESSAGES.stateForeign(file));
  const logs = logFiles(file, lastGen);
  let logBytes = 0;
  for (const log of logs) {
    try {
      logBytes += statSync(log.path).size;
      applyLog(snapshot, log.path);
    } catch (error) {
      if (error instanceof StateFileError) throw new SandboxDirError(error.message);
      if (error instanceof TypeError) throw new SandboxDirError(DURABLE_MESSAGES.stateDamaged(file, error.message.replace(/\.$/, '')));
      throw new SandboxDirError(DURABLE_MESSAGES.stateUnreadable(log.path, fsReason(error)));
    }
  }
  return { snapshot, nextGen: (logs.at(-1)?.gen ?? 0) + 1, logBytes };
}

/** JSON.parse, its failure in one line (`message(why)`). */
function parseJson(text: string, message: (why: string) => string): unknown {
  if (text.trim() === '') throw new SandboxDirError(message('it is empty'));
  try {
    return JSON.parse(text);
  } catch (error) {
    const why = (error as Error).message.replace(/, (\.\.\.)?".*"(\.\.\.)? is not valid JSON$/s, '').replace(/\s+/g, ' ');
    throw new SandboxDirError(message(why));
  }
}

/** Removes a file if it can (one left behind is only litter, removed at the next start). */
function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Left.
  }
}
