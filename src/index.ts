/**
 * voxsim: a local, stateful, deterministic simulator of the Voice and Chat Assistant
 * Platform API.
 * @example
 * import { createSimulator } from 'voxsim'
 * const sim = createSimulator({ seed: 1, startAt: '2026-03-02T09:00:00Z' })
 */
import { createSimulator, ROUTES } from './simulator.js';
import type { DriftOptions, DriftReport } from './recording/drift.js';
import type { Exchange } from './recording/har.js';
import type { RecordOptions, RecordingProxy } from './recording/proxy.js';

export { createSimulator, Simulator, type SimulatorOptions } from './simulator.js';
export { VirtualClock, parseDuration, type Duration, type ClockEvent, type ClockMode, type ClockMove } from './core/clock.js';
export { EventBus, matchesFilter, toWire, type EventFilter, type EventMap, type SimEventOf, type Subscription } from './core/events.js';
export { SIM_EVENT_SCHEMAS } from './domain/sim-events.js';
export type { SimRequest, SimResponse } from './core/http.js';
export { DEFAULT_API_KEY } from './domain/accounts/schema.js';
export { VERSION } from './version.js';
export type * from './types.js';
export type { RecordOptions, RecordingProxy } from './recording/proxy.js';
export { HarError, readHar, type HarLog, type HarEntry, type Exchange } from './recording/har.js';
export type { DriftOptions, DriftReport, ExchangeResult, OperationSummary, LocatedDifference, MissingPrerequisite } from './recording/drift.js';
export type { Difference } from './recording/compare.js';

/**
 * Replays a recorded session (HAR 1.2: its text, its parsed object or `readHar`'s
 * exchanges) on a fresh simulator and reports where the answers differ (issue 28).
 * @example const report = await drift(readFileSync('session.har', 'utf8'), { wire: 'live' }); expect(report.differences).toEqual([])
 */
export async function drift(har: string | object | Exchange[], options: DriftOptions = {}): Promise<DriftReport> {
  // The recording modules (and node:http, node:https, node:zlib) load on first use, not with voxsim (issue 29).
  const { replayDrift } = await import('./recording/drift.js');
  return replayDrift(har, options, { createHost: (o) => createSimulator(o), routes: ROUTES as never });
}

/**
 * Starts a recording proxy in front of the live platform (docs/recording.md); resolves once it listens.
 * @example const proxy = await recordHar({ upstream: 'https://api.example.com/api', out: 'session.har' }); // point the client at proxy.url
 */
export async function recordHar(options: RecordOptions): Promise<RecordingProxy> {
  return (await import('./recording/proxy.js')).recordHar(options);
}
