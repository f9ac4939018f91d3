/**
 * One server, many simulators (issue 35; ARCHITECTURE §7a): a host answers every request
 * with the simulator its API key names. A sandbox is a whole `Simulator` of its own (clock
 * and timers, seed, ids from 1, catalog, wire, accounts, scripts, webhooks, journal and
 * events); the server's own simulator answers every request that names no sandbox, as a
 * server without sandboxes does.
 *
 * - A sandbox's key (`vsk_…`) is minted unguessable; every account key inside the sandbox is
 *   that key or starts with it and `_` (generated keys do), so a key names its sandbox.
 * - `{base}/__sim/*` called with a sandbox's key acts on that sandbox alone: its simulator
 *   holds no admin token, and no other request reaches it.
 * - The list (`/__sim/sandboxes`) is the admin's (the server's admin token, or any request
 *   without a sandbox key on a server without one); with `openSandboxes` anyone may create
 *   one; a sandbox's own key reads and deletes that sandbox and no other, on every server
 *   (issue 45: a sandbox key is never the admin).
 * - The key and id format (mint, read, shard) is src/core/sandbox-keys.ts's.
 * - A sandbox idle (no request) for its `ttl` of real time is removed; its keys then answer
 *   401 like any unknown key. Expiry reads a queue ordered by due time (issue 44): a
 *   request's cost does not grow with the number of sandboxes.
 * - With a `keeper` (`voxsim serve --state-dir`: src/sandboxes/durable.ts) the sandboxes
 *   outlive the process: the host starts with the kept list and loads a sandbox's
 *   simulator on its first use; each change is on disk before its answer (`saved`). Past
 *   `maxLoadedSandboxes` simulators in memory, the least recently used idle ones are
 *   unloaded (their state is on disk already) and load again on their next request.
 */
import * as z from 'zod';
import { afterRealDelay, parseDuration, realNow, SLICE_MS } from '../core/clock.js';
import { COMMON_MESSAGES, shapeA } from '../core/errors.js';
import { bearerToken, defineRoute, header, ok, Router, type RouteDef, type SimRequest, type SimResponse } from '../core/http.js';
import { MAX_SEED } from '../core/random.js';
import { checkShardName, isSandboxToken, mintSandboxId, mintSandboxKey, sandboxKeysOf, SHARD_NAME } from '../core/sandbox-keys.js';
import { formatControlTime } from '../core/time.js';
import { int, oneOf, parseControlBody } from '../core/validation.js';
import { WIRES, type Wire } from '../core/wire.js';
import { AnyObject, clockTime, duration } from '../control/schema.js';
import { lazySchema } from '../core/lazy-schema.js';
import { openApiDocument } from '../control/openapi.js';
import { FILES_PREFIX, sandboxFileScope } from '../domain/files/service.js';
import { createSimulator, ROUTES, simulatorToRestore, type Simulator, type SimulatorOptions, type SimulatorSnapshot } from '../simulator.js';

/** Sandboxes a server holds at most, unless told otherwise (`--max-sandboxes`). */
export const DEFAULT_MAX_SANDBOXES = 100;
/** How long a sandbox may stay idle (real time since its last request), unless told otherwise (`--sandbox-ttl`): 24 h. */
export const DEFAULT_SANDBOX_TTL_MS = 24 * 60 * 60 * 1000;
/** Sandbox simulators a host with a keeper holds in memory at most, unless told otherwise (`--max-loaded-sandboxes`). */
export const DEFAULT_MAX_LOADED_SANDBOXES = 1000;
/** The shortest and longest idle time a sandbox may be given: a minute, a year. */
export const SANDBOX_TTL_RANGE = { min: 60 * 1000, max: 365 * 24 * 60 * 60 * 1000 } as const;
export { SHARD_NAME };

export const SANDBOX_MESSAGES = {
  limit: (max: number) => `The server holds ${max} sandboxes, its limit (--max-sandboxes); delete one before creating another.`,
  notFound: 'Sandbox not found.',
  ttl: `The ttl must be a duration from 1m to 365d (milliseconds, or text with units: 90s, 15m, 2h, 3d).`,
  /** A kept sandbox whose files cannot be loaded (`--state-dir`): its requests are 503, other sandboxes go on. */
  unavailable: (id: string, why: string) => `Sandbox ${id} cannot be loaded: ${why}.`,
  /** A sandbox that cannot be written to `--state-dir` is not made (or not deleted). */
  notSaved: (why: string) => `The sandbox list could not be saved: ${why}. Nothing changed.`,
} as const;

