/**
 * The simulator's event stream: every state change an integrator may want to watch
 * (campaign, lead and call status, idle reasons), stamped with the clock time. A
 * bounded journal keeps the latest events for inspection.
 */

export interface SimEvent {
  /** e.g. `call.status`, `lead.status`, `campaign.status`, `campaign.idle`. */
  type: string;
  /** Clock time in epoch milliseconds. */
  at: number;
  seq: number;
  data: Record<string, unknown>;
}

export type SimEventListener = (event: SimEvent) => void;

/**
 * @example
 * sim.events.on('call.status', (e) => console.log(e.at, e.data.status))
 * sim.events.on('*', (e) => log.push(e))
 */
export class EventBus {
  private readonly listeners = new Map<string, Set<SimEventListener>>();
  private journal: SimEvent[] = [];
  private start = 0;
  private seq = 0;

  constructor(private readonly limit = 10_000) {}

  /** Listens to one type, or to every event with `*`; returns a function that stops listening. */
  on(type: string, listener: SimEventListener): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(listener);
    return () => this.off(type, listener);
  }

  off(type: string, listener: SimEventListener): void {
    this.listeners.get(type)?.delete(listener);
  }

  emit(type: string, at: number, data: Record<string, unknown>): void {
    const event: SimEvent = { type, at, seq: ++this.seq, data };
    // A ring buffer: the journal keeps the latest `limit` events without copying.
    if (this.journal.length < this.limit) this.journal.push(event);
    else {
      this.journal[this.start] = event;
      this.start = (this.start + 1) % this.limit;
    }
    for (const key of [type, '*']) {
      const set = this.listeners.get(key);
      if (set) for (const listener of set) listener(event);
    }
  }

  /** The latest events, oldest first, optionally of one type. */
  history(type?: string): SimEvent[] {
    const ordered = [...this.journal.slice(this.start), ...this.journal.slice(0, this.start)];
    return type === undefined ? ordered : ordered.filter((e) => e.type === type);
  }

  /** How many events were emitted in all (the journal keeps the latest). */
  get count(): number {
    return this.seq;
  }

  clear(): void {
    this.journal = [];
    this.start = 0;
    this.seq = 0;
  }
}
