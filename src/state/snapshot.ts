/**
 * The snapshot of a whole simulator (`sim.snapshot()`, `GET /__sim/state`, the state
 * file): every table, the clock with its pending events, the random generator's
 * position, webhook deliveries and failure rules, fault rules, reply and outcome
 * scripts. Plain JSON; a snapshot is checked whole before anything is restored.
 */
import * as z from 'zod';
import { COMMON_MESSAGES } from '../core/errors.js';
import { SPEED_RANGE, type ClockEvent, type ClockSnapshot, type VirtualClock } from '../core/clock.js';
import { anything, count, exactly, id, list, mapOf, nullable, oneOf, optional, parsedBy, record, refined, string, time, whole, within, type FieldKind, type Problem } from '../core/fields.js';
import { MAX_SEED, SeededRandom, type RandomState } from '../core/random.js';
import type { TableSnapshot } from '../core/store.js';
import { CLOCK_RANGE, CLOCK_RANGE_TEXT } from '../core/time.js';
import { deepPathText, MAX_SNAPSHOT_DEPTH, tooDeepAt } from '../core/validation.js';
import type { FaultEngine, FaultSnapshot } from '../engine/faults.js';
import { OutcomeRuleSchema, type OutcomeScript, type OutcomeState } from '../engine/outcomes.js';
import { MessageOutcomeRule, type MessageOutcomeScript, type MessageOutcomeState } from '../engine/message-outcomes.js';
import { ReplyRuleSchema, type ReplyRule, type ReplyScript } from '../engine/replies.js';
import type { WebhookEngine, WebhookSnapshot } from '../engine/webhooks.js';
import type { Database } from '../domain/db.js';
import type { Wire } from '../core/wire.js';
import { catalogDocumentErrors, firstError } from '../domain/catalog/check.js';
import { CatalogDocument } from '../domain/catalog/document.js';
import { CatalogSetting } from '../domain/catalog/setting.js';
import { catalogInUse } from '../domain/catalog/service.js';
import type { Assistant } from '../domain/assistants/schema.js';
import { VERSION } from '../version.js';
import { DELIVERY_KIND, FAILURE_RULE_KIND, FAULT_RULE_KIND, ROW_EVENTS, ROW_KINDS, ROW_REFERENCES, type RowEvent, type TableKey } from './rows.js';

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
  /** Scripted delivery outcomes of sent messages (live-platform H.4); absent in an older snapshot: none. */
  message_outcomes?: MessageOutcomeState;
  faults: FaultSnapshot;
  /** The catalog document in force (issue 27); null or absent (an older snapshot): each wire's own catalog. */
  catalog?: CatalogDocument | null;
}

/** The parts of a simulator a snapshot is taken from and restored into. */
export interface SnapshotParts {
  readonly clock: VirtualClock;
  readonly db: Database;
  readonly webhooks: WebhookEngine;
  readonly replies: ReplyScript;
  readonly outcomes: OutcomeScript;
  readonly messageOutcomes: MessageOutcomeScript;
  readonly faults: FaultEngine;
  readonly catalogs: CatalogSetting;
  /** The wire a restored catalog document is checked against (the one it replaces or extends). */
  readonly wire: Wire;
}

/**
 * A snapshot's damage: where (`clock.speed`, `db.phone_numbers[3].created_at`: rows,
 * pending events and rules are named by their id, other list items by their position)
 * and what is wrong.
 */
export class SnapshotError extends TypeError {
  constructor(
    readonly path: string,
    problem: string,
  ) {
    super(`The snapshot is damaged at ${path}: ${problem}.`);
  }
}

/** A number from `min` to `max` (whole with `whole`), with one message for whatever else it is. */
function between(min: number, max: number, whole: boolean, message: string): FieldKind<number> {
  return refined(anything, (v): v is number => typeof v === 'number' && v >= min && v <= max && (!whole || Number.isInteger(v)), message);
}

const uint32 = whole(0, 0xffffffff);
const randomState = refined(list(uint32), (a): a is RandomState => a.length === 4, 'must be four whole numbers');
/** The same bounds as everywhere a time is set (`POST /__sim/reset`, `--start`, `startAt`). */
const clockTime = between(CLOCK_RANGE.min, CLOCK_RANGE.max, true, `must be a time in whole milliseconds ${CLOCK_RANGE_TEXT} (${CLOCK_RANGE.min} to ${CLOCK_RANGE.max})`);
/** The same bounds as `PUT /__sim/clock`. */
const speed = between(SPEED_RANGE.min, SPEED_RANGE.max, false, `must be a number from ${SPEED_RANGE.min} to ${SPEED_RANGE.max}`);
/** The same bounds as `POST /__sim/reset`. */
const seed = whole(0, MAX_SEED);

