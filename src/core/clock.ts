/**
 * The virtual clock: the only source of time in a simulator. Timers are data
 * (`{type, at, payload}`) dispatched to registered handlers, so the pending queue can
 * be inspected and snapshotted, and the same inputs always give the same history.
 */

import { within, type FieldKind, type Problem } from './fields.js';
import { CLOCK_RANGE, CLOCK_RANGE_TEXT, isClockTime } from './time.js';

/** A length of time: milliseconds as a number, or text such as `"90s"`, `"15m"`, `"1h30m"`, `"3d"`. */
export type Duration = number | string;

/** A pending timer. Ordered by (`at`, `seq`). */
export interface ClockEvent<P = unknown> {
  id: number;
  seq: number;
  at: number;
  type: string;
  payload: P;
  /** A periodic event that never ends by itself (a monthly renewal): not work for `runUntilIdle`. */
  periodic?: true;
}

/** How far one move of the clock may go: ten years of 365.25 days. */
export const MAX_MOVE_MS = 10 * 365.25 * 86_400_000;

/**
 * The realtime speeds (simulated ms per real ms): at the slowest a simulated second takes
 * about 17 real minutes; at the fastest a real second is 11.6 simulated days.
 */
export const SPEED_RANGE = { min: 0.001, max: 1_000_000 } as const;

export type ClockEventHandler = (event: ClockEvent) => void | Promise<void>;

export type ClockMode = 'manual' | 'realtime';

/** Sees every change of the pending queue (the state file's change log): an event added, one gone (fired or cancelled), the queue emptied. */
export interface ClockObserver {
  put(event: ClockEvent): void;
  delete(id: number): void;
  clear(): void;
}

/** One move of the clock: what moved it, from when to when, and how many events ran. */
export interface ClockMove {
  /** `advance` (advance / advanceTo), `run_until_idle`, or `realtime` (the realtime timer). */
  by: 'advance' | 'run_until_idle' | 'realtime';
  from: number;
  to: number;
  ran: number;
}

export interface ClockSnapshot {
  now: number;
  seq: number;
  mode: ClockMode;
  speed: number;
  events: ClockEvent[];
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION_PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;

/**
 * Parses a duration into milliseconds.
 * @example parseDuration('1h30m') // 5400000
 */
export function parseDuration(duration: Duration): number {
  if (typeof duration === 'number') {
    if (!Number.isFinite(duration) || duration < 0) throw new RangeError(`Invalid duration: ${duration}`);
    return Math.round(duration);
  }
  const text = duration.trim();
  if (/^\d+$/.test(text)) return Number(text);
  DURATION_PART.lastIndex = 0;
  let total = 0;
  let consumed = 0;
  for (let m = DURATION_PART.exec(text); m; m = DURATION_PART.exec(text)) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    consumed = DURATION_PART.lastIndex;
  }
  if (consumed === 0 || consumed !== text.length) {
    throw new RangeError(`Invalid duration "${duration}": use milliseconds or units such as 90s, 15m, 2h, 3d`);
  }
  return Math.round(total);
}

/**
 * How much real time one slice of a clock move may take before the move yields to the
 * event loop (issue 35, fairness): a server hosting many simulators answers the others'
 * requests between slices. A request that arrives while a slice runs waits for its end,
 * and a client that sends its next request as soon as it has an answer sends it just
 * after the next slice began: its requests take a whole slice longer each. So the slice is
 * about as long as a short request itself takes (0.1 ms), and one turn of the event loop
 * (some microseconds) is what a slice costs. Issue 44 measured (another sandbox's
 * `GET /user/me` over HTTP while one runs a 50,000-lead campaign, 3 rounds each, the server's
 * heap as `voxsim serve` tunes it): 0.1 ms slices gave p99 2.8 ms and p50 0.2 ms (1.8x the
 * idle server's 0.11 ms), 2 ms slices p99 9.4 ms and p50 2.4 ms (20x), 0.25 ms p50 3.2x;
 * the move itself took 1.11x its unsliced time at 0.1 ms, 1.07x at 2 ms
 * (docs/performance.md).
 */
