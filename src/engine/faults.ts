/**
 * Forced request failures (ARCHITECTURE §6 `/__sim/faults`): the next `times` requests
 * to a route fail with the route's documented failure and change nothing. Rules are
 * data with their own snapshot, like webhook failure rules.
 */

import { CountedRules } from '../core/counted-rules.js';

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
  private readonly rules = new CountedRules<FaultRule>();

  /** Adds a rule; answers it as stored. */
  add(input: { method: string; path: string; times: number }): FaultRule {
    return this.rules.add({ method: input.method, path: normalisePath(input.path), times: input.times });
  }

  list(): FaultRule[] {
    return this.rules.list();
  }

  /** Grows with every change of the rules (the state file writes them only when it moved). */
  get revision(): number {
    return this.rules.revision;
  }

  clear(): void {
    this.rules.clear();
  }

  /** Drops the rules and starts ids again (the simulator is reset). */
  reset(): void {
    this.rules.reset();
  }

  /** Consumes a rule matching the request (by route pattern or by concrete path), if any. */
  take(method: string, routePath: string, requestPath: string): boolean {
    if (this.rules.size === 0) return false;
    const concrete = normalisePath(requestPath);
    return this.rules.take((r) => r.method === method && (r.path === routePath || r.path === concrete)) !== undefined;
  }

  snapshot(): FaultSnapshot {
    return this.rules.snapshot();
  }

  restore(state: FaultSnapshot): void {
    this.rules.restore(state);
  }
}
