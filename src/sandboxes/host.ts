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
 * - The list (`/__sim/sandboxes`) is the admin's (the server's admin token, or anyone on a
 *   server without one); with `openSandboxes` anyone may create one; a sandbox's own key
 *   reads and deletes that sandbox.
 * - A sandbox idle (no request) for its `ttl` of real time is removed; its keys then answer
 *   401 like any unknown key.
 */
import * as z from 'zod';
import { parseDuration, realNow, SLICE_MS } from '../core/clock.js';
import { COMMON_MESSAGES, shapeA } from '../core/errors.js';
import { bearerToken, defineRoute, header, ok, Router, type RouteDef, type SimRequest, type SimResponse } from '../core/http.js';
import { MAX_SEED, secretHex } from '../core/random.js';
import { formatControlTime } from '../core/time.js';
import { int, oneOf, parseControlBody } from '../core/validation.js';
import { WIRES, type Wire } from '../core/wire.js';
import { AnyObject, clockTime, duration } from '../control/schema.js';
import { lazySchema } from '../core/lazy-schema.js';
import { openApiDocument } from '../control/openapi.js';
import { createSimulator, ROUTES, type Simulator, type SimulatorOptions } from '../simulator.js';

/** Sandboxes a server holds at most, unless told otherwise (`--max-sandboxes`). */
export const DEFAULT_MAX_SANDBOXES = 100;
/** How long a sandbox may stay idle (real time since its last request), unless told otherwise (`--sandbox-ttl`): 24 h. */
export const DEFAULT_SANDBOX_TTL_MS = 24 * 60 * 60 * 1000;
/** The shortest and longest idle time a sandbox may be given: a minute, a year. */
export const SANDBOX_TTL_RANGE = { min: 60 * 1000, max: 365 * 24 * 60 * 60 * 1000 } as const;
/** What a shard's name may be: it is part of every key the shard mints, and of its sandboxes' ids. */
export const SHARD_NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;