export const SLICE_MS = 0.1;

// Captured when the module loads: a test that fakes timers (vi.useFakeTimers) must not
// stop a move at its first slice, nor freeze its slice budget.
const nextTurn: (resume: () => void) => unknown = globalThis.setImmediate.bind(globalThis);
const sliceNow: () => number = performance.now.bind(performance);

/** A promise and its resolve function. */
function waiting(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** The real wall-clock time; used for a clock's default start and the realtime mode. */
export function realNow(): number {
  return Date.now();
}

/**
 * Calls `check` every `ms` of real time until the returned function is called; the timer
 * never keeps the process alive. Real timers are made here only (STYLE 5): the server's
 * process plumbing (watching its npm parent) uses this, never the simulation.
 */
export function everyRealInterval(ms: number, check: () => void): () => void {
  const timer = setInterval(check, ms);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Calls `run` once after `ms` of real time unless the returned function is called first;
 * the timer never keeps the process alive. For the server's plumbing (how long a refused
 * body is still read, when its heap is tuned: src/cli/server-heap.ts), never the simulation.
 */
export function afterRealDelay(ms: number, run: () => void): () => void {
  const timer = setTimeout(run, ms);
  timer.unref();
  return () => clearTimeout(timer);
}

/** A move that would take the clock past the end of its range (CLOCK_RANGE). */
export class ClockRangeError extends RangeError {}

/** `target`, when a move may go there; else a ClockRangeError. */
function beforeEnd(target: number): number {
  if (target > CLOCK_RANGE.max) throw new ClockRangeError(`The clock cannot move past the end of its range (${CLOCK_RANGE_TEXT}).`);
  return target;
}

/** A time a clock may start at or be reset to (CLOCK_RANGE); anything else is a RangeError. */
function checkStart(start: number): number {
  if (!isClockTime(start)) throw new RangeError(`The clock's time must be whole milliseconds ${CLOCK_RANGE_TEXT}: ${start}`);
  return start;
}

function before(a: ClockEvent, b: ClockEvent): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

/**
 * A binary min-heap of events by (at, seq); cancelled entries are skipped lazily. The
 * keys sit in arrays of their own beside the events (times unboxed), so sifting compares
 * numbers without reaching into the events.
 */
class EventHeap {
  private items: ClockEvent[] = [];
  private ats: number[] = [];
  private seqs: number[] = [];

  get size(): number {
    return this.items.length;
  }

  push(event: ClockEvent): void {
    const { items, ats, seqs } = this;
    const at = event.at;
    const seq = event.seq;
    // Sift up by moving parents down into the hole, then place the event once.
    let i = items.length;
    items.push(event);
    ats.push(at);
    seqs.push(seq);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pAt = ats[parent]!;
      if (pAt < at || (pAt === at && seqs[parent]! < seq)) break;
      items[i] = items[parent]!;
      ats[i] = pAt;
      seqs[i] = seqs[parent]!;
      i = parent;
    }
    items[i] = event;
    ats[i] = at;
    seqs[i] = seq;
  }

  peek(): ClockEvent | undefined {
    return this.items[0];
  }

  pop(): ClockEvent | undefined {
    const { items, ats, seqs } = this;
    const top = items[0];
    const last = items.pop();
    const lastAt = ats.pop()!;
    const lastSeq = seqs.pop()!;
    const size = items.length;
    if (size > 0 && last) {
      // Sift the last event down from the root through the hole.
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= size) break;
        const r = l + 1;
        const child = r < size && (ats[r]! < ats[l]! || (ats[r] === ats[l] && seqs[r]! < seqs[l]!)) ? r : l;
        const cAt = ats[child]!;
        if (!(cAt < lastAt || (cAt === lastAt && seqs[child]! < lastSeq))) break;
        items[i] = items[child]!;
        ats[i] = cAt;
        seqs[i] = seqs[child]!;
        i = child;
      }
      items[i] = last;
      ats[i] = lastAt;
      seqs[i] = lastSeq;
    }
    return top;
  }

  clear(): void {
    this.items = [];
    this.ats = [];
    this.seqs = [];
  }
}