/** `POST /__sim/sandboxes`: everything is optional. */
export const SandboxBody = lazySchema(() =>
  z.object({
    name: z.string().trim().min(1).max(255).nullable().optional(),
    seed: int(0, MAX_SEED).optional(),
    start: clockTime.optional(),
    wire: oneOf(WIRES).optional(),
    catalog: z.record(z.string(), z.unknown()).optional(),
    // A scenario (docs/scenarios.md) as YAML or JSON text, or as an object: the sandbox starts in its state.
    scenario: z.union([z.string().min(1), z.record(z.string(), z.unknown())]).optional(),
    ttl: duration
      .refine((d) => {
        const ms = parseDuration(d);
        return ms >= SANDBOX_TTL_RANGE.min && ms <= SANDBOX_TTL_RANGE.max;
      }, { error: SANDBOX_MESSAGES.ttl })
      .optional(),
  }),
);
export type SandboxInput = z.input<typeof SandboxBody>;

/** A sandbox as the registry routes answer it. */
export interface SandboxAnswer {
  id: string;
  name: string | null;
  api_key: string;
  seed: number;
  /** The sandbox's virtual time. */
  now: string;
  wire: Wire;
  /** Real times: when it was made, and when it goes unless a request comes first. */
  created_at: string;
  expires_at: string;
}

/**
 * A sandbox as a keeper holds it without its simulator (a line of `--state-dir`'s list):
 * what it was made with, and what the list shows of it until it is loaded.
 */
export interface KeptSandbox {
  readonly id: string;
  readonly name: string | null;
  readonly key: string;
  readonly ttlMs: number;
  /** Real time it was made (ms). */
  readonly createdAt: number;
  /** What it was made with: what a reset returns it to. */
  readonly options: { seed: number; start: number; wire: Wire; catalog?: Record<string, unknown> };
  /** Its seed, wire and virtual time when the list was last written. */
  seed: number;
  wire: Wire;
  now: number;
  /** Whether those are still its own: false when it was in use when the list was written (a kill may have left them behind). */
  exact: boolean;
}

/**
 * What keeps sandboxes across restarts (src/sandboxes/durable.ts, in a directory). Each
 * method that writes throws an Error (its message one line naming the file) when it cannot.
 */
export interface SandboxKeeper {
  /** The sandboxes of the last run, oldest first (their simulators load on first use). */
  readonly kept: readonly KeptSandbox[];
  /** A new sandbox: its state and the list are written before it is answered. */
  created(sandbox: KeptSandbox, sim: Simulator): void;
  /** Loads a kept sandbox: reads its state, has `build` restore it, keeps its changes from then on. */
  load(sandbox: KeptSandbox, build: (snapshot: SimulatorSnapshot) => Simulator): Simulator;
  /**
   * Stops keeping a loaded sandbox's simulator (the host unloads it, issue 44): its last
   * changes are written to its log, then its store is closed; its files hold its whole
   * state, as after any answer, and `load` reads it again. Writes nothing else (a kill at
   * any point leaves the files as an answer leaves them). False when it cannot be now (a
   * compaction is running, or its changes cannot be written): it stays loaded.
   */
  unloaded(id: string): boolean;
  /** Takes sandboxes off the list (deleted, expired) in one write of it, then removes their files. */
  removed(ids: readonly string[]): void;
  /** Resolves once the sandbox's changes so far are on disk; rejects when they cannot be (the answer is 503). */
  flushed(id: string): Promise<void> | undefined;
  /** The server is closing: each loaded sandbox's final state and the list are written. */
  close(): Promise<void>;
}

interface Sandbox extends KeptSandbox {
  /** Undefined while a kept sandbox is not loaded (yet, or again after it was unloaded). */
  sim: Simulator | undefined;
  lastUsedAt: number;
  /** Requests of its own being answered: it is not unloaded in the middle of one (or of the clock move one runs). */
  busy: number;
  /** Its simulator was handed out to be held (an event stream, the dashboard): it stays loaded. */
  pinned: boolean;
  /** Removed (deleted, expired): its place in the expiry queue is dropped when reached. */
  gone: boolean;
  /** Its place in the order of use while its simulator is in memory (with a keeper). */
  place?: UsePlace<Sandbox> | undefined;
}

export interface SandboxHostOptions {
  /** Sandboxes held at most (default 100); creation past it is refused with 403 shape A. */
  maxSandboxes?: number;
  /**
   * With a keeper: sandbox simulators held in memory at most (default 1000); past it the
   * least recently used idle ones are unloaded to their state files after the request at hand.
   */
  maxLoadedSandboxes?: number;
  /** Default idle time before a sandbox is removed, in real ms (default 24 h); `ttl` at creation overrides it. */
  ttlMs?: number;
  /** Anyone who reaches the server may create a sandbox (listing and deleting others' stay the admin's). */
  openSandboxes?: boolean;
  /** This shard's name: every key and sandbox id it mints carries it (a proxy routes by it). */
  shard?: string;
  /** Options every sandbox's simulator starts from (the server's wire, start, catalog, webhook settings). */
  simulator?: Omit<SimulatorOptions, 'seed' | 'accounts' | 'adminToken' | 'sandboxKey'>;
  /** Set up each new sandbox's simulator as the server sets up its own (webhooks that must not loop back). */
  configure?: (sim: Simulator) => void;
  /** The real time (ms); default the wall clock. */
  now?: () => number;
  /** Keeps the sandboxes across restarts (`voxsim serve --state-dir`); without it they live as long as the host. */
  keeper?: SandboxKeeper;
  /**
   * Runs `run` soon, outside the request at hand: how the keeper is told of expired
   * sandboxes (one write of its list for all of them). Default: the next turn of the event
   * loop (a real timer). Answers the function that cancels it.
   */
  later?: (run: () => void) => () => void;
}

