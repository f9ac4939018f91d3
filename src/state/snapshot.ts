/**
 * The snapshot of a whole simulator (`sim.snapshot()`, `GET /__sim/state`, the state
 * file): every table, the clock with its pending events, the random generator's
 * position, webhook deliveries and failure rules, fault rules, reply and outcome
 * scripts. Plain JSON; a snapshot is checked whole before anything is restored.
 */
import { z } from 'zod';
import { COMMON_MESSAGES } from '../core/errors.js';
import type { ClockSnapshot, VirtualClock } from '../core/clock.js';
import { SeededRandom, type RandomState } from '../core/random.js';
import { attributeName, deepPathText, MAX_SNAPSHOT_DEPTH, tooDeepAt } from '../core/validation.js';
import type { FaultEngine, FaultSnapshot } from '../engine/faults.js';
import { OutcomeRuleSchema, type OutcomeScript, type OutcomeState } from '../engine/outcomes.js';
import { ReplyRuleSchema, type ReplyRule, type ReplyScript } from '../engine/replies.js';
import type { WebhookEngine, WebhookSnapshot } from '../engine/webhooks.js';
import type { Database } from '../domain/db.js';
import { VERSION } from '../version.js';

export const SNAPSHOT_FORMAT = 'voxsim-snapshot/1';

/** Everything `restore()` needs; plain JSON. */
export interface SimulatorSnapshot {
  format: typeof SNAPSHOT_FORMAT;
  version: string;
  seed: number;
  start: number;
  clock: ClockSnapshot;
  random: RandomState;
  db: ReturnType<Database['snapshot']>;
  webhooks: WebhookSnapshot;
  replies: ReplyRule[];
  outcomes: OutcomeState;
  faults: FaultSnapshot;
}

/** The parts of a simulator a snapshot is taken from and restored into. */
export interface SnapshotParts {
  readonly clock: VirtualClock;
  readonly db: Database;
  readonly webhooks: WebhookEngine;
  readonly replies: ReplyScript;
  readonly outcomes: OutcomeScript;
  readonly faults: FaultEngine;
}

const uint32 = z.number().int().min(0).max(0xffffffff);
/** A time a Date can hold (±8.64e15 ms): beyond it no clock arithmetic is exact. */
const instant = z.number().int().min(-8.64e15).max(8.64e15);
/**
 * Rows are checked in one plain loop after the schema (`damagedRow`), not element by
 * element through it: a state of 300k rows is checked in milliseconds.
 */
const rowArray = z.custom<{ id: number }[]>((value) => Array.isArray(value), { message: 'Invalid input: expected array' });

/** Where the first row that is not an object with a positive whole id is, and what is wrong with it. */
function damagedRow(snapshot: SimulatorSnapshot): { path: string; message: string } | undefined {
  const tables: [string, unknown[]][] = [...Object.entries(snapshot.db).map(([name, t]) => [`db.${name}`, t.rows] as [string, unknown[]]), ['webhooks.deliveries', snapshot.webhooks.deliveries.rows]];
  for (const [where, rows] of tables) {
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i] as { id?: unknown } | null;
      if (row === null || typeof row !== 'object' || Array.isArray(row)) return { path: `${where}.rows.${i}`, message: 'each row must be an object' };
      if (!Number.isSafeInteger(row.id) || (row.id as number) < 1) return { path: `${where}.rows.${i}.id`, message: 'must be a positive whole number' };
    }
  }
  return undefined;
}
const tableSnapshot = z.object({ seq: z.number().int().min(0), rows: rowArray });
const clockEvent = z.object({ id: z.number().int(), seq: z.number().int(), at: instant, type: z.string(), payload: z.unknown(), periodic: z.literal(true).optional() });