/**
 * The pending events by id. Ids count up as events are scheduled and most events fire
 * soon after, so they sit in an array over the window of recent ids, a slot per id (no
 * hashing, and none of a Map's rehashing as events come and go by the million); an event
 * the window leaves far behind (a monthly renewal) moves to a Map, as does one restored
 * with an id outside the window.
 */
class EventsById {
  /** slots[i] is the event of id `base + i`, if pending; slots before `head` are all empty. */
  private slots: (ClockEvent | undefined)[] = [];
  private base = 0;
  private head = 0;
  /** How many events the window holds. */
  private inWindow = 0;
  private readonly far = new Map<number, ClockEvent>();

  get size(): number {
    return this.inWindow + this.far.size;
  }

  get(id: number): ClockEvent | undefined {
    const slot = id - this.base;
    const event = slot >= this.head && slot < this.slots.length ? this.slots[slot] : undefined;
    return event ?? (this.far.size > 0 ? this.far.get(id) : undefined);
  }

  /** Adds an event whose id is not pending. */
  add(event: ClockEvent): void {
    if (this.inWindow === 0) {
      // An empty window starts again at this id.
      this.slots = [];
      this.base = event.id;
      this.head = 0;
    }
    const slot = event.id - this.base;
    if (slot >= this.head && slot < this.slots.length + 1024) {
      while (this.slots.length < slot) this.slots.push(undefined);
      this.slots[slot] = event;
      this.inWindow++;
      this.spread();
    } else this.far.set(event.id, event);
  }

  delete(id: number): void {
    const slot = id - this.base;
    if (slot >= this.head && slot < this.slots.length && this.slots[slot] !== undefined) {
      this.slots[slot] = undefined;
      this.inWindow--;
      while (this.head < this.slots.length && this.slots[this.head] === undefined) this.head++;
      // The emptied front is given back once it is half the array.
      if (this.head > 1024 && this.head * 2 > this.slots.length) {
        this.slots = this.slots.slice(this.head);
        this.base += this.head;
        this.head = 0;
      }
    } else this.far.delete(id);
  }

  /** Keeps the window dense: events at its front that hold it open over many empty slots move to the Map. */
  private spread(): void {
    if (this.slots.length - this.head <= 4 * this.inWindow + 4096) return;
    while (this.slots.length - this.head > 2 * this.inWindow + 1024) {
      const event = this.slots[this.head];
      if (event !== undefined) {
        this.far.set(event.id, event);
        this.slots[this.head] = undefined;
        this.inWindow--;
      }
      this.head++;
    }
  }

  *values(): IterableIterator<ClockEvent> {
    for (let slot = this.head; slot < this.slots.length; slot++) if (this.slots[slot] !== undefined) yield this.slots[slot]!;
    yield* this.far.values();
  }

  clear(): void {
    this.slots = [];
    this.head = 0;
    this.inWindow = 0;
    this.far.clear();
  }
}

/**
 * A simulator's clock. Time moves only through `advance`, `advanceTo` and
 * `runUntilIdle` (manual mode), or with real time times `speed` (realtime mode).
 * @example
 * const clock = new VirtualClock(Date.parse('2026-03-02T09:00:00Z'))
 * clock.on('ping', (e) => console.log(e.at))
 * clock.schedule(clock.now() + 1000, 'ping', {})
 * await clock.advance('1s') // runs the ping handler at 09:00:01
 */