/** What a registry route sees: the caller's credentials, read once. */
interface RegistryCtx {
  host: SandboxHost;
  admin: boolean;
  /** The sandbox whose key the caller sent, if any. */
  own: Sandbox | undefined;
}

/** A request's verdict: the server's own simulator, a sandbox, or that its sandbox key names none. */
type Target = { sim: Simulator; sandbox?: undefined } | { sandbox: Sandbox } | { unknownSandbox: true };

/** A kept sandbox that cannot be loaded: its message is the 503's. */
class SandboxUnavailable extends Error {}

/**
 * The simulators of one server, and the routing of each request to one of them.
 * @example
 * const host = new SandboxHost(createSimulator({ seed: 1 }), { maxSandboxes: 10 })
 * createApp(host).listen(4010)
 */
export class SandboxHost {
  private readonly sandboxes = new Map<string, Sandbox>();
  private readonly byKey = new Map<string, Sandbox>();
  /** Sandboxes by the scope of their file links (live-platform H.7: a link carries no key). */
  private readonly byFileScope = new Map<string, Sandbox>();
  private readonly router: Router<RegistryCtx>;
  private readonly maxSandboxes: number;
  private readonly ttlMs: number;
  private readonly realTime: () => number;
  /** Expired sandboxes the keeper has not taken off its list yet (ids), and the run that will. */
  private expired: string[] = [];
  private cancelExpiry: (() => void) | undefined;
  /** Each sandbox once, by the real time it expires unless used since (checked when reached): no walk of them all per request. */
  private readonly expiries = new DueQueue<Sandbox>();
  /**
   * The sandboxes whose simulator is in memory (with a keeper), least recently used first. A
   * linked list: a Map re-inserted at each use costs some 30 µs per request at 10,000 entries
   * in V8 (its table is rebuilt as deletions pile up).
   */
  private readonly resident = new UseOrder<Sandbox>();
  private readonly maxLoaded: number;
  private cancelUnload: (() => void) | undefined;

  constructor(
    /** The server's own simulator: it answers every request that names no sandbox. */
    readonly sim: Simulator,
    private readonly options: SandboxHostOptions = {},
  ) {
    if (options.shard !== undefined) checkShardName(options.shard);
    this.maxSandboxes = options.maxSandboxes ?? DEFAULT_MAX_SANDBOXES;
    this.ttlMs = options.ttlMs ?? DEFAULT_SANDBOX_TTL_MS;
    this.realTime = options.now ?? realNow;
    this.maxLoaded = options.maxLoadedSandboxes ?? DEFAULT_MAX_LOADED_SANDBOXES;
    if (!(Number.isInteger(this.maxLoaded) && this.maxLoaded >= 1)) throw new RangeError(`maxLoadedSandboxes must be a whole number of at least 1: ${this.maxLoaded}`);
    this.router = new Router(SANDBOX_ROUTES, {});
    // issue 35, fairness: a long move of one simulator yields to the others' requests.
    sim.clock.sliceMs = SLICE_MS;
    // Kept sandboxes come back unloaded; their idle time counts from this start (the server being down is no use of theirs).
    const started = this.realTime();
    for (const kept of options.keeper?.kept ?? []) this.add({ ...kept, sim: undefined, lastUsedAt: started, busy: 0, pinned: false, gone: false });
  }

  /** How many sandboxes the host holds now (expired ones are removed first). */
  get size(): number {
    this.sweep();
    return this.sandboxes.size;
  }

  /** Answers one request with the simulator its key names (registry routes: the host itself). */
  async handle(request: SimRequest): Promise<SimResponse> {
    this.sweep();
    const authorization = header(request, 'authorization');
    if (isRegistryPath(request.path)) return this.router.handle(request, () => this.registryCtx(authorization));
    // A file link (live-platform H.7) names its sandbox by its scope, not by a key.
    const fileSandbox = request.path.startsWith(FILES_PREFIX) ? this.byFileScope.get(request.path.slice(FILES_PREFIX.length).split('/')[0]!) : undefined;
    const target: Target = fileSandbox ? { sandbox: fileSandbox } : this.target(authorization);
    if ('unknownSandbox' in target) return this.sim.refusal(request, 401, COMMON_MESSAGES.unauthenticated, 'UNAUTHENTICATED');
    let sim = this.sim;
    const sandbox = target.sandbox;
    if (sandbox) {
      sandbox.lastUsedAt = this.realTime();
      try {
        sim = this.simOf(sandbox);
      } catch (error) {
        if (!(error instanceof SandboxUnavailable)) throw error;
        // The sandbox's own shape cannot be had without its simulator: the server's answers in the route family's shape.
        return this.sim.refusal(request, 503, error.message, 'SERVICE_UNAVAILABLE');
      }
      this.used(sandbox);
      sandbox.busy++;
    }
    let response: SimResponse;
    try {
      response = await sim.handle(request);
    } finally {
      if (sandbox) {
        sandbox.busy--;
        this.unloadSoon();
      }
    }
    // The server's OpenAPI document names the registry's operations too (the simulator answered who may read it, and where it is served).
    if (response.status === 200 && isOpenApiPath(request) && request.method.toUpperCase() === 'GET') {
      const served = (response.body as { servers?: { url: string }[] }).servers?.[0]?.url;
      return { ...response, body: openApiDocument(SERVER_ROUTES, served === undefined ? {} : { serverUrl: served }) };
    }
    return response;
  }

