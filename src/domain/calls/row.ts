/**
 * How a call record is held in memory: a compact row with the same fields as `Call`
 * (reads and patches see no difference) and the same JSON (`toJSON`, snapshots and the
 * state file). A campaign of a million leads keeps two million of them, so a row keeps
 * apart only what differs from call to call:
 * - what the calls of one placement share (account, assistant, campaign, type, caller
 *   number) is one `CallHead` object that many rows point to;
 * - times are small integers V8 stores in the row itself (the creation time from its
 *   head's base, the others from the creation time), not one boxed number each;
 * - the recording mark the lifecycle gives every recorded call (recording.ts) is derived
 *   from the id.
 */
import type { RowCodec } from '../../core/store.js';
import { recordingUrl } from './recording.js';
import { NO_VALUES, type AnsweredBy, type Call, type CallFields, type CallPlan, type CallStatus, type CallType } from './schema.js';

/** The record's mark of a recording (recording.ts), read here by the tests of rows. */
export { recordingUrl };

/** What the calls of one placement share; never written to (a row that changes one of them gets a head of its own). */
export interface CallHead {
  readonly account_id: number;
  readonly assistant_id: number | null;
  readonly assistant_name: string;
  readonly campaign_id: number | null;
  readonly campaign_name: string | null;
  readonly type: CallType;
  readonly assistant_phone_number: string;
  /** Where the creation times of its rows are counted from: a multiple of SPAN. */
  readonly base: number;
}

/** Times within this distance of their origin are kept as small integers (V8 keeps up to 2^31 unboxed). */
const SPAN = 2 ** 30;

/** A time as stored: its distance from an origin, null, or (not a whole number of ms within SPAN of it) boxed as it is. */
type StoredTime = number | null | { readonly at: number };

function storeTime(time: number | null, origin: number): StoredTime {
  if (time === null) return null;
  const distance = time - origin;
  return distance > -SPAN && distance < SPAN && Number.isInteger(distance) && origin + distance === time ? distance : { at: time };
}

function readTime(stored: StoredTime, origin: number): number | null {
  return typeof stored === 'number' ? origin + stored : stored === null ? null : stored.at;
}

/** The base of the head of a row created at `time`. */
function baseOf(time: number): number {
  return Number.isFinite(time) ? Math.floor(time / SPAN) * SPAN : 0;
}

/** A row's `recording` when its URL is `recordingUrl(id)`. */
const DERIVED = true;

/** The fields of a call record in the order its JSON has always had (snapshots and state files show it). */
const FIELDS = [
  'id',
  'campaign_id',
  'campaign_name',
  'lead_id',
  'contact_id',
  'duration',
  'status',
  'transcript',
  'variables',
  'input_variables',
  'evaluation',
  'webhook_response',
  'carrier_cost_micros',
  'total_cost_micros',
  'answered_by',
  'recording_url',
  'plan',
  'event_id',
  'answered_at',
  'ended_at',
  'updated_at',
  'account_id',
  'assistant_id',
  'assistant_name',
  'type',
  'assistant_phone_number',
  'client_phone_number',
  'created_at',
] as const satisfies readonly (keyof Call)[];

/**
 * Heads shared by the rows of one account scope: the latest few per caller number, so
 * a campaign's calls (or a rotation of its numbers) point to one head each.
 */
export class CallHeads {
  private readonly byNumber = new Map<string, CallHead[]>();

  /** The head of a call of `f` created at a time of `base`: a known one when one is equal, else a new one, kept. */
  of(f: CallFields, base: number): CallHead {
    let known = this.byNumber.get(f.assistant_phone_number);
    if (!known) this.byNumber.set(f.assistant_phone_number, (known = []));
    for (const h of known) if (isHeadOf(h, f, base)) return h;
    const head = headOf(f, base);
    // A few per number: enough for the campaigns that share a caller number, bounded whatever comes.
    if (known.length >= 8) known.shift();
    known.push(head);
    return head;
  }
}