export class VirtualClock {
  private current: number;
  private seq = 0;
  private readonly pending = new EventsById();
  /** Pending events that are not periodic: what `runUntilIdle` waits for. */
  private work = 0;
  private readonly heap = new EventHeap();
  private readonly handlers = new Map<string, ClockEventHandler>();
  private readonly payloads = new Map<string, (payload: unknown) => Problem | undefined>();
  private readonly firedListeners: ((event: ClockEvent) => void)[] = [];
  private readonly movedListeners: ((move: ClockMove) => void)[] = [];
  private readonly modeListeners: ((mode: ClockMode, speed: number) => void)[] = [];
  private chain: Promise<unknown> = Promise.resolve();
  private clockMode: ClockMode = 'manual';
  private clockSpeed = 1;
  private realAnchor = 0;
  private simAnchor = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Infinity;
  private observer: ClockObserver | undefined;
  // A lone simulator has no one to yield to (its own requests wait for the move anyway), and
  // yielding costs a long move some 10-15% (V8 collects more often at the turns): a server
  // that hosts sandboxes turns slicing on for every simulator it hosts (SandboxHost).
  private slice = Infinity;
  private isYielding = false;
  /** The promise of the handler that ended a slice (a webhook delivery), for the move to await. */
  private awaited: Promise<void> | undefined;
  private moving = false;
  /** What `moveEnd()` answers while a move runs, resolved when it ends. */
  private ending: { promise: Promise<void>; resolve: () => void } | undefined;
  /** Counts disposals (reset and restore dispose too): a move that sees it change stops where it is. */
  private generation = 0;

  constructor(start: number, options: { sliceMs?: number } = {}) {
    this.current = checkStart(start);
    if (options.sliceMs !== undefined) this.sliceMs = options.sliceMs;
  }

  /**
   * The real time (ms) one slice of a move may take before the move yields to the event
   * loop: SLICE_MS on a server's simulators; 0 or Infinity (the default), a move never
   * yields. Slicing changes no result: the same events run in the same order.
   */
  get sliceMs(): number {
    return this.slice;
  }

  set sliceMs(ms: number) {
    if (!(ms >= 0)) throw new RangeError(`sliceMs must be a number of at least 0: ${ms}`);
    this.slice = ms;
  }

  /**
   * Whether a move is between two slices, waiting for its next turn of the event loop:
   * its events so far ran, the rest have not. A move awaiting an event's handler (a webhook
   * delivery in flight) is not yielding.
   */
  get yielding(): boolean {
    return this.isYielding;
  }

  /**
   * Resolves when the move now running has ended (its listeners told), before a move queued
   * behind it starts; at once when none runs. What a request that arrives while a move is
   * `yielding` waits for: it is answered between two moves, never on a half-moved clock, and
   * moves queued back to back (a realtime clock that cannot keep up) do not hold it longer.
   * @example while (clock.yielding) await clock.moveEnd()
   */
  moveEnd(): Promise<void> {
    if (!this.moving) return Promise.resolve();
    this.ending ??= waiting();
    return this.ending.promise;
  }

  /** Reports every later change of the pending queue to `observer` (undefined stops reporting). */
  observe(observer: ClockObserver | undefined): void {
    this.observer = observer;
  }

  /** The clock without its queue: what a snapshot holds besides the events. */
  head(): Omit<ClockSnapshot, 'events'> {
    return { now: this.now(), seq: this.seq, mode: this.clockMode, speed: this.clockSpeed };
  }

  /** The pending event with this id (ids are 1 to `head().seq`), for readers that walk the queue in slices. */
  pendingEvent(id: number): ClockEvent | undefined {
    return this.pending.get(id);
  }

  /** The current simulated time in epoch milliseconds. */
  now(): number {
    if (this.clockMode === 'realtime') {
      // Realtime stops at the end of the clock's range, as a move does.
      return Math.min(CLOCK_RANGE.max, Math.max(this.current, this.simAnchor + Math.floor((realNow() - this.realAnchor) * this.clockSpeed)));
    }
    return this.current;
  }

  get mode(): ClockMode {
    return this.clockMode;
  }

  get speed(): number {
    return this.clockSpeed;
  }

  /** Number of timers waiting to fire. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** Number of periodic timers waiting (renewals): they never let the queue become idle. */
  get periodicCount(): number {
    return this.pending.size - this.work;
  }