  /** A refusal given before the core (a body too large) in the shape of the simulator that would have answered. */
  refusal(request: SimRequest, status: number, message: string, errorCode: string): SimResponse {
    return (this.loadedSim(this.target(header(request, 'authorization'))) ?? this.sim).refusal(request, status, message, errorCode);
  }

  /**
   * Resolves once the changes of the simulator that answered `request` are on disk: a
   * sandbox's through the keeper, the server's own through `own` (its state file); the
   * registry's routes write the list themselves. The adapter's `beforeAnswer` waits for it.
   * @example createApp(host, { beforeAnswer: (request) => host.saved(request, () => store.flushed()) })
   */
  saved(request: SimRequest, own?: () => Promise<void> | void): Promise<void> | void {
    if (isRegistryPath(request.path)) return;
    const target = this.target(header(request, 'authorization'));
    if ('unknownSandbox' in target) return;
    if (target.sandbox) return target.sandbox.sim ? this.options.keeper?.flushed(target.sandbox.id) : undefined;
    return own?.();
  }

  /** Whether a sandbox's simulator is in memory (a kept one loads on its first use); false for an unknown id. */
  loaded(id: string): boolean {
    return this.sandboxes.get(id)?.sim !== undefined;
  }

  /** A 503 of a failure outside the core (`Simulator.unavailable`), in the answering simulator's shape. */
  unavailable(request: SimRequest, message: string): SimResponse {
    return this.refusal(request, 503, message, 'SERVICE_UNAVAILABLE');
  }

  /**
   * The simulator whose control API an `Authorization` value may use: a sandbox's for its
   * key, the server's own for the admin (the event stream and dashboard ask this).
   * @example host.controlled('Bearer vsk_…') // that sandbox's simulator
   */
  controlled(authorization: string | undefined): Simulator | undefined {
    const target = this.target(authorization);
    if ('unknownSandbox' in target) return undefined;
    if (target.sandbox) {
      const sim = this.loadedSim(target);
      // Whoever asks holds it (an event stream's subscription): it must stay the sandbox's simulator.
      if (sim) target.sandbox.pinned = true;
      return sim;
    }
    return this.sim.isAdmin(authorization) ? this.sim : undefined;
  }

  /** The simulators the host holds in memory, the server's own first (for what serves them all: webhook settings, shutdown). */
  simulators(): Simulator[] {
    return [this.sim, ...[...this.sandboxes.values()].flatMap((s) => (s.sim ? [s.sim] : []))];
  }

  /**
   * Makes a sandbox (`POST /__sim/sandboxes`): a fresh simulator whose default account's key
   * is minted here, in a scenario's state when one is given (its given and scripts, not its
   * steps; its keys written in the sandbox's). Refused with 403 past the limit, 422 on a bad
   * input or a scenario that fails; nothing changes then.
   * @example (await host.create({ seed: 7, wire: 'live' })).api_key // 'vsk_…'
   */
  async create(input: SandboxInput = {}): Promise<SandboxAnswer> {
    const body = parseControlBody(SandboxBody, input);
    this.sweep();
    if (this.sandboxes.size >= this.maxSandboxes) throw shapeA(403, SANDBOX_MESSAGES.limit(this.maxSandboxes));
    const key = mintSandboxKey(this.options.shard);
    const id = mintSandboxId(this.options.shard);
    const base = this.options.simulator ?? {};
    // The options are checked by the simulator as createSimulator checks them (a bad catalog: 422 naming its path).
    const sim = createSimulator({
      ...base,
      seed: body.seed ?? 1,
      ...(body.start !== undefined && { startAt: body.start }),
      ...(body.wire !== undefined && { wire: body.wire }),
      ...(body.catalog !== undefined && { catalog: body.catalog as SimulatorOptions['catalog'] & object }),
      sandboxKey: key,
    });
    sim.clock.sliceMs = SLICE_MS;
    this.options.configure?.(sim);
    // What a reset returns the sandbox to (a kept sandbox is restored with them).
    const made = { seed: sim.seed, start: sim.start, wire: sim.wire, ...(body.catalog !== undefined && { catalog: body.catalog }) };
    if (body.scenario !== undefined) {
      try {
        await sim.control.scenario.load(body.scenario as Parameters<Simulator['control']['scenario']['load']>[0]);
      } catch (error) {
        sim.dispose();
        throw error;
      }
      // Another sandbox may have taken the last place while the scenario loaded.
      this.sweep();
      if (this.sandboxes.size >= this.maxSandboxes) {
        sim.dispose();
        throw shapeA(403, SANDBOX_MESSAGES.limit(this.maxSandboxes));
      }
    }
    const now = this.realTime();
    const ttlMs = body.ttl === undefined ? this.ttlMs : parseDuration(body.ttl);
    const sandbox: Sandbox = { id, name: body.name ?? null, key, sim, ttlMs, createdAt: now, lastUsedAt: now, options: made, seed: sim.seed, wire: sim.wire, now: sim.clock.now(), exact: false, busy: 0, pinned: false, gone: false };
    if (this.options.keeper) {
      try {
        // Its state and the list are on disk before anyone hears of it.
        this.options.keeper.created(stripSim(sandbox), sim);
      } catch (error) {
        sim.dispose();
        throw shapeA(503, SANDBOX_MESSAGES.notSaved((error as Error).message));
      }
    }
    this.add(sandbox);
    this.used(sandbox);
    this.unloadSoon();
    return this.answer(sandbox);
  }

