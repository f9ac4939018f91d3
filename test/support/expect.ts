/**
 * Assertions the contract suites share: an answer's exact status and body, the shape-B
 * body of a 422, and "refused and nothing changed" (compared through a whole snapshot).
 */
import { expect } from 'vitest';
import { SimError } from '../../src/core/errors.js';
import type { Api, ApiResponse } from './api.js';

/** Everything the simulator holds (tables, clock and queue, random state, scripts, webhooks), as text. */
export const stateOf = (api: Api): string => JSON.stringify(api.sim.snapshot());

/** The answer has exactly this status and body (the body text is shown when the status differs). */
export function expectAnswer(res: ApiResponse, status: number, body: unknown): void {
  expect(res.status, res.text).toBe(status);
  expect(res.body).toStrictEqual(body);
}

/** A 422 shape B with these fields' messages: the first message, and how many more (spec: Errors). */
export function invalid(errors: Record<string, string[]>) {
  const all = Object.values(errors).flat();
  const others = all.length - 1;
  return { message: others > 0 ? `${all[0]} (and ${others} more error${others === 1 ? '' : 's'})` : all[0], errors };
}

/** A 422 shape B with one field's messages. */
export const invalidField = (field: string, ...messages: string[]) => invalid({ [field]: messages });

/** The 422 of a damaged snapshot (`PUT /__sim/state`): shape B on the damaged path. */
export const damagedSnapshot = (path: string, problem: string) => invalidField(path, `The snapshot is damaged at ${path}: ${problem}.`);

/** `send` is refused with exactly `status` and `body`, and the whole state is as it was. */
export async function expectRefused(api: Api, send: () => Promise<ApiResponse>, status: number, body: unknown, label?: string): Promise<void> {
  const before = stateOf(api);
  expectAnswer(await send(), status, body);
  expect(stateOf(api), label).toBe(before);
}

/** The status and body of the SimError an in-process operation (`sim.control…`, `sim.reset`) refuses with; one that is taken, or throws anything else, fails the test. */
export async function simRefusal(operation: () => unknown): Promise<{ status: number; body: unknown }> {
  try {
    await operation();
  } catch (error) {
    if (error instanceof SimError) return { status: error.status, body: error.body };
    throw error;
  }
  throw new Error('the operation was accepted');
}