  /** Called after every event that fired (state may have changed). */
  onFired(listener: (event: ClockEvent) => void): void {
    this.firedListeners.push(listener);
  }

  /** Called after every move of the clock (advance, advanceTo, runUntilIdle, a realtime step), once its events ran. */
  onMoved(listener: (move: ClockMove) => void): void {
    this.movedListeners.push(listener);
  }

  /** Called after `setMode` (manual or realtime, and the speed). */
  onModeChanged(listener: (mode: ClockMode, speed: number) => void): void {
    this.modeListeners.push(listener);
  }

  /**
   * Registers the handler for one event type (one per type), with the kind of payload it
   * reads: a restored event of a type nobody handles, or with a payload its handler cannot
   * read, is refused before it could fail when due (`eventProblem`).
   */
  on<P>(type: string, handler: ClockEventHandler, payload?: FieldKind<P>): void {
    this.handlers.set(type, handler);
    if (payload) this.payloads.set(type, payload.check);
  }

  /** What keeps a pending event a snapshot brings from running: a type without a handler, or a payload it cannot read. */
  eventProblem(type: string, payload: unknown): Problem | undefined {
    if (!this.handlers.has(type)) return { at: '.type', message: `must be a clock event type of this simulator (${[...this.handlers.keys()].join(', ')})` };
    return within('.payload', this.payloads.get(type)?.(payload));
  }

  /**
   * Schedules an event; a time in the past fires at the next advance. Returns its id.
   * A `periodic` event (one that schedules its own successor forever) does not keep
   * `runUntilIdle` running.
   */
  schedule<P>(at: number, type: string, payload: P, options?: { periodic?: boolean }): number {
    const seq = ++this.seq;
    const event: ClockEvent = { id: seq, seq, at: Math.max(Math.round(at), this.current), type, payload };
    if (options?.periodic) event.periodic = true;
    this.add(event);
    this.armRealtime();
    return event.id;
  }

  /** Cancels a pending event; returns whether it was pending. */
  cancel(id: number): boolean {
    const event = this.pending.get(id);
    if (!event) return false;
    this.remove(event);
    return true;
  }

  /** The pending events in firing order. */
  pendingEvents(): ClockEvent[] {
    return [...this.pending.values()].sort((a, b) => (before(a, b) ? -1 : 1));
  }

  /** Moves time forward by `duration` (at most MAX_MOVE_MS, never past CLOCK_RANGE), running every event due on the way, in order. */
  advance(duration: Duration): Promise<number> {
    const ms = parseDuration(duration);
    if (ms > MAX_MOVE_MS) throw new RangeError('The clock moves at most ten years at a time.');
    // Checked when the move runs: a move queued behind another starts where that one ends.
    return this.serial(() => this.move('advance', () => this.runTo(beforeEnd(this.now() + ms))));
  }

  /** Moves time to `time` (epoch ms or ISO text), at most MAX_MOVE_MS ahead, never past CLOCK_RANGE; a time in the past is refused. */
  advanceTo(time: number | string): Promise<number> {
    const target = typeof time === 'number' ? time : Date.parse(time);
    if (!Number.isFinite(target)) throw new RangeError(`Invalid time: ${time}`);
    if (target < this.now()) throw new RangeError('The clock cannot move backwards.');
    if (target - this.now() > MAX_MOVE_MS) throw new RangeError('The clock moves at most ten years at a time.');
    return this.serial(() => this.move('advance', () => this.runTo(beforeEnd(target))));
  }

  /**
   * Runs pending events in order, moving time to each, until no work is left (only
   * periodic events, such as renewals, remain), `maxEvents` ran, or the next event is
   * due beyond the horizon: MAX_MOVE_MS after the time it started at (and never past
   * CLOCK_RANGE), as far as one advance goes. Periodic events due before the last piece
   * of work run on the way.
   */
  runUntilIdle(options: { maxEvents?: number } = {}): Promise<number> {
    const max = options.maxEvents ?? 1_000_000;
    return this.serial(() =>
      this.move('run_until_idle', () => this.runEvents(Math.min(this.now() + MAX_MOVE_MS, CLOCK_RANGE.max), true, max)),
    );
  }