/**
 * Items with positive whole ids, each named by its id in a problem (`[3].created_at`);
 * `ascending`: in ascending id order, as tables and rule lists keep them; `any`: each id once.
 */
function byId<T extends { id: number }>(kind: FieldKind<T>, order: 'ascending' | 'any'): FieldKind<T[]> {
  const check = kind.check;
  return {
    check: (value) => {
      if (!Array.isArray(value)) return { at: '', message: 'must be an array' };
      const seen = order === 'any' ? new Set<number>() : undefined;
      let last = 0;
      for (let i = 0; i < value.length; i++) {
        const item = value[i] as { id?: unknown } | null;
        const itemId = typeof item === 'object' && item !== null ? item.id : undefined;
        if (!Number.isSafeInteger(itemId) || (itemId as number) < 1) return { at: '', message: `must hold objects with an id from 1 to 9007199254740991 (item ${i}, counted from 0, does not)` };
        const n = itemId as number;
        if (seen ? seen.has(n) : n <= last) return { at: `[${n}]`, message: seen ? 'comes twice (ids are unique)' : 'comes twice or after a higher id (ids are unique, in ascending order)' };
        seen?.add(n);
        last = n;
        const problem = check(item);
        if (problem) return within(`[${n}]`, problem);
      }
      return undefined;
    },
  };
}

/** The highest id of `items` (0 for none): a walk of ids alone, about a millisecond over 220k calls. */
function highestId(items: readonly { id: number }[]): number {
  let highest = 0;
  for (const item of items) if (item.id > highest) highest = item.id;
  return highest;
}

/**
 * `kind` whose id sequence `seq` is at least the highest id of its `items` (the next id
 * given is one more: a lower sequence would give a new row the id of an old one).
 */
function sequenced<R>(kind: FieldKind<R>, seq: keyof R & string, items: (value: R) => readonly { id: number }[]): FieldKind<R> {
  const problem = { at: `.${seq}`, message: 'must be at least the highest id of its items' };
  // `kind` is checked first: the items are then objects with ids.
  return { check: (value) => kind.check(value) ?? (((value as R)[seq] as number) >= highestId(items(value as R)) ? undefined : problem) };
}

/** A table: its rows by id in ascending order, and its id sequence; a row is named `[id]` after the table (`db.calls[7].status`). */
function table<T extends { id: number }>(kind: FieldKind<T>): FieldKind<TableSnapshot<T>> {
  const check = sequenced(record<TableSnapshot<T>>({ seq: count, rows: byId(kind, 'ascending') }), 'seq', (t) => t.rows).check;
  return {
    check: (value) => {
      const problem = check(value);
      return problem?.at.startsWith('.rows[') ? { at: problem.at.slice('.rows'.length), message: problem.message } : problem;
    },
  };
}

/** The shape of the whole snapshot; rows are checked against their table's record (state/rows.ts). */
function snapshotKind(db: Database, clock: VirtualClock): FieldKind<SimulatorSnapshot> {
  const newer = new Set(db.tablesNewerThanFormat());
  const tables = (Object.keys(ROW_KINDS) as (keyof typeof ROW_KINDS)[]).map((key) => {
    const name = db[key].name;
    return { name, newer: newer.has(name), check: table<{ id: number }>({ check: ROW_KINDS[key].check }).check };
  });
  const dbKind: FieldKind<SimulatorSnapshot['db']> = {
    check: (value) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return { at: '', message: 'must be an object' };
      for (const { name, newer, check } of tables) {
        const saved = (value as Record<string, unknown>)[name];
        // A snapshot older than a table restores it empty (Database.tablesNewerThanFormat).
        if (saved === undefined) {
          if (newer) continue;
          return { at: `.${name}`, message: 'is required' };
        }
        const problem = check(saved);
        if (problem) return within(`.${name}`, problem);
      }
      return undefined;
    },
  };
  const eventFields = record<ClockEvent>({ id, seq: count, at: time, type: string, payload: anything, periodic: optional(exactly(true)) });
  // An event must run when due: of a type this simulator handles, with a payload its handler reads.
  const event: FieldKind<ClockEvent> = { check: (value) => eventFields.check(value) ?? clock.eventProblem((value as ClockEvent).type, (value as ClockEvent).payload) };
  return record<SimulatorSnapshot>({
    format: exactly(SNAPSHOT_FORMAT),
    version: string,
    seed,
    start: clockTime,
    clock: sequenced(record<ClockSnapshot>({ now: clockTime, seq: count, mode: oneOf(['manual', 'realtime']), speed, events: byId(event, 'any') }), 'seq', (c) => c.events),
    random: randomState,
    db: dbKind,
    webhooks: sequenced(record<WebhookSnapshot>({ deliveries: table(DELIVERY_KIND), rules: byId(FAILURE_RULE_KIND, 'ascending'), ruleSeq: count, evicted: count }), 'ruleSeq', (w) => w.rules),
    replies: list(parsedBy(ReplyRuleSchema)),
    outcomes: record<OutcomeState>({ rules: list(parsedBy(OutcomeRuleSchema)), attempts: mapOf(count) }),
    message_outcomes: optional(record<MessageOutcomeState>({ rules: list(parsedBy(MessageOutcomeRule)), attempts: mapOf(count) })),
    faults: sequenced(record<FaultSnapshot>({ rules: byId(FAULT_RULE_KIND, 'ascending'), seq: count }), 'seq', (f) => f.rules),
    catalog: optional(nullable(parsedBy(CatalogDocument))),
  });
}

