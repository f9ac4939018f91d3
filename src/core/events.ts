/**
 * The simulator's event stream: every state change an integrator may want to watch
 * (campaign, lead and call status, idle reasons, webhook attempts, messaging windows,
 * conversations, clock moves, answered requests), stamped with the clock time. A bounded
 * journal keeps the latest events, so a watcher that reconnects can replay what it
 * missed (`subscribe({since})`). The bus is typed by a map of event types to their data
 * (the simulator's is `SimEventMap`, domain/sim-events.ts); without one, any type and data.
 */
import { formatControlTime } from './time.js';

/** Event types to their `data`. */
export type EventMap = Record<string, object>;
/** A map that says nothing: any type, any data. */
export type AnyEventMap = Record<string, Record<string, unknown>>;

/**
 * One event: for a map `M`, the union of its types, each with its own `data`, so that
 * checking `type` narrows `data`.
 * @example if (event.type === 'call.status') console.log(event.data.call_id)
 */
export type SimEvent<M extends EventMap = AnyEventMap> = {
  [K in keyof M & string]: {
    /** e.g. `call.status`, `lead.status`, `campaign.status`, `webhook.attempt`, `clock.advanced`. */
    type: K;
    /** Clock time in epoch milliseconds. */
    at: number;
    /** 1, 2, 3, ... for the life of the simulator (a reset does not start it again). */
    seq: number;
    data: M[K];
  };
}[keyof M & string];

/** An event of one type. */
export type SimEventOf<M extends EventMap, K extends keyof M & string> = Extract<SimEvent<M>, { type: K }>;

export type SimEventListener<M extends EventMap = AnyEventMap> = (event: SimEvent<M>) => void;

/** An event as the journal holds it, before it is typed by the bus's map. */
interface RawEvent {
  type: string;
  at: number;
  seq: number;
  data: Record<string, unknown>;
}

/**
 * Which events a watcher wants: types by prefix (`call.` or `call.status`; any of them;
 * all when empty) and one account. Events of the whole simulator (clock moves, resets)
 * carry no `account_id` and pass an account filter.
 */
export interface EventFilter {
  types?: readonly string[] | undefined;
  accountId?: number | undefined;
}

/**
 * Whether an event passes a filter.
 * @example matchesFilter(event, { types: ['call.', 'lead.'], accountId: 2 })
 */
export function matchesFilter(event: { type: string; data: object }, filter: EventFilter): boolean {
  const { types, accountId } = filter;
  if (types && types.length > 0 && !types.some((prefix) => event.type.startsWith(prefix))) return false;
  if (accountId !== undefined && 'account_id' in event.data && event.data.account_id !== accountId) return false;
  return true;
}

/** An event as the WebSocket stream sends it: times as ISO 8601 UTC, with `at_ms` beside. */
export type WireEvent<M extends EventMap = AnyEventMap> = {
  [K in keyof M & string]: { seq: number; type: K; at: string; at_ms: number; data: M[K] };
}[keyof M & string];

/**
 * The wire form of an event (one JSON message of `GET /__sim/events`).
 * @example toWire({ type: 'call.status', at: 1772442001000, seq: 7, data: { call_id: 1 } })
 * // { seq: 7, type: 'call.status', at: '2026-03-02T09:00:01Z', at_ms: 1772442001000, data: { call_id: 1 } }
 */
export function toWire<M extends EventMap>(event: SimEvent<M>): WireEvent<M> {
  return { seq: event.seq, type: event.type, at: formatControlTime(event.at), at_ms: event.at, data: event.data } as WireEvent<M>;
}

/** What a subscription replayed from the journal before going live. */
export interface Subscription {
  /** The seq of the latest event when the subscription started (0 before any). */
  latestSeq: number;
  /** The oldest seq still in the journal (null when it is empty). */
  oldestSeq: number | null;
  /** How many journal events were handed to the listener before going live. */
  replayed: number;
  /** Events after `since` that the journal no longer holds (evicted), 0 when nothing was lost. */
  missed: number;
  /** Stops listening. */
  stop(): void;
}

