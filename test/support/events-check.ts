/**
 * Checks every event a simulator emits against its schema in SIM_EVENT_SCHEMAS (the
 * source of the exported event types), so that what is emitted cannot drift from the
 * types and the table in docs/events.md. The contract suites watch every simulator they build.
 */
import { z } from 'zod';
import { SIM_EVENT_SCHEMAS, type SimEventType } from '../../src/domain/sim-events.js';
import type { Simulator } from '../../src/simulator.js';

/** Watches `sim.events`; the answer lists the events seen so far that do not match their schema (empty when all do). */
export function watchEventSchemas(sim: Simulator): () => string[] {
  const problems: string[] = [];
  sim.events.on('*', (event) => {
    const schema = SIM_EVENT_SCHEMAS[event.type as SimEventType] as z.ZodType | undefined;
    if (schema === undefined) return void problems.push(`${event.type}: no schema in SIM_EVENT_SCHEMAS`);
    const result = schema.safeParse(event.data);
    if (!result.success) problems.push(`${event.type} ${JSON.stringify(event.data)}: ${z.prettifyError(result.error)}`);
  });
  return () => problems;
}