  /**
   * Every sandbox, oldest first (`GET /__sim/sandboxes`). A kept sandbox not loaded yet
   * answers from the list, unless the list may be behind it (it was in use when the last
   * run was killed): then it is loaded to answer its own values.
   */
  list(): SandboxAnswer[] {
    this.sweep();
    return [...this.sandboxes.values()].map((s) => {
      if (!s.sim && !s.exact) this.loadedSim({ sandbox: s });
      return this.answer(s);
    });
  }

  /** One sandbox (`GET /__sim/sandboxes/{id}`), or 404; a kept sandbox is loaded (503 when it cannot be). */
  get(id: string): SandboxAnswer {
    const sandbox = this.find(id);
    try {
      this.simOf(sandbox);
    } catch (error) {
      if (error instanceof SandboxUnavailable) throw shapeA(503, error.message);
      throw error;
    }
    return this.answer(sandbox);
  }

  /** Removes a sandbox and stops its clock (`DELETE /__sim/sandboxes/{id}`), or 404; with a keeper, its files go too. */
  delete(id: string): void {
    const sandbox = this.find(id);
    try {
      this.options.keeper?.removed([id]);
    } catch (error) {
      throw shapeA(503, SANDBOX_MESSAGES.notSaved((error as Error).message));
    }
    this.remove(sandbox);
  }

  /** Drops every sandbox from memory (the server is closing); a keeper's files stay (see `close`). */
  dispose(): void {
    this.cancelExpiry?.();
    this.cancelExpiry = undefined;
    this.cancelUnload?.();
    this.cancelUnload = undefined;
    for (const sandbox of [...this.sandboxes.values()]) this.remove(sandbox);
  }

  /** The server is closing: expired sandboxes leave the keeper's list, it writes what it keeps (rejects when it cannot), then every sandbox is dropped from memory. */
  async close(): Promise<void> {
    try {
      this.sweep();
      this.removeExpired();
      await this.options.keeper?.close();
    } finally {
      this.dispose();
    }
  }

  private add(sandbox: Sandbox): void {
    this.sandboxes.set(sandbox.id, sandbox);
    this.byKey.set(sandbox.key, sandbox);
    this.byFileScope.set(sandboxFileScope(sandbox.key), sandbox);
    this.expiries.push(sandbox, sandbox.lastUsedAt + sandbox.ttlMs);
  }

  /** A loaded sandbox was just used: the last to be unloaded (only a keeper's sandboxes are unloaded). */
  private used(sandbox: Sandbox): void {
    if (!sandbox.sim || !this.options.keeper) return;
    if (sandbox.place) this.resident.touch(sandbox.place);
    else sandbox.place = this.resident.add(sandbox);
  }

  /** Past the limit of loaded simulators (with a keeper), unloads the least recently used idle ones soon, outside the request at hand. */
  private unloadSoon(): void {
    if (!this.options.keeper || this.resident.size <= this.maxLoaded || this.cancelUnload !== undefined) return;
    this.cancelUnload = (this.options.later ?? nextRealTurn)(() => {
      this.cancelUnload = undefined;
      this.unloadIdle();
    });
  }

