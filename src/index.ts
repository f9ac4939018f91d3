/**
 * voxsim: a local, stateful, deterministic simulator of the Voice and Chat Assistant
 * Platform API.
 * @example
 * import { createSimulator } from 'voxsim'
 * const sim = createSimulator({ seed: 1, startAt: '2026-03-02T09:00:00Z' })
 */
export { createSimulator, Simulator, type SimulatorOptions } from './simulator.js';
export { VirtualClock, parseDuration, type Duration, type ClockEvent, type ClockMode, type ClockMove } from './core/clock.js';
export { EventBus, matchesFilter, toWire, type EventFilter, type EventMap, type SimEventOf, type Subscription } from './core/events.js';
export { SIM_EVENT_SCHEMAS } from './domain/sim-events.js';
export type { SimRequest, SimResponse } from './core/http.js';
export { DEFAULT_API_KEY } from './domain/accounts/schema.js';
export { VERSION } from './version.js';
export type * from './types.js';