function headOf(f: CallFields, base: number): CallHead {
  return {
    account_id: f.account_id,
    assistant_id: f.assistant_id,
    assistant_name: f.assistant_name,
    campaign_id: f.campaign_id ?? null,
    campaign_name: f.campaign_name ?? null,
    type: f.type,
    assistant_phone_number: f.assistant_phone_number,
    base,
  };
}

function isHeadOf(h: CallHead, f: CallFields, base: number): boolean {
  return (
    h.base === base &&
    h.account_id === f.account_id &&
    h.assistant_id === f.assistant_id &&
    h.assistant_name === f.assistant_name &&
    h.campaign_id === (f.campaign_id ?? null) &&
    h.campaign_name === (f.campaign_name ?? null) &&
    h.type === f.type &&
    h.assistant_phone_number === f.assistant_phone_number
  );
}

/**
 * A call record (see the file's header): the fields of `Call`, some kept as they are,
 * the others behind accessors over the head and the stored times.
 */
export class CallRow implements Call {
  id: number;
  private head: CallHead;
  lead_id: number | null;
  contact_id: number | null;
  client_phone_number: string;
  status: CallStatus;
  answered_by: AnsweredBy;
  duration: number;
  transcript: string;
  variables: Record<string, unknown>;
  input_variables: Record<string, unknown>;
  evaluation: Record<string, unknown>;
  webhook_response: Record<string, unknown> | null;
  carrier_cost_micros: number;
  total_cost_micros: number;
  private recording: string | null | typeof DERIVED;
  plan: CallPlan | null;
  event_id: number | null;
  private created: StoredTime;
  private updated: StoredTime;
  private answered: StoredTime;
  private ended: StoredTime;

  constructor(id: number, head: CallHead, f: CallFields) {
    this.id = id;
    this.head = head;
    this.lead_id = f.lead_id ?? null;
    this.contact_id = f.contact_id ?? null;
    this.client_phone_number = f.client_phone_number;
    this.status = f.status ?? 'initiated';
    this.answered_by = f.answered_by ?? 'unknown';
    this.duration = f.duration ?? 0;
    this.transcript = f.transcript ?? '';
    this.variables = f.variables ?? NO_VALUES;
    this.input_variables = f.input_variables ?? NO_VALUES;
    this.evaluation = f.evaluation ?? NO_VALUES;
    this.webhook_response = f.webhook_response ?? null;
    this.carrier_cost_micros = f.carrier_cost_micros ?? 0;
    this.total_cost_micros = f.total_cost_micros ?? 0;
    this.recording = null;
    this.plan = f.plan ?? null;
    this.event_id = f.event_id ?? null;
    const created = f.created_at;
    this.created = storeTime(created, head.base);
    this.updated = storeTime(f.updated_at ?? created, created);
    this.answered = storeTime(f.answered_at ?? null, created);
    this.ended = storeTime(f.ended_at ?? null, created);
    if (f.recording_url != null) this.recording_url = f.recording_url;
  }

  get account_id(): number {
    return this.head.account_id;
  }

  set account_id(value: number) {
    if (value !== this.head.account_id) this.head = { ...this.head, account_id: value };
  }

  get assistant_id(): number | null {
    return this.head.assistant_id;
  }

  set assistant_id(value: number | null) {
    if (value !== this.head.assistant_id) this.head = { ...this.head, assistant_id: value };
  }

  get assistant_name(): string {
    return this.head.assistant_name;
  }

  set assistant_name(value: string) {
    if (value !== this.head.assistant_name) this.head = { ...this.head, assistant_name: value };
  }

  get campaign_id(): number | null {
    return this.head.campaign_id;
  }

  set campaign_id(value: number | null) {
    if (value !== this.head.campaign_id) this.head = { ...this.head, campaign_id: value };
  }

  get campaign_name(): string | null {
    return this.head.campaign_name;
  }

  set campaign_name(value: string | null) {
    if (value !== this.head.campaign_name) this.head = { ...this.head, campaign_name: value };
  }