  /**
   * Unloads the least recently used sandboxes until no more than `maxLoadedSandboxes` are in
   * memory (issue 44). One answering a request (or moving its clock for one), one whose clock
   * runs in real time, one held by an event stream, or one whose keeper cannot let it go now
   * stays; the next request past the limit tries again. Each change is on disk already (the
   * keeper writes before every answer): unloading writes the last changes to the sandbox's
   * log and drops its simulator, nothing else.
   */
  private unloadIdle(): void {
    const keeper = this.options.keeper!;
    let over = this.resident.size - this.maxLoaded;
    for (const sandbox of this.resident.oldestFirst()) {
      if (over <= 0) break;
      const sim = sandbox.sim;
      if (!sim || sandbox.busy > 0 || sandbox.pinned || sim.clock.mode === 'realtime' || sim.clock.yielding) continue;
      if (!keeper.unloaded(sandbox.id)) continue;
      // The values the list shows of it, its own until it loads again.
      sandbox.seed = sim.seed;
      sandbox.wire = sim.wire;
      sandbox.now = sim.clock.now();
      sandbox.exact = true;
      sandbox.sim = undefined;
      this.resident.remove(sandbox.place!);
      sandbox.place = undefined;
      sim.dispose();
      over--;
    }
  }

  /** A sandbox's simulator, loaded from the keeper on first use; throws SandboxUnavailable when it cannot be. */
  private simOf(sandbox: Sandbox): Simulator {
    if (sandbox.sim) return sandbox.sim;
    const keeper = this.options.keeper!;
    try {
      sandbox.sim = keeper.load(stripSim(sandbox), (snapshot) => this.restored(sandbox, snapshot));
    } catch (error) {
      throw new SandboxUnavailable(SANDBOX_MESSAGES.unavailable(sandbox.id, (error as Error).message.replace(/\.$/, '')));
    }
    this.used(sandbox);
    this.unloadSoon();
    return sandbox.sim;
  }

  /** A kept sandbox's simulator, made as it was made and restored to `snapshot` (throws when the snapshot is damaged). */
  private restored(sandbox: Sandbox, snapshot: SimulatorSnapshot): Simulator {
    const base = this.options.simulator ?? {};
    const { options } = sandbox;
    const sim = simulatorToRestore({
      ...base,
      seed: options.seed,
      startAt: options.start,
      wire: options.wire,
      ...(options.catalog !== undefined && { catalog: options.catalog as SimulatorOptions['catalog'] & object }),
      sandboxKey: sandbox.key,
    });
    try {
      sim.restore(snapshot, { owned: true });
    } catch (error) {
      sim.dispose();
      throw error;
    }
    sim.clock.sliceMs = SLICE_MS;
    this.options.configure?.(sim);
    return sim;
  }

  /** The simulator a target names, loading a kept sandbox; undefined for an unknown key or a sandbox that cannot be loaded. */
  private loadedSim(target: Target): Simulator | undefined {
    if ('unknownSandbox' in target) return undefined;
    if (!target.sandbox) return target.sim;
    try {
      return this.simOf(target.sandbox);
    } catch (error) {
      if (error instanceof SandboxUnavailable) return undefined;
      throw error;
    }
  }

  private find(id: string): Sandbox {
    this.sweep();
    const sandbox = this.sandboxes.get(id);
    if (!sandbox) throw shapeA(404, SANDBOX_MESSAGES.notFound);
    return sandbox;
  }

  private remove(sandbox: Sandbox): void {
    this.sandboxes.delete(sandbox.id);
    this.byKey.delete(sandbox.key);
    this.byFileScope.delete(sandboxFileScope(sandbox.key));
    if (sandbox.place) this.resident.remove(sandbox.place);
    sandbox.place = undefined;
    sandbox.gone = true;
    sandbox.sim?.dispose();
    // Its place in the expiry queue stays until reached: it must not hold the simulator meanwhile.
    sandbox.sim = undefined;
  }

  /**
   * Removes the sandboxes idle past their ttl. The expiry queue holds each sandbox once, at
   * the time it was due when queued; only those reached are looked at (issue 44: no walk of
   * every sandbox per request). One used since goes back in at its new due time, one removed
   * meanwhile is dropped. They go from memory at once (their keys answer 401 from this request
   * on, their clocks stop); the keeper hears of them later, outside the request, all of
   * them in one write of its list (issue 45: no tenant's request waits for another's expiry).
   */
  private sweep(): void {
    const now = this.realTime();
    for (let next = this.expiries.peek(); next !== undefined && next.at <= now; next = this.expiries.peek()) {
      const sandbox = this.expiries.pop()!;
      if (sandbox.gone) continue;
      const due = sandbox.lastUsedAt + sandbox.ttlMs;
      if (due > now) {
        this.expiries.push(sandbox, due);
        continue;
      }
      this.remove(sandbox);
      if (this.options.keeper) this.expired.push(sandbox.id);
    }
    if (this.expired.length > 0 && this.cancelExpiry === undefined) {
      this.cancelExpiry = (this.options.later ?? nextRealTurn)(() => {
        this.cancelExpiry = undefined;
        this.removeExpired();
      });
    }
  }

  /** Takes the expired sandboxes off the keeper's list in one write; when it cannot (it reported why), the next sweep tries again. */
  private removeExpired(): void {
    if (this.expired.length === 0) return;
    try {
      this.options.keeper?.removed(this.expired);
    } catch {
      // Still on the list: a restart would bring them back with their idle time counted from it.
      return;
    }
    this.expired = [];
  }