export const SANDBOX_MESSAGES = {
  limit: (max: number) => `The server holds ${max} sandboxes, its limit (--max-sandboxes); delete one before creating another.`,
  notFound: 'Sandbox not found.',
  ttl: `The ttl must be a duration from 1m to 365d (milliseconds, or text with units: 90s, 15m, 2h, 3d).`,
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

interface Sandbox {
  readonly id: string;
  readonly name: string | null;
  readonly key: string;
  readonly sim: Simulator;
  readonly ttlMs: number;
  readonly createdAt: number;
  lastUsedAt: number;
}

export interface SandboxHostOptions {
  /** Sandboxes held at most (default 100); creation past it is refused with 403 shape A. */
  maxSandboxes?: number;
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
}

/** What a registry route sees: the caller's credentials, read once. */
interface RegistryCtx {
  host: SandboxHost;
  admin: boolean;
  /** The sandbox whose key the caller sent, if any. */
  own: Sandbox | undefined;
}

/** A request's verdict: which simulator answers it, or that its sandbox key names none. */
type Target = { sim: Simulator; sandbox?: Sandbox } | { unknownSandbox: true };

/**
 * The simulators of one server, and the routing of each request to one of them.
 * @example
 * const host = new SandboxHost(createSimulator({ seed: 1 }), { maxSandboxes: 10 })
 * createApp(host).listen(4010)
 */
export class SandboxHost {
  private readonly sandboxes = new Map<string, Sandbox>();
  private readonly byKey = new Map<string, Sandbox>();
  private readonly router: Router<RegistryCtx>;
  private readonly maxSandboxes: number;
  private readonly ttlMs: number;
  private readonly realTime: () => number;

  constructor(
    /** The server's own simulator: it answers every request that names no sandbox. */
    readonly sim: Simulator,
    private readonly options: SandboxHostOptions = {},
  ) {
    if (options.shard !== undefined && !SHARD_NAME.test(options.shard)) throw new RangeError(`shard must be 1-32 lowercase letters, digits or dashes, starting with a letter or digit: ${options.shard}`);
    this.maxSandboxes = options.maxSandboxes ?? DEFAULT_MAX_SANDBOXES;
    this.ttlMs = options.ttlMs ?? DEFAULT_SANDBOX_TTL_MS;
    this.realTime = options.now ?? realNow;
    this.router = new Router(SANDBOX_ROUTES, {});
    // issue 35, fairness: a long move of one simulator yields to the others' requests.
    sim.clock.sliceMs = SLICE_MS;
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
    if (isRegistryPath(request.path)) {
      return this.router.handle(request, () => ({ host: this, admin: this.sim.isAdmin(authorization), own: this.sandboxOf(bearerToken(authorization)) }));
    }
    const target = this.target(authorization);
    if ('unknownSandbox' in target) return this.sim.refusal(request, 401, COMMON_MESSAGES.unauthenticated, 'UNAUTHENTICATED');
    if (target.sandbox) target.sandbox.lastUsedAt = this.realTime();
    const response = await target.sim.handle(request);
    // The server's OpenAPI document names the registry's operations too (the simulator answered who may read it, and where it is served).
    if (response.status === 200 && isOpenApiPath(request) && request.method.toUpperCase() === 'GET') {
      const served = (response.body as { servers?: { url: string }[] }).servers?.[0]?.url;
      return { ...response, body: openApiDocument(SERVER_ROUTES, served === undefined ? {} : { serverUrl: served }) };
    }
    return response;
  }

  /** A refusal given before the core (a body too large) in the shape of the simulator that would have answered. */
  refusal(request: SimRequest, status: number, message: string, errorCode: string): SimResponse {
    const target = this.target(header(request, 'authorization'));
    return ('unknownSandbox' in target ? this.sim : target.sim).refusal(request, status, message, errorCode);
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
    if (target.sandbox) return target.sim;
    return this.sim.isAdmin(authorization) ? this.sim : undefined;
  }

  /** The simulators the host holds, the server's own first (for what serves them all: webhook settings, shutdown). */
  simulators(): Simulator[] {
    return [this.sim, ...[...this.sandboxes.values()].map((s) => s.sim)];
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
    const prefix = this.options.shard === undefined ? '' : `${this.options.shard}_`;
    const key = `vsk_${prefix}${secretHex(12)}`;
    const id = `sbx_${prefix}${secretHex(6)}`;
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
    const sandbox: Sandbox = { id, name: body.name ?? null, key, sim, ttlMs: body.ttl === undefined ? this.ttlMs : parseDuration(body.ttl), createdAt: now, lastUsedAt: now };
    this.sandboxes.set(id, sandbox);
    this.byKey.set(key, sandbox);
    return this.answer(sandbox);
  }

  /** Every sandbox, oldest first (`GET /__sim/sandboxes`). */
  list(): SandboxAnswer[] {
    this.sweep();
    return [...this.sandboxes.values()].map((s) => this.answer(s));
  }

  /** One sandbox (`GET /__sim/sandboxes/{id}`), or 404. */
  get(id: string): SandboxAnswer {
    return this.answer(this.find(id));
  }

  /** Removes a sandbox and stops its clock (`DELETE /__sim/sandboxes/{id}`), or 404. */
  delete(id: string): void {
    this.remove(this.find(id));
  }

  /** Removes every sandbox (the server is closing). */
  dispose(): void {
    for (const sandbox of [...this.sandboxes.values()]) this.remove(sandbox);
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
    sandbox.sim.dispose();
  }

  /** Removes the sandboxes idle past their ttl (a few comparisons: the host holds at most `maxSandboxes`). */
  private sweep(): void {
    const now = this.realTime();
    for (const sandbox of this.sandboxes.values()) if (now - sandbox.lastUsedAt >= sandbox.ttlMs) this.remove(sandbox);
  }

  /** The sandbox a key names: the sandbox's own key, or an account key of it (`<sandbox key>_…`). */
  private sandboxOf(token: string | undefined): Sandbox | undefined {
    if (token === undefined || !token.startsWith('vsk_')) return undefined;
    // vsk_<hex> or vsk_<shard>_<hex>, then perhaps _<account part>: the map tells which prefix is a key.
    const parts = token.split('_');
    return this.byKey.get(parts.slice(0, 2).join('_')) ?? this.byKey.get(parts.slice(0, 3).join('_'));
  }

  private target(authorization: string | undefined): Target {
    const token = bearerToken(authorization);
    if (token === undefined || !token.startsWith('vsk_')) return { sim: this.sim };
    const sandbox = this.sandboxOf(token);
    // A sandbox key that names no sandbox (deleted, expired, another shard's) never reaches the server's own simulator.
    return sandbox ? { sim: sandbox.sim, sandbox } : { unknownSandbox: true };
  }

  private answer(sandbox: Sandbox): SandboxAnswer {
    return {
      id: sandbox.id,
      name: sandbox.name,
      api_key: sandbox.key,
      seed: sandbox.sim.seed,
      now: formatControlTime(sandbox.sim.clock.now()),
      wire: sandbox.sim.wire,
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