  get type(): CallType {
    return this.head.type;
  }

  set type(value: CallType) {
    if (value !== this.head.type) this.head = { ...this.head, type: value };
  }

  get assistant_phone_number(): string {
    return this.head.assistant_phone_number;
  }

  set assistant_phone_number(value: string) {
    if (value !== this.head.assistant_phone_number) this.head = { ...this.head, assistant_phone_number: value };
  }

  get recording_url(): string | null {
    return this.recording === DERIVED ? recordingUrl(this.id) : this.recording;
  }

  set recording_url(value: string | null) {
    this.recording = value !== null && value === recordingUrl(this.id) ? DERIVED : value;
  }

  get created_at(): number {
    return readTime(this.created, this.head.base)!;
  }

  set created_at(value: number) {
    // The other times are kept from the creation time: read them before it moves.
    const { updated_at, answered_at, ended_at } = this;
    if (baseOf(value) !== this.head.base) this.head = { ...this.head, base: baseOf(value) };
    this.created = storeTime(value, this.head.base);
    this.updated = storeTime(updated_at, value);
    this.answered = storeTime(answered_at, value);
    this.ended = storeTime(ended_at, value);
  }

  get updated_at(): number {
    return readTime(this.updated, this.created_at)!;
  }

  set updated_at(value: number) {
    this.updated = storeTime(value, this.created_at);
  }

  get answered_at(): number | null {
    return readTime(this.answered, this.created_at);
  }

  set answered_at(value: number | null) {
    this.answered = storeTime(value, this.created_at);
  }

  get ended_at(): number | null {
    return readTime(this.ended, this.created_at);
  }

  set ended_at(value: number | null) {
    this.ended = storeTime(value, this.created_at);
  }

  /** The record as a plain object, its fields in their order (what `JSON.stringify` writes). */
  toJSON(): Call {
    const plain: Record<string, unknown> = {};
    for (const field of FIELDS) plain[field] = this[field];
    return plain as unknown as Call;
  }
}

/**
 * A whole call row with its id: the given fields over an empty call (no campaign, lead,
 * plan, costs or transcript yet, `initiated`). Every call record is built here; `heads`
 * shares the head of the calls of one placement.
 * @example callRow(7, { account_id: 1, assistant_id: 1, assistant_name: 'Sales', type: 'outbound', assistant_phone_number: '+14155550100', client_phone_number: '+14155550123', created_at: now })
 */
export function callRow(id: number, f: CallFields, heads?: CallHeads): Call {
  const base = baseOf(f.created_at);
  return new CallRow(id, heads ? heads.of(f, base) : headOf(f, base), f);
}

/** Fields whose absent value a new row fills with something other than null: a snapshot's row with null there is kept as it is. */
const FILLED: ReadonlySet<string> = new Set(['status', 'answered_by', 'duration', 'transcript', 'variables', 'input_variables', 'evaluation', 'carrier_cost_micros', 'total_cost_micros', 'updated_at']);

/**
 * How the calls table writes its rows into a snapshot and reads them back (`Table`'s
 * codec): a row as its plain object; a snapshot's row as a compact row when it has
 * exactly the fields of a call in their order, each with a value the row keeps as it is
 * (any other, from an older or edited snapshot, stays the plain object it is: rows are
 * read through the `Call` fields either way). Rows read back share heads.
 * @example new Table<Call>('calls', callCodec())
 */
export function callCodec(): RowCodec<Call> {
  const heads = new CallHeads();
  return {
    plain: (row) => (row instanceof CallRow ? row.toJSON() : row),
    row: (plain) => (hasCallFields(plain) ? callRow(plain.id, plain, heads) : plain),
  };
}

function hasCallFields(plain: Call): boolean {
  let n = 0;
  for (const field in plain) {
    if (FIELDS[n++] !== field) return false;
    const value = plain[field as keyof Call];
    if (value === undefined || (value === null && FILLED.has(field))) return false;
  }
  return n === FIELDS.length;
}