  /**
   * Who calls the registry (issue 45). A request with a sandbox key acts as that sandbox, or
   * as nothing when it names none, on every server: never as the admin, not even on a server
   * without an admin token (where any other request is the admin: it listens on loopback
   * only). A key's holder reaches its own sandbox alone, as docs/sandboxes.md's table says.
   */
  private registryCtx(authorization: string | undefined): RegistryCtx {
    const token = bearerToken(authorization);
    if (isSandboxToken(token)) return { host: this, admin: false, own: this.sandboxOf(token) };
    return { host: this, admin: this.sim.isAdmin(authorization), own: undefined };
  }

  /** The sandbox a key names: the sandbox's own key, or an account key of it (`<sandbox key>_…`). */
  private sandboxOf(token: string | undefined): Sandbox | undefined {
    if (!isSandboxToken(token)) return undefined;
    // The keys the token may start with (src/core/sandbox-keys.ts): the map tells which one this host minted.
    for (const key of sandboxKeysOf(token)) {
      const sandbox = this.byKey.get(key);
      if (sandbox) return sandbox;
    }
    return undefined;
  }

  private target(authorization: string | undefined): Target {
    const token = bearerToken(authorization);
    if (!isSandboxToken(token)) return { sim: this.sim };
    const sandbox = this.sandboxOf(token);
    // A sandbox key that names no sandbox (deleted, expired, another shard's) never reaches the server's own simulator.
    return sandbox ? { sandbox } : { unknownSandbox: true };
  }

  private answer(sandbox: Sandbox): SandboxAnswer {
    const sim = sandbox.sim;
    return {
      id: sandbox.id,
      name: sandbox.name,
      api_key: sandbox.key,
      seed: sim ? sim.seed : sandbox.seed,
      now: formatControlTime(sim ? sim.clock.now() : sandbox.now),
      wire: sim ? sim.wire : sandbox.wire,
      created_at: new Date(sandbox.createdAt).toISOString(),
      expires_at: new Date(sandbox.lastUsedAt + sandbox.ttlMs).toISOString(),
    };
  }

  /** For the registry routes: the caller may act on `sandbox` (the admin, or its own key), else 404 as for a foreign id. */
  reachable(ctx: RegistryCtx, id: string): void {
    if (ctx.admin) return;
    if (ctx.own === undefined) throw shapeA(401, COMMON_MESSAGES.unauthenticated);
    if (ctx.own.id !== id) throw shapeA(404, SANDBOX_MESSAGES.notFound);
  }

  /** For the registry routes: creation is the admin's, or anyone's with `openSandboxes`. */
  mayCreate(ctx: RegistryCtx): void {
    if (!ctx.admin && this.options.openSandboxes !== true) throw shapeA(401, COMMON_MESSAGES.unauthenticated);
  }
}

/** An item's place in a UseOrder. */
interface UsePlace<T> {
  readonly item: T;
  prev: UsePlace<T> | undefined;
  next: UsePlace<T> | undefined;
}

/** Items in the order of their last use, oldest first: O(1) to add, move to the end, and remove. */
class UseOrder<T> {
  private first: UsePlace<T> | undefined;
  private last: UsePlace<T> | undefined;
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(item: T): UsePlace<T> {
    const place: UsePlace<T> = { item, prev: this.last, next: undefined };
    if (this.last) this.last.next = place;
    else this.first = place;
    this.last = place;
    this.count++;
    return place;
  }

  remove(place: UsePlace<T>): void {
    if (place.prev) place.prev.next = place.next;
    else this.first = place.next;
    if (place.next) place.next.prev = place.prev;
    else this.last = place.prev;
    place.prev = place.next = undefined;
    this.count--;
  }

  touch(place: UsePlace<T>): void {
    if (this.last === place) return;
    this.remove(place);
    place.prev = this.last;
    if (this.last) this.last.next = place;
    else this.first = place;
    this.last = place;
    this.count++;
  }

  /** Oldest first; an item removed during the walk does not stop it. */
  *oldestFirst(): Generator<T> {
    for (let place = this.first; place; ) {
      const next = place.next;
      yield place.item;
      place = next;
    }
  }
}

/**
 * A binary min-heap of items by a due time (ties: the earlier pushed first): the sandboxes'
 * expiry queue, O(log n) to push and pop, O(1) to look at the first.
 */
class DueQueue<T> {
  private readonly items: { item: T; at: number; seq: number }[] = [];
  private seq = 0;

  peek(): { item: T; at: number } | undefined {
    return this.items[0];
  }

  push(item: T, at: number): void {
    const items = this.items;
    const entry = { item, at, seq: this.seq++ };
    let i = items.length;
    items.push(entry);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(entry, items[parent]!)) break;
      items[i] = items[parent]!;
      i = parent;
    }
    items[i] = entry;
  }

  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top?.item;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const child = right < items.length && before(items[right]!, items[left]!) ? right : left;
      if (!before(items[child]!, last)) break;
      items[i] = items[child]!;
      i = child;
    }
    items[i] = last;
    return top.item;
  }
}

