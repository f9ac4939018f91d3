/**
 * Forced request failures (ARCHITECTURE §6 `/__sim/faults`): the next `times` requests
 * to a route fail with the route's documented failure and change nothing. Rules are
 * data with their own snapshot, like webhook failure rules.
 */

export interface FaultRule {
  id: number;
  method: string;
  /** A route pattern (`/user/assistant/:id`) or a concrete path, normalised. */
  path: string;
  times: number;
}

export interface FaultSnapshot {
  rules: FaultRule[];
  seq: number;
}

/** `/user//me/?x` -> `/user/me`: how paths are compared. */
function normalisePath(path: string): string {
  return '/' + path.split('?')[0]!.split('/').filter(Boolean).join('/');
}

/**
 * The fault rules of one simulator.
 * @example
 * faults.add({ method: 'DELETE', path: '/user/assistant/:id', times: 1 })
 * faults.take('DELETE', '/user/assistant/:id', '/user/assistant/4') // true, once
 */
export class FaultEngine {
  private rules: FaultRule[] = [];
  private seq = 0;

  /** Adds a rule; answers it as stored. */
  add(input: { method: string; path: string; times: number }): FaultRule {
    const rule: FaultRule = { id: ++this.seq, method: input.method, path: normalisePath(input.path), times: input.times };
    this.rules.push(rule);
    return { ...rule };
  }

  list(): FaultRule[] {
    return this.rules.map((r) => ({ ...r }));
  }

  clear(): void {
    this.rules = [];
  }

  /** Consumes a rule matching the request (by route pattern or by concrete path), if any. */
  take(method: string, routePath: string, requestPath: string): boolean {
    const concrete = normalisePath(requestPath);
    const rule = this.rules.find((r) => r.method === method && (r.path === routePath || r.path === concrete));
    if (!rule) return false;
    rule.times -= 1;
    if (rule.times <= 0) this.rules = this.rules.filter((r) => r !== rule);
    return true;
  }

  snapshot(): FaultSnapshot {
    return { rules: this.list(), seq: this.seq };
  }

  restore(state: FaultSnapshot): void {
    this.rules = state.rules.map((r) => ({ ...r }));
    this.seq = state.seq;
  }
}