  /** Switches between manual and realtime (`speed` simulated ms per real ms). */
  setMode(mode: ClockMode, speed = this.clockSpeed): void {
    if (!(speed >= SPEED_RANGE.min && speed <= SPEED_RANGE.max)) throw new RangeError(`speed must be a number from ${SPEED_RANGE.min} to ${SPEED_RANGE.max}`);
    this.current = this.now();
    this.clockMode = mode;
    this.clockSpeed = speed;
    this.realAnchor = realNow();
    this.simAnchor = this.current;
    this.disarmRealtime();
    this.armRealtime();
    for (const listener of this.modeListeners) listener(mode, speed);
  }

  /**
   * Stops realtime timers and drops every pending event (the simulator is being reset or
   * discarded). A move between slices stops there: no event runs after this, and the move
   * resolves with what it ran, without moving the clock further or telling the listeners.
   */
  dispose(): void {
    this.generation++;
    this.disarmRealtime();
    this.pending.clear();
    this.heap.clear();
    this.work = 0;
    this.observer?.clear();
  }

  /** Sets the time and empties the queue; used by reset. */
  reset(start: number): void {
    checkStart(start);
    this.dispose();
    this.current = start;
    this.seq = 0;
    this.clockMode = 'manual';
    this.clockSpeed = 1;
  }

  snapshot(): ClockSnapshot {
    return {
      now: this.now(),
      seq: this.seq,
      mode: this.clockMode,
      speed: this.clockSpeed,
      events: this.pendingEvents().map((e) => ({ ...e })),
    };
  }

  restore(snapshot: ClockSnapshot): void {
    this.reset(snapshot.now);
    this.seq = snapshot.seq;
    for (const saved of snapshot.events) {
      // One object in both places: the queue recognises live entries by identity.
      this.add({ ...saved });
    }
    this.setMode(snapshot.mode, snapshot.speed);
  }

  private nextPending(): ClockEvent | undefined {
    for (let top = this.heap.peek(); top; top = this.heap.peek()) {
      const live = this.pending.get(top.id);
      if (live === top) return top;
      this.heap.pop();
    }
    return undefined;
  }

  /** Runs one move and tells the listeners what it did (not when the clock was disposed or reset during it). */
  private async move(by: ClockMove['by'], work: () => Promise<number>): Promise<number> {
    const from = this.now();
    const generation = this.generation;
    this.moving = true;
    try {
      const ran = await work();
      if (generation !== this.generation) return ran;
      const move: ClockMove = { by, from, to: this.now(), ran };
      for (const listener of this.movedListeners) listener(move);
      return ran;
    } finally {
      this.moving = false;
      // Resolved here, a few microtask turns before the next queued move can start: the waiting requests go first.
      const ending = this.ending;
      this.ending = undefined;
      ending?.resolve();
    }
  }

  /** Runs the events due up to `target` (in slices: `runEvents`), then sets the clock there. */
  private async runTo(target: number): Promise<number> {
    const generation = this.generation;
    const ran = await this.runEvents(target, false, Infinity);
    // Disposed or reset meanwhile: the rest of the move belonged to a state that is gone.
    if (generation !== this.generation) return ran;
    if (target > this.current) this.current = target;
    if (this.clockMode === 'realtime') {
      this.simAnchor = this.current;
      this.realAnchor = realNow();
    }
    return ran;
  }

  /**
   * Runs the events due by `until` in order (with `untilIdle`, only while work is pending),
   * at most `max`, in slices of about `sliceMs` of real time; between two the move yields
   * to the event loop (setImmediate, so I/O and other simulators' requests run) and is
   * `yielding`. An event whose handler answers a promise (a webhook delivery) is awaited,
   * and that wait is no yield: the delivery's receiver often calls the API back before it
   * answers, and that request must be answered at once (it would wait for the move, which
   * waits for it). A dispose (or reset) stops the run at its next slice or await.
   */
  private async runEvents(until: number, untilIdle: boolean, max: number): Promise<number> {
    const generation = this.generation;
    const budget = this.slice > 0 ? this.slice : Infinity;
    let ran = 0;
    for (;;) {
      ran += this.runSlice(until, untilIdle, max - ran, budget);
      const awaited = this.awaited;
      if (awaited) {
        this.awaited = undefined;
        await awaited;
      } else if (ran < max && this.due(until, untilIdle)) await this.yieldTurn();
      else return ran;
      if (generation !== this.generation) return ran;
    }
  }

