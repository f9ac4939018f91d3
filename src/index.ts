/**
 * voxsim: a local, stateful, deterministic simulator of the Voice and Chat Assistant
 * Platform API.
 * @example
 * import { createSimulator } from 'voxsim'
 * const sim = createSimulator({ seed: 1, startAt: '2026-03-02T09:00:00Z' })
 */
import { createSimulator, ROUTES } from './simulator.js';
import { replayDrift, type DriftOptions, type DriftReport } from './recording/drift.js';
import type { Exchange } from './recording/har.js';

export { createSimulator, Simulator, type SimulatorOptions } from './simulator.js';
export { VirtualClock, parseDuration, type Duration, type ClockEvent, type ClockMode, type ClockMove } from './core/clock.js';
export { EventBus, matchesFilter, toWire, type EventFilter, type EventMap, type SimEventOf, type Subscription } from './core/events.js';
export { SIM_EVENT_SCHEMAS } from './domain/sim-events.js';
export type { SimRequest, SimResponse } from './core/http.js';
export { DEFAULT_API_KEY } from './domain/accounts/schema.js';
export { VERSION } from './version.js';
export type * from './types.js';
export { recordHar, type RecordOptions, type RecordingProxy } from './recording/proxy.js';
export { HarError, readHar, type HarLog, type HarEntry, type Exchange } from './recording/har.js';
export type { DriftOptions, DriftReport, ExchangeResult, OperationSummary, LocatedDifference, MissingPrerequisite } from './recording/drift.js';
export type { Difference } from './recording/compare.js';

/**
 * Replays a recorded session (HAR 1.2: its text, its parsed object or `readHar`'s
 * exchanges) on a fresh simulator and reports where the answers differ (issue 28).
 * @example const report = await drift(readFileSync('session.har', 'utf8'), { wire: 'live' }); expect(report.differences).toEqual([])
 */
export function drift(har: string | object | Exchange[], options: DriftOptions = {}): Promise<DriftReport> {
  return replayDrift(har, options, { createHost: (o) => createSimulator(o), routes: ROUTES as never });
}
