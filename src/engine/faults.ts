/**
 * Forced request failures (ARCHITECTURE §6 `/__sim/faults`): the next `times` requests
 * to a route fail and change nothing: with the route's documented failure (status 500,
 * the default), a gateway's 502, 503 or 504, or a 429 of shape R with a `Retry-After`
 * header (live-platform H.11). Rules are data with their own snapshot, like webhook
 * failure rules.
 */

import { COMMON_MESSAGES, shapeA, shapeR, type SimError } from '../core/errors.js';
import { CountedRules } from '../core/counted-rules.js';

/** The statuses a fault answers with (live-platform H.11). */
export const FAULT_STATUSES = [429, 500, 502, 503, 504] as const;
export type FaultStatus = (typeof FAULT_STATUSES)[number];
/** A 429 fault's `retry_after` when none is given (decision). */
export const DEFAULT_RETRY_AFTER = 60;

export interface FaultRule {
  id: number;
  method: string;
  /** A route pattern (`/user/assistant/:id`) or a concrete path, normalised. */
  path: string;
  times: number;
  status: FaultStatus;
  /** Seconds a 429 tells the client to wait (null for the other statuses). */
  retry_after: number | null;
}

/** What `add` takes: the status defaults to 500; `retry_after` is read only with 429. */
export interface FaultInput {
  method: string;
  path: string;
  times: number;
  status?: FaultStatus | undefined;
  retry_after?: number | undefined;
}

/** Decision: a gateway's failure is shape A with its reason phrase, as the platform's own 500 is. */
const GATEWAY_MESSAGES: Readonly<Record<number, string>> = { 502: 'Bad Gateway.', 503: 'Service Unavailable.', 504: 'Gateway Timeout.' };

/**
 * The error a matched fault answers (live-platform H.11): 500 the route's documented
 * failure (else shape A `Server Error.`), 429 shape R with `Retry-After`, 502/503/504
 * shape A with the reason phrase.
 * @example faultFailure({ status: 429, retry_after: 30 }, undefined) // 429 {message: 'Too Many Attempts.', retry_after: 30}, Retry-After: 30
 */
export function faultFailure(rule: Pick<FaultRule, 'status' | 'retry_after'>, routeFailure: (() => SimError) | undefined): SimError {
  if (rule.status === 429) return shapeR(rule.retry_after ?? DEFAULT_RETRY_AFTER);
  if (rule.status !== 500) return shapeA(rule.status, GATEWAY_MESSAGES[rule.status]!);
  return routeFailure?.() ?? shapeA(500, COMMON_MESSAGES.serverError);
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
  add(input: FaultInput): FaultRule {
    const status = input.status ?? 500;
    const retryAfter = status === 429 ? (input.retry_after ?? DEFAULT_RETRY_AFTER) : null;
    return this.rules.add({ method: input.method, path: normalisePath(input.path), times: input.times, status, retry_after: retryAfter });
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

  /** Consumes a rule matching the request (by route pattern or by concrete path), if any; answers whether one matched. */
  take(method: string, routePath: string, requestPath: string): boolean {
    return this.hit(method, routePath, requestPath) !== undefined;
  }

  /** Consumes a rule matching the request, as `take`; answers the rule (what it fails with: `faultFailure`). */
  hit(method: string, routePath: string, requestPath: string): FaultRule | undefined {
    if (this.rules.size === 0) return undefined;
    const concrete = normalisePath(requestPath);
    return this.rules.take((r) => r.method === method && (r.path === routePath || r.path === concrete));
  }

  snapshot(): FaultSnapshot {
    return this.rules.snapshot();
  }

  /** A snapshot's rules; one saved before faults had a status (H.11) fails with 500, as it did. */
  restore(state: FaultSnapshot): void {
    this.rules.restore({ ...state, rules: state.rules.map((r) => ({ ...r, status: r.status ?? 500, retry_after: r.retry_after ?? (r.status === 429 ? DEFAULT_RETRY_AFTER : null) })) });
  }
}