  /**
   * One slice: fires due events until `budget` ms of real time are spent, `left` ran, none
   * is due, or one answers a promise (left in `awaited`). The hot loop is a plain function,
   * optimized once and called per slice, rather than a loop inside the async move that
   * resumes after every yield. Answers how many ran.
   */
  private runSlice(until: number, untilIdle: boolean, left: number, budget: number): number {
    const end = budget === Infinity ? Infinity : sliceNow() + budget;
    let ran = 0;
    while (ran < left && (!untilIdle || this.work > 0)) {
      const next = this.nextPending();
      if (!next || next.at > until) break;
      const pending = this.fire(next);
      ran++;
      if (pending) {
        this.awaited = pending;
        break;
      }
      if (end !== Infinity && sliceNow() >= end) break;
    }
    return ran;
  }

  /** Whether an event is due by `until` (with `untilIdle`: and work is pending). */
  private due(until: number, untilIdle: boolean): boolean {
    if (untilIdle && this.work === 0) return false;
    const next = this.nextPending();
    return next !== undefined && next.at <= until;
  }

  private add(event: ClockEvent): void {
    this.pending.add(event);
    this.heap.push(event);
    if (!event.periodic) this.work++;
    this.observer?.put(event);
  }

  /** Takes a pending event out of the queue's book-keeping (the heap drops it lazily). */
  private remove(event: ClockEvent): void {
    this.pending.delete(event.id);
    if (!event.periodic) this.work--;
    this.observer?.delete(event.id);
  }

  /**
   * Runs one event. A handler that answers a promise (a webhook delivery) is awaited; the
   * rest run without a trip through the microtask queue, which would cost more than many
   * handlers do. Answers the promise to await, if any.
   */
  private fire(event: ClockEvent): Promise<void> | undefined {
    this.heap.pop();
    this.remove(event);
    if (event.at > this.current) this.current = event.at;
    const handler = this.handlers.get(event.type);
    if (!handler) throw new Error(`No handler registered for clock event "${event.type}"`);
    const result = handler(event);
    if (result) return result.then(() => this.fired(event));
    this.fired(event);
    return undefined;
  }

  private fired(event: ClockEvent): void {
    for (const listener of this.firedListeners) listener(event);
  }

  /** Lets the event loop run one turn (its I/O, other simulators' requests) between two slices of a move. */
  private async yieldTurn(): Promise<void> {
    this.isYielding = true;
    try {
      await new Promise<void>((resume) => nextTurn(resume));
    } finally {
      this.isYielding = false;
    }
  }

  /** Clock moves run one after another, even when requested concurrently. */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.chain.then(work, work);
    this.chain = run.catch(() => undefined);
    return run;
  }

  private armRealtime(): void {
    if (this.clockMode !== 'realtime') return;
    const next = this.nextPending();
    // An event due after the end of the clock's range never comes: realtime stops there.
    if (!next || next.at > CLOCK_RANGE.max) return;
    // A timer already waiting for an earlier (or the same) event stays; a later one is re-armed.
    if (this.timer && this.timerAt <= next.at) return;
    this.disarmRealtime();
    const wait = Math.max(0, (next.at - this.now()) / this.clockSpeed);
    this.timerAt = next.at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      void this.serial(() => this.move('realtime', () => this.runTo(this.now()))).finally(() => this.armRealtime());
    }, Math.min(wait, 2_147_483_647));
    this.timer.unref?.();
  }

  private disarmRealtime(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }
}
