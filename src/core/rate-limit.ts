/**
 * Sliding-window rate limits on the virtual clock: at most `max` accepted requests in
 * any `windowMs` before now. Only accepted requests are counted, so a refusal never
 * extends the wait. The times are kept by the caller (on the account record), so they
 * are part of the state.
 */

export interface SlidingLimit {
  max: number;
  windowMs: number;
}

/**
 * Seconds until the oldest counted request leaves the window (at least 1) when the
 * limit is reached; `undefined` while a request may pass.
 * @example retryAfter([0, 100, 200, 300, 400], 500, { max: 5, windowMs: 1000 }) // 1
 */
export function retryAfter(times: readonly number[], now: number, limit: SlidingLimit): number | undefined {
  const recent = times.filter((t) => t > now - limit.windowMs);
  if (recent.length < limit.max) return undefined;
  return Math.max(1, Math.ceil((recent[recent.length - limit.max]! + limit.windowMs - now) / 1000));
}

/**
 * The times to keep after accepting a request now: the window's last `max` entries.
 * @example counted([0, 100], 500, { max: 5, windowMs: 1000 }) // [0, 100, 500]
 */
export function counted(times: readonly number[], now: number, limit: SlidingLimit): number[] {
  return [...times.filter((t) => t > now - limit.windowMs), now].slice(-limit.max);
}