type SavedRow = { id: number; account_id?: number } & Record<string, unknown>;

/**
 * The first reference of a well-formed snapshot's rows that names nothing (ROW_REFERENCES):
 * an `account_id` that is no account of the snapshot, a reference to a row that is not
 * there or belongs to another account. Restored, such a row would answer 500 where it is
 * read (a lead's list reads its campaign). Each table a reference points into is read into
 * a map of id to account once, when some row first needs it.
 */
function referenceProblem(db: Database, saved: Record<string, { rows: SavedRow[] } | undefined>): Problem | undefined {
  const owners = new Map<TableKey, Owners>();
  const ownersOf = (key: TableKey): Owners => {
    let owner = owners.get(key);
    if (!owner) {
      owner = ownersByRow(saved[db[key].name]?.rows ?? []);
      owners.set(key, owner);
    }
    return owner;
  };
  const accounts = ownersOf('accounts');
  for (const key of Object.keys(ROW_KINDS) as TableKey[]) {
    if (key === 'accounts') continue;
    const name = db[key].name;
    const fields = Object.entries(ROW_REFERENCES[key] ?? {}) as [string, TableKey][];
    for (const row of saved[name]?.rows ?? []) {
      const account = row.account_id as number;
      if (!accounts.has(account)) return { at: `.${name}[${row.id}].account_id`, message: `must be the id of an account of the snapshot (there is no account ${account})` };
      for (const [field, target] of fields) {
        const value = row[field] as number | number[] | null | undefined;
        if (value === null || value === undefined) continue;
        const owner = ownersOf(target);
        for (const refId of Array.isArray(value) ? value : [value]) {
          if (owner.get(refId) === account) continue;
          return { at: `.${name}[${row.id}].${field}`, message: `must name a row of ${db[target].name} in account ${account} (${owner.has(refId) ? `${refId} is another account's` : `there is no ${refId}`})` };
        }
      }
    }
  }
  return undefined;
}

/** A table's rows' accounts by row id (`get`), and whether an id is a row's (`has`). */
interface Owners {
  get(id: number): number | undefined;
  has(id: number): boolean;
}

/**
 * The account of each row by its id (an account's own id for an account). Rows whose ids
 * are dense (every table's ids count up from 1, ascending: checked before) are looked up
 * in an array, not hashed: a restart checks 220k calls' references against 100k leads.
 */
function ownersByRow(rows: readonly SavedRow[]): Owners {
  const last = rows.at(-1)?.id ?? 0;
  if (last > 2 * rows.length + 1024) {
    const owner = new Map<number, number>();
    for (const row of rows) owner.set(row.id, row.account_id ?? row.id);
    return owner;
  }
  // Index 0 is no row's (ids start at 1); an id without a row holds 0, which is no account.
  const owner = new Float64Array(last + 1);
  for (const row of rows) owner[row.id] = row.account_id ?? row.id;
  return {
    get: (id) => (Number.isSafeInteger(id) && id > 0 && id <= last && owner[id] !== 0 ? owner[id] : undefined),
    has: (id) => Number.isSafeInteger(id) && id > 0 && id <= last && owner[id] !== 0,
  };
}

/**
 * The first row of a well-formed snapshot that keeps the id of a pending event scheduled
 * for something else (ROW_EVENTS): of another type, another row or another account.
 * The pending events are read into a map by id once, when some row names one.
 */
function rowEventProblem(db: Database, saved: Record<string, { rows: SavedRow[] } | undefined>, events: readonly ClockEvent[]): Problem | undefined {
  let byId: Map<number, ClockEvent> | undefined;
  for (const key of Object.keys(ROW_EVENTS) as TableKey[]) {
    const { field, of, types, names } = ROW_EVENTS[key] as unknown as RowEvent<SavedRow>;
    const name = db[key].name;
    for (const row of saved[name]?.rows ?? []) {
      const eventId = of(row);
      if (eventId === null || eventId === undefined) continue;
      byId ??= new Map(events.map((e) => [e.id, e]));
      const event = byId.get(eventId);
      if (!event) continue;
      const payload = event.payload as Record<string, unknown>;
      if (types.includes(event.type) && payload[names] === row.id && payload.account_id === row.account_id) continue;
      return {
        at: `.${name}[${row.id}].${field}`,
        message: `must name a pending ${types.join(' or ')} event of this row (${names} ${row.id}, account_id ${row.account_id}) or none (event ${eventId} is ${event.type} ${JSON.stringify(payload)})`,
      };
    }
  }
  return undefined;
}

/**
 * The first problem of a restored catalog document with the catalog it makes of the
 * wire's (the checks of `PUT /__sim/catalog`), at `catalog.<its path>`. The document is
 * well-formed already: snapshotKind's `parsedBy(CatalogDocument)` checked it.
 */
function catalogProblem(catalog: CatalogDocument | null | undefined, wire: Wire): Problem | undefined {
  if (catalog === null || catalog === undefined) return undefined;
  const first = firstError(catalogDocumentErrors(catalog, wire));
  return first && { at: `.catalog.${first.field}`, message: first.message };
}

/**
 * The first assistant of the snapshot that its catalog (its document, else the wire's own)
 * no longer fits, as `PUT /__sim/catalog` refuses a catalog under assistants (issue 34):
 * at the document's field (`catalog.voices`), or at `db.assistants` for the wire's catalog.
 * A hand-edited state file is refused here, not served with assistants no update accepts.
 */
function catalogUseProblem(rows: Record<string, { rows: SavedRow[] }>, catalog: CatalogDocument | null | undefined, wire: Wire): Problem | undefined {
  const assistants = (rows.assistants?.rows ?? []) as unknown as Assistant[];
  if (assistants.length === 0) return undefined;
  const first = firstError(catalogInUse(assistants, new CatalogSetting(catalog ?? null, wire).of(wire), catalog ?? undefined));
  if (!first) return undefined;
  return { at: catalog ? `.catalog.${first.field}` : '.db.assistants', message: first.message };
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
    message_outcomes: parts.messageOutcomes.snapshot(),
    faults: parts.faults.snapshot(),
    catalog: parts.catalogs.document,
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
  // PUT /__sim/state's limit, checked first: deeper JSON would break the checks' walks, later copies and saves.
  const deep = tooDeepAt(snapshot, 1, MAX_SNAPSHOT_DEPTH);
  if (deep) throw new SnapshotError(deepPathText(deep), COMMON_MESSAGES.tooDeep('snapshot', MAX_SNAPSHOT_DEPTH).replace(/\.$/, ''));
  const rows = snapshot.db as unknown as Record<string, { rows: SavedRow[] }>;
  const problem =
    snapshotKind(parts.db, parts.clock).check(snapshot) ??
    within('.db', referenceProblem(parts.db, rows) ?? rowEventProblem(parts.db, rows, snapshot.clock.events)) ??
    catalogProblem(snapshot.catalog, parts.wire) ??
    catalogUseProblem(rows, snapshot.catalog, parts.wire);
  if (problem) {
    const at = problem.at.replace(/^\./, '') || 'its top level';
    // A rule's own message (the reply and outcome schemas are the API's) names its field as `:attribute`, and ends its sentence.
    throw new SnapshotError(at, problem.message.replaceAll(':attribute', at.replace(/\[(\d+)\]/g, '.$1')).replace(/\.$/, ''));
  }
  // A snapshot the caller gives up (a state file just parsed) is used as it is: no second copy.
  const copy = owned ? snapshot : structuredClone(snapshot);
  const random = new SeededRandom(copy.seed);
  random.state = copy.random;
  parts.db.restore(copy.db, true);
  parts.clock.restore(copy.clock);
  parts.webhooks.restore(copy.webhooks, true);
  parts.replies.set(copy.replies);
  // The rules as `PUT /__sim/outcomes` stores them (defaults filled in), not as written.
  parts.outcomes.restore({ rules: z.array(OutcomeRuleSchema).parse(copy.outcomes.rules), attempts: copy.outcomes.attempts });
  parts.messageOutcomes.restore(copy.message_outcomes ? { rules: z.array(MessageOutcomeRule).parse(copy.message_outcomes.rules), attempts: copy.message_outcomes.attempts } : { rules: [], attempts: {} });
  parts.faults.restore(copy.faults);
  parts.catalogs.set(copy.catalog ?? null, parts.wire);
  return random;
}