/**
 * The fields of one kind of event's data, in order. Events of a shape are emitted as
 * their values (`emitValues`): the journal keeps the values and builds the data object
 * only when the event is read (a listener, `history`, a replay), so the dialer's many
 * status events cost no objects while nobody watches.
 * @example const LEAD_STATUS = eventShape('lead.status', ['account_id', 'lead_id', 'campaign_id', 'status'])
 */
export interface EventShape<T extends string = string> {
  readonly type: T;
  readonly keys: readonly string[];
}

/** Values of one event of a shape, at most this many. */
const MAX_VALUES = 9;

export function eventShape<T extends string>(type: T, keys: readonly string[]): EventShape<T> {
  if (keys.length > MAX_VALUES) throw new RangeError(`An event shape holds at most ${MAX_VALUES} fields.`);
  return { type, keys };
}

/**
 * @example
 * sim.events.on('call.status', (e) => console.log(e.at, e.data.status))
 * sim.events.on('*', (e) => log.push(e))
 * sim.events.subscribe({ types: ['webhook.'], since: 0 }, (e) => log.push(e))
 */
export class EventBus<M extends EventMap = AnyEventMap> {
  private readonly listeners = new Map<string, Set<SimEventListener<M>>>();
  /**
   * The journal: a ring of the latest `limit` events in columns, the oldest at `start`.
   * Entry i is of `kinds[i]`: a type, its data object in `values[i * MAX_VALUES]`; or a
   * shape, its values from there. No event object is kept (the seq follows from the
   * position), and the columns are written in place once the ring is full.
   */
  private kinds: (string | EventShape)[] = [];
  private ats: number[] = [];
  private values: unknown[] = [];
  private start = 0;
  private seq = 0;

  constructor(private readonly limit = 10_000) {}