function before(a: { at: number; seq: number }, b: { at: number; seq: number }): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

/** The default `later`: the next turn of the event loop, on a real timer (src/core/clock.ts makes them). */
function nextRealTurn(run: () => void): () => void {
  return afterRealDelay(0, run);
}

/** What a keeper is told of a sandbox: its line of the list, without its simulator or its last use. */
function stripSim(sandbox: Sandbox): KeptSandbox {
  const { sim: _sim, lastUsedAt: _used, busy: _busy, pinned: _pinned, gone: _gone, place: _place, ...kept } = sandbox;
  return kept;
}

/** Whether a request asks for the OpenAPI document (`GET /__sim/openapi.json`). */
function isOpenApiPath(request: SimRequest): boolean {
  return request.path.split('?')[0]!.replace(/\/+$/, '').toLowerCase() === '/__sim/openapi.json';
}

/** Whether a path is one of the registry's (`/__sim/sandbox`, `/__sim/sandboxes`, `/__sim/sandboxes/{id}`). */
function isRegistryPath(path: string): boolean {
  const bare = path.split('?')[0]!.replace(/\/+$/, '').toLowerCase();
  return bare === '/__sim/sandbox' || bare === '/__sim/sandboxes' || bare.startsWith('/__sim/sandboxes/');
}

const SandboxRecord = lazySchema(() =>
  z.object({
    id: z.string(),
    name: z.string().nullable(),
    api_key: z.string(),
    seed: z.int(),
    now: z.string(),
    wire: z.enum(WIRES),
    created_at: z.string(),
    expires_at: z.string(),
  }),
);

/** The id of the sandbox whose key the caller sent, else 401 (`/__sim/sandbox`). */
function ownSandbox(ctx: RegistryCtx): string {
  if (ctx.own === undefined) throw shapeA(401, COMMON_MESSAGES.unauthenticated);
  return ctx.own.id;
}

/** The registry's operations (docs/sandboxes.md): served by a SandboxHost, shown by the server's OpenAPI document. */
export const SANDBOX_ROUTES: readonly RouteDef<RegistryCtx>[] = [
  defineRoute<RegistryCtx, Record<string, unknown>>({
    method: 'POST', path: '/__sim/sandboxes', family: 'control', auth: 'control', body: AnyObject, doc: { body: SandboxBody }, responses: () => ({ 201: SandboxRecord }),
    // Who may create is settled before the body is read; create() checks the body itself, as in-process callers get it.
    guard: (ctx) => ctx.host.mayCreate(ctx),
    handle: async ({ ctx, body }) => ok(await ctx.host.create(body as SandboxInput), 201),
  }),
  defineRoute<RegistryCtx>({
    method: 'GET', path: '/__sim/sandboxes', family: 'control', auth: 'control', responses: () => ({ 200: z.object({ data: z.array(SandboxRecord) }) }),
    handle: ({ ctx }) => {
      if (!ctx.admin) throw shapeA(401, COMMON_MESSAGES.unauthenticated);
      return ok({ data: ctx.host.list() });
    },
  }),
  defineRoute<RegistryCtx>({
    method: 'GET', path: '/__sim/sandboxes/:id', family: 'control', auth: 'control', responses: () => ({ 200: SandboxRecord }),
    handle: ({ ctx, params }) => (ctx.host.reachable(ctx, params.id!), ok(ctx.host.get(params.id!))),
  }),
  // The sandbox of the key sent (a CI job that holds only its key reads and ends its own sandbox).
  defineRoute<RegistryCtx>({
    method: 'GET', path: '/__sim/sandbox', family: 'control', auth: 'control', responses: () => ({ 200: SandboxRecord }),
    handle: ({ ctx }) => ok(ctx.host.get(ownSandbox(ctx))),
  }),
  defineRoute<RegistryCtx>({
    method: 'DELETE', path: '/__sim/sandbox', family: 'control', auth: 'control', responses: () => ({ 200: z.object({ ok: z.literal(true), id: z.string() }) }),
    handle: ({ ctx }) => {
      const id = ownSandbox(ctx);
      ctx.host.delete(id);
      return ok({ ok: true, id });
    },
  }),
  defineRoute<RegistryCtx>({
    method: 'DELETE', path: '/__sim/sandboxes/:id', family: 'control', auth: 'control', responses: () => ({ 200: z.object({ ok: z.literal(true), id: z.string() }) }),
    handle: ({ ctx, params }) => (ctx.host.reachable(ctx, params.id!), ctx.host.delete(params.id!), ok({ ok: true, id: params.id! })),
  }),
];

/** Every operation a server that hosts sandboxes serves: the simulator's and the registry's (its OpenAPI document, `voxsim openapi`). */
export const SERVER_ROUTES: readonly RouteDef<never>[] = [...(ROUTES as readonly RouteDef<never>[]), ...(SANDBOX_ROUTES as readonly RouteDef<never>[])];