/** The shape a snapshot must have to be restored (every table present, the clock and scripts well-formed). */
function snapshotSchema(tables: string[], newer: string[] = []) {
  return z.object({
    format: z.literal(SNAPSHOT_FORMAT),
    version: z.string(),
    seed: z.number().int().min(0),
    start: instant,
    clock: z.object({
      now: instant,
      seq: z.number().int().min(0),
      mode: z.enum(['manual', 'realtime']),
      speed: z.number().positive().finite(),
      // Events are few next to rows (the pending queue), each checked whole.
      events: z.array(clockEvent),
    }),
    random: z.tuple([uint32, uint32, uint32, uint32]),
    db: z.object(Object.fromEntries(tables.map((name) => [name, newer.includes(name) ? tableSnapshot.optional() : tableSnapshot]))),
    webhooks: z.object({ deliveries: tableSnapshot, rules: z.array(z.object({ id: z.number().int() }).passthrough()), ruleSeq: z.number().int().min(0), evicted: z.number().int().min(0) }),
    replies: z.array(ReplyRuleSchema),
    outcomes: z.object({ rules: z.array(OutcomeRuleSchema), attempts: z.record(z.string(), z.number().int().min(0)) }),
    faults: z.object({ rules: z.array(z.object({ id: z.number().int() }).passthrough()), seq: z.number().int().min(0) }),
  });
}

/**
 * Takes the snapshot of `parts`, with the seed, the clock's start and the generator.
 * @example const saved = takeSnapshot(parts, { seed: 1, start, random })
 */
export function takeSnapshot(parts: SnapshotParts, meta: { seed: number; start: number; random: SeededRandom }): SimulatorSnapshot {
  return {
    format: SNAPSHOT_FORMAT,
    version: VERSION,
    seed: meta.seed,
    start: meta.start,
    clock: parts.clock.snapshot(),
    random: meta.random.state,
    db: parts.db.snapshot(),
    webhooks: parts.webhooks.snapshot(),
    replies: parts.replies.list(),
    outcomes: parts.outcomes.snapshot(),
    faults: parts.faults.snapshot(),
  };
}

/**
 * Replaces the state of `parts` with a snapshot's; answers the generator to continue
 * from. A snapshot that is not whole and well-formed is refused with a TypeError
 * before anything changes. With `owned` the snapshot's objects become the state (the
 * caller must not use them again); otherwise they are copied.
 */
export function restoreSnapshot(parts: SnapshotParts, snapshot: SimulatorSnapshot, owned = false): SeededRandom {
  if (snapshot?.format !== SNAPSHOT_FORMAT) throw new TypeError(`Not a voxsim snapshot (expected format "${SNAPSHOT_FORMAT}").`);
  // PUT /__sim/state's limit, checked first: deeper JSON would break the schema's copies, later copies and saves.
  const deep = tooDeepAt(snapshot, 1, MAX_SNAPSHOT_DEPTH);
  if (deep) throw new TypeError(`The snapshot is damaged at ${deepPathText(deep)}: ${COMMON_MESSAGES.tooDeep('snapshot', MAX_SNAPSHOT_DEPTH)}`);
  const checked = snapshotSchema(parts.db.tableNames(), parts.db.tablesNewerThanFormat()).safeParse(snapshot);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    // A rule's own message names its field as `:attribute` (the reply and outcome schemas are the API's).
    throw new TypeError(`The snapshot is damaged at ${issue.path.join('.') || 'its top level'}: ${issue.message.replaceAll(':attribute', attributeName(issue.path))}`);
  }
  const row = damagedRow(snapshot);
  if (row) throw new TypeError(`The snapshot is damaged at ${row.path}: ${row.message}`);
  // A snapshot the caller gives up (a state file just parsed) is used as it is: no second copy.
  const copy = owned ? snapshot : structuredClone(snapshot);
  const random = new SeededRandom(copy.seed);
  random.state = copy.random;
  parts.db.restore(copy.db, true);
  parts.clock.restore(copy.clock);
  parts.webhooks.restore(copy.webhooks, true);
  parts.replies.set(copy.replies);
  parts.outcomes.restore(copy.outcomes);
  parts.faults.restore(copy.faults);
  return random;
}