  /** Listens to one type, or to every event with `*`; returns a function that stops listening. */
  on<K extends keyof M & string>(type: K, listener: (event: SimEventOf<M, K>) => void): () => void;
  on(type: '*', listener: SimEventListener<M>): () => void;
  on(type: string, listener: SimEventListener<M>): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(listener);
    return () => this.off(type, listener);
  }

  off(type: string, listener: SimEventListener<M> | ((event: never) => void)): void {
    this.listeners.get(type)?.delete(listener as SimEventListener<M>);
  }

  emit<K extends keyof M & string>(type: K, at: number, data: M[K]): void {
    const slot = this.record(type, at);
    this.values[slot] = data;
    if (this.listeners.size > 0) this.deliver({ type, at, seq: this.seq, data: data as Record<string, unknown> });
  }

  /**
   * Emits an event of `shape` with its values in the shape's order: the same event as
   * `emit(shape.type, at, data)` with the data object those values make.
   * @example bus.emitValues(LEAD_STATUS, now, 1, lead.id, lead.campaign_id, 'scheduled')
   */
  emitValues(shape: EventShape<keyof M & string>, at: number, a?: unknown, b?: unknown, c?: unknown, d?: unknown, e?: unknown, f?: unknown, g?: unknown, h?: unknown, i?: unknown): void {
    if (this.listeners.size > 0 && (this.listeners.get(shape.type)?.size || this.listeners.get('*')?.size)) {
      // Someone listens: the data object is built now, and kept as an `emit` keeps it.
      this.emit(shape.type, at, dataOf(shape, [a, b, c, d, e, f, g, h, i], 0) as M[string]);
      return;
    }
    const slot = this.record(shape, at);
    const values = this.values;
    values[slot] = a;
    values[slot + 1] = b;
    values[slot + 2] = c;
    values[slot + 3] = d;
    values[slot + 4] = e;
    values[slot + 5] = f;
    values[slot + 6] = g;
    values[slot + 7] = h;
    values[slot + 8] = i;
  }

  /** Takes the next seq and the journal entry for it; answers the entry's first value slot. */
  private record(kind: string | EventShape, at: number): number {
    this.seq++;
    let entry: number;
    if (this.kinds.length < this.limit) {
      entry = this.kinds.length;
      this.kinds.push(kind);
      this.ats.push(at);
      for (let n = 0; n < MAX_VALUES; n++) this.values.push(undefined);
    } else {
      // A ring buffer: the journal keeps the latest `limit` events without copying.
      entry = this.start;
      // A compare, not a remainder: this runs for every event of a long run.
      this.start = entry + 1 >= this.limit ? 0 : entry + 1;
      this.kinds[entry] = kind;
      this.ats[entry] = at;
    }
    return entry * MAX_VALUES;
  }

  private deliver(raw: RawEvent): void {
    const event = raw as unknown as SimEvent<M>;
    const typed = this.listeners.get(raw.type);
    if (typed) for (const listener of typed) listener(event);
    const all = this.listeners.get('*');
    if (all) for (const listener of all) listener(event);
  }

  /** The journal's entry `n` places after its oldest, as an event (built on each read). */
  private entry(n: number): SimEvent<M> {
    const size = this.kinds.length;
    const entry = (this.start + n) % size;
    const kind = this.kinds[entry]!;
    const seq = this.seq - size + 1 + n;
    const at = this.ats[entry]!;
    const raw: RawEvent =
      typeof kind === 'string' ? { type: kind, at, seq, data: this.values[entry * MAX_VALUES] as Record<string, unknown> } : { type: kind.type, at, seq, data: dataOf(kind, this.values, entry * MAX_VALUES) };
    return raw as unknown as SimEvent<M>;
  }

  /**
   * Hands `listener` the journal's events after `since` that pass `filter`, then every
   * new one that passes, with nothing lost or doubled in between. A `since` beyond the
   * latest seq (the watcher saw an earlier life of the server) replays the whole journal;
   * without `since` nothing is replayed.
   * @example const sub = sim.events.subscribe({ types: ['call.'], since: lastSeen }, send); sub.stop()
   */
  subscribe(options: EventFilter & { since?: number | undefined }, listener: SimEventListener<M>): Subscription {
    const filter: EventFilter = { types: options.types, accountId: options.accountId };
    const size = this.kinds.length;
    const latestSeq = this.seq;
    const oldestSeq = size === 0 ? null : latestSeq - size + 1;
    let replayed = 0;
    let missed = 0;
    if (options.since !== undefined) {
      const since = options.since > latestSeq ? 0 : options.since;
      if (oldestSeq !== null && since < oldestSeq - 1) missed = oldestSeq - 1 - since;
      for (let n = Math.max(0, since - (oldestSeq ?? 0) + 1); n < size; n++) {
        const event = this.entry(n);
        if (!matchesFilter(event, filter)) continue;
        listener(event);
        replayed++;
      }
    }
    const live = (event: SimEvent<M>) => {
      if (matchesFilter(event, filter)) listener(event);
    };
    const stop = this.on('*', live);
    return { latestSeq, oldestSeq, replayed, missed, stop };
  }

  /** The latest events, oldest first, optionally of one type. */
  history(): SimEvent<M>[];
  history<K extends keyof M & string>(type: K): SimEventOf<M, K>[];
  history(type?: string): SimEvent<M>[] {
    const out: SimEvent<M>[] = [];
    for (let n = 0; n < this.kinds.length; n++) {
      const kind = this.kinds[(this.start + n) % this.kinds.length]!;
      if (type === undefined || (typeof kind === 'string' ? kind : kind.type) === type) out.push(this.entry(n));
    }
    return out;
  }

  /** How many events were emitted in all: the seq of the latest (the journal keeps the latest `limit`). */
  get count(): number {
    return this.seq;
  }

  /** How many events the journal keeps. */
  get capacity(): number {
    return this.limit;
  }

  /**
   * Empties the journal. The seq goes on from where it was, so a watcher that reconnects
   * after a reset with `since` misses nothing of the new history.
   */
  clear(): void {
    this.kinds = [];
    this.ats = [];
    this.values = [];
    this.start = 0;
  }
}

/** The data object of an event of `shape` whose values start at `values[from]`. */
function dataOf(shape: EventShape, values: readonly unknown[], from: number): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (let n = 0; n < shape.keys.length; n++) data[shape.keys[n]!] = values[from + n];
  return data;
}
