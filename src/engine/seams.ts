/**
 * Where the engines take over. A started campaign schedules a dial event and
 * `make_call` a call-start event; dialing and the call lifecycle are not simulated yet,
 * so these events leave the campaign `in-progress` and the call `initiated`.
 */
import { DIAL_EVENT } from '../domain/campaigns/service.js';
import { CALL_START_EVENT } from '../domain/calls/service.js';
import type { VirtualClock } from '../core/clock.js';

export function registerEngineSeams(clock: VirtualClock): void {
  clock.on(DIAL_EVENT, () => undefined);
  clock.on(CALL_START_EVENT, () => undefined);
}
