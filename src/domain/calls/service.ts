/**
 * Call records and starting one call (spec: Calls; decisions: Start one call,
 * make_call checks in order, Balance and dialing, Assistant activation).
 */
import { shapeA } from '../../core/errors.js';
import { texts } from '../../core/wire.js';
import { isClockTime, parseInstant } from '../../core/time.js';
import { dateWindow, partialNumberFilter, partialNumberNeedle } from '../filters.js';
import { ErrorBag } from '../../core/validation.js';
import { toMicros } from '../../core/money.js';
import { accountCtx, type AccountCtx } from '../context.js';
import type { SimState } from '../state.js';
import { readE164 } from '../../core/phone.js';
import { usableNumber } from '../phone-numbers/service.js';
import { coversOneCall } from './billing.js';
import { placeCall } from './lifecycle.js';
import { callNumberKey, callTypeKey } from '../db.js';
import { groupStatusKey } from './groups.js';
import { CALL_STATUSES } from '../../core/vocabulary.js';
import { lowerBound } from '../../core/store.js';
import { SubstringCounts } from '../../core/substrings.js';
import type { PageCut } from '../../core/pagination.js';
import { callRow } from './row.js';
import { serialiseCall, type Call, type CallListQuery, type InsertCallInput } from './schema.js';

/** Texts of the call routes; a pair is the specification's and the live platform's (live-platform D.5). */
export const CALL_MESSAGES = {
  initiated: texts('Call initiated successfully.', 'Call initiated successfully'),
  deleted: texts('Call deleted successfully.', 'Call deleted successfully'),
  notFound: texts('Call not found.', 'Call not found'),
  // live-platform D.5: the live delete names ownership; the spec has one 404 for both.
  deleteNotFound: texts('Call not found.', 'Call not found or does not belong to the authenticated user'),
  assistantNotFound: texts('Assistant not found.', 'Assistant not found or does not belong to the authenticated user'),
  invalidNumber: texts('Invalid phone number. Please provide the number in E.164 format, for example +14155550123.', 'Invalid phone number format. Please use E.164 format (e.g. +1234567890)'),
  noAssistantNumber: 'The assistant has no phone number assigned. Assign a phone number to make calls.',
  insufficientBalance: 'Insufficient balance to make call. Please top up your account.',
} as const;

export const callErrors = {
  notFound: () => shapeA(404, CALL_MESSAGES.notFound),
  deleteNotFound: () => shapeA(404, CALL_MESSAGES.deleteNotFound),
  assistantNotFound: () => shapeA(404, CALL_MESSAGES.assistantNotFound),
  invalidNumber: () => shapeA(400, CALL_MESSAGES.invalidNumber),
  noAssistantNumber: () => shapeA(400, CALL_MESSAGES.noAssistantNumber),
  insufficientBalance: () => shapeA(422, CALL_MESSAGES.insufficientBalance),
};

/**
 * Starts one outbound call: checks in the order of decisions.md (make_call checks), then
 * places it (`initiated`, its outcome decided, its ring on the clock).
 */
export function makeCall(ctx: AccountCtx, input: { assistant_id: number; phone_number: string; variables?: Record<string, unknown> | undefined }): Call {
  const client = readE164(input.phone_number, ctx.wire);
  if (!client) throw callErrors.invalidNumber();
  const assistant = ctx.assistants.get(input.assistant_id);
  if (!assistant || assistant.type !== 'outbound') throw callErrors.assistantNotFound();
  // The same "usable" test as a campaign's caller numbers: a cancelled subscription has left service.
  const number = usableNumber(ctx, assistant.phone_number_id);
  if (!number) throw callErrors.noAssistantNumber();
  if (!coversOneCall(ctx.account, assistant.max_duration)) throw callErrors.insufficientBalance();
  return placeCall(ctx, {
    assistant,
    assistant_phone_number: number.phone_number,
    client_phone_number: client.number,
    type: 'outbound',
    input_variables: input.variables ?? {},
  });
}

/**
 * One page of the calls matching every filter, newest first, and how many match (spec:
 * List calls). The calls that pass the equality filters are exactly the rows of a few
 * index keys (`callKeys`); each key's rows are cut to the date window by binary search
 * while creation times grow with the ids, the total is the sum of the cut sizes, and the
 * page is merged from the keys' newest ends, stopping at the page. A partial number is a
 * check on each row (and its total a count) unless every call's number holds it, or the
 * calls to the numbers that hold it are read instead when they are far fewer; alone, it
 * has its own path (`byPartialNumber`).
 */
export function listCalls(ctx: AccountCtx, q: CallListQuery): PageCut<Call> {
  const bag = new ErrorBag();
  if (q.assistant_id !== undefined && !ctx.assistants.get(q.assistant_id)) bag.rule('assistant_id', 'exists');
  if (q.campaign_id !== undefined && !ctx.campaigns.get(q.campaign_id)) bag.rule('campaign_id', 'exists');
  bag.throwIfAny();
  const [from, to] = dateWindow(q, ctx.account.timezone);
  const skip = (q.page - 1) * q.per_page;
  const equality = q.status !== undefined || q.type !== undefined || q.assistant_id !== undefined || q.campaign_id !== undefined;
  if (q.phone_number !== undefined && !equality && from === -Infinity && to === Infinity) return byPartialNumber(ctx, q.phone_number, skip, q.per_page);

  const keys = callKeys(ctx, q);
  let runs = windowRuns(ctx, keys, from, to, undefined);
  if (q.phone_number !== undefined) {
    const phone = partialNumberFilter(q.phone_number);
    const matching = numberCounts(ctx).count(partialNumberNeedle(q.phone_number));
    if (matching === 0) return { rows: [], total: 0 };
    // A partial number that every call's number holds is left unchecked: counted, not guessed.
    if (matching !== ctx.calls.count()) {
      let rows = 0;
      for (const run of runs) rows += run.hi - run.lo;
      // Finding the matching numbers walks every distinct number (of every account: an upper bound of the account's).
      if (matching !== undefined && 2 * ctx.calls.keyCount('account_number') + matching < rows) runs = windowRuns(ctx, numberKeys(ctx, phone), from, to, equalityCheck(q));
      else runs = windowRuns(ctx, keys, from, to, (c) => phone(c.client_phone_number));
    }
  }
  let total = 0;
  for (const run of runs) total += run.keep ? countKept(run) : run.hi - run.lo;
  return { rows: total === 0 ? [] : newestFirst(runs, skip, q.per_page), total };
}

/**
 * The runs of rows of `keys` in the window [from, to) that pass `check`: each key's rows
 * cut by binary search while creation times grow with the ids; a key holding a
 * back-dated call is checked row by row against the window instead.
 */
function windowRuns(ctx: AccountCtx, keys: readonly (readonly [string, string | number])[], from: number, to: number, check: ((call: Call) => boolean) | undefined): Run[] {
  const dated = from !== -Infinity || to !== Infinity;
  const inWindow = (c: Call) => c.created_at >= from && c.created_at < to;
  const checkInWindow = check && ((c: Call) => inWindow(c) && check(c));
  const runs: Run[] = [];
  for (const [index, key] of keys) {
    const { rows, monotone } = ctx.calls.orderedOwnKey(index, key);
    const cut = !dated || monotone;
    const lo = dated && monotone ? lowerBound(rows, createdAt, from) : 0;
    const hi = dated && monotone ? lowerBound(rows, createdAt, to) : rows.length;
    if (lo < hi) runs.push({ rows, lo, hi, keep: cut ? check : (checkInWindow ?? inWindow) });
  }
  return runs;
}

/** Whether a call passes the equality filters of a list (status, type, assistant, campaign). */
function equalityCheck(q: CallListQuery): (call: Call) => boolean {
  return (c) => (q.status === undefined || c.status === q.status) && (q.type === undefined || c.type === q.type) && (q.assistant_id === undefined || c.assistant_id === q.assistant_id) && (q.campaign_id === undefined || c.campaign_id === q.campaign_id);
}

const createdAt = (c: Call) => c.created_at;

/**
 * The index keys whose rows together are exactly the account's calls that pass the
 * equality filters (status, type, assistant, campaign), each such call under one of them:
 * one filter other than the status names its own index; a status or several filters name
 * the `group_status` keys of the account's call groups that match them, one per status.
 * A filter that every call of the account passes (its index holds as many calls as the
 * account) narrows nothing and is left out: counted, not guessed.
 */
function callKeys(ctx: AccountCtx, q: CallListQuery): [index: string, key: number][] {
  const account = ctx.account.id;
  const all = ctx.calls.count();
  const narrows = (index: string, key: number) => ctx.calls.countOwnKey(index, key) < all;
  const type = q.type !== undefined && narrows('account_type', callTypeKey(account, q.type)) ? q.type : undefined;
  const assistant = q.assistant_id !== undefined && narrows('assistant', q.assistant_id) ? q.assistant_id : undefined;
  const campaign = q.campaign_id !== undefined && narrows('campaign', q.campaign_id) ? q.campaign_id : undefined;
  const named = (type !== undefined ? 1 : 0) + (assistant !== undefined ? 1 : 0) + (campaign !== undefined ? 1 : 0);
  if (q.status === undefined && named <= 1) {
    if (campaign !== undefined) return [['campaign', campaign]];
    if (assistant !== undefined) return [['assistant', assistant]];
    if (type !== undefined) return [['account_type', callTypeKey(account, type)]];
    return [['account', account]];
  }
  const keys: [string, number][] = [];
  for (const group of ctx.callGroups()) {
    if ((type !== undefined && group.type !== type) || (assistant !== undefined && group.assistant_id !== assistant) || (campaign !== undefined && group.campaign_id !== campaign)) continue;
    for (const status of q.status === undefined ? CALL_STATUSES : [q.status]) {
      const key = groupStatusKey(group.id, status);
      if (ctx.calls.countOwnKey('group_status', key) > 0) keys.push(['group_status', key]);
    }
  }
  return keys;
}

/** Rows `rows[lo..hi)` of one index key (ascending ids) that a list reads, those that pass `keep` when it is given. */
interface Run {
  rows: readonly Call[];
  lo: number;
  hi: number;
  keep: ((call: Call) => boolean) | undefined;
}

/** How many rows of a run pass its check. */
function countKept(run: Run): number {
  const { rows, keep } = run;
  let n = 0;
  for (let i = run.lo; i < run.hi; i++) if (keep!(rows[i]!)) n++;
  return n;
}

/**
 * The page of the rows of `runs` that pass their run's check, newest (highest id) first,
 * after `skip` of them: merged from each run's newest end (a max-heap of one head per run),
 * stopping at the page. The rows before the page are stepped over one by one, but for a
 * single run without a check, which skips them by position.
 */
function newestFirst(runs: readonly Run[], skip: number, perPage: number): Call[] {
  const page: Call[] = [];
  if (runs.length === 1 && runs[0]!.keep === undefined) {
    const { rows, lo, hi } = runs[0]!;
    for (let i = hi - 1 - skip; i >= lo && page.length < perPage; i--) page.push(rows[i]!);
    return page;
  }
  // Each head is its run's newest row not yet taken that passes the check (`at`).
  const heads: { run: Run; at: number }[] = [];
  const kept = (run: Run, at: number) => {
    const keep = run.keep;
    if (keep !== undefined) while (at >= run.lo && !keep(run.rows[at]!)) at--;
    return at;
  };
  for (const run of runs) {
    const at = kept(run, run.hi - 1);
    if (at >= run.lo) heads.push({ run, at });
  }
  const id = (h: { run: Run; at: number }) => h.run.rows[h.at]!.id;
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heads.length && id(heads[l]!) > id(heads[m]!)) m = l;
      if (r < heads.length && id(heads[r]!) > id(heads[m]!)) m = r;
      if (m === i) return;
      [heads[i], heads[m]] = [heads[m]!, heads[i]!];
      i = m;
    }
  };
  for (let i = (heads.length >> 1) - 1; i >= 0; i--) down(i);
  for (let taken = 0; heads.length > 0 && page.length < perPage; taken++) {
    const top = heads[0]!;
    if (taken >= skip) page.push(top.run.rows[top.at]!);
    top.at = kept(top.run, top.at - 1);
    if (top.at < top.run.lo) {
      heads[0] = heads[heads.length - 1]!;
      heads.pop();
    }
    if (heads.length > 0) down(0);
  }
  return page;
}

/**
 * How many of the account's newest calls a partial-number page may expect to read
 * (the page's end over the share of calls that match) before the merge over the matching
 * numbers is the cheaper way.
 */
const NEWEST_WALK_LIMIT = 4096;

/**
 * A partial number alone: its total counted by substring, its page read from the
 * account's newest calls while matches are dense enough that the page is near, else
 * merged from the newest ends of the calls to each matching number (found among the
 * account's distinct numbers, not its calls; their sizes are the total when the filter is
 * too long to be counted).
 */
function byPartialNumber(ctx: AccountCtx, filter: string, skip: number, perPage: number): PageCut<Call> {
  const phone = partialNumberFilter(filter);
  const total = numberCounts(ctx).count(partialNumberNeedle(filter));
  if (total === 0) return { rows: [], total };
  const { rows } = ctx.calls.orderedOwnKey('account', ctx.account.id);
  if (total !== undefined && ((skip + perPage) * rows.length) / total <= NEWEST_WALK_LIMIT) {
    return { rows: newestFirst([{ rows, lo: 0, hi: rows.length, keep: (c) => phone(c.client_phone_number) }], skip, perPage), total };
  }
  const runs = windowRuns(ctx, numberKeys(ctx, phone), -Infinity, Infinity, undefined);
  let sum = 0;
  for (const run of runs) sum += run.hi;
  return { rows: newestFirst(runs, skip, perPage), total: sum };
}

/** The `account_number` keys of the account's client numbers that pass `phone` (found among its distinct numbers, not its calls). */
function numberKeys(ctx: AccountCtx, phone: (number: string) => boolean): [string, string][] {
  const prefix = callNumberKey(ctx.account.id, '');
  const keys: [string, string][] = [];
  for (const key of ctx.calls.indexKeys('account_number')) {
    if (typeof key === 'string' && key.startsWith(prefix) && phone(key.slice(prefix.length))) keys.push(['account_number', key]);
  }
  return keys;
}

/** The longest filter text the substring counts answer; E.164 numbers have at most 16 characters. */
const COUNTED_LENGTH = 16;

/** The account's calls counted by the substrings of their client numbers, caught up with the calls inserted since the last read. */
function numberCounts(ctx: AccountCtx): SubstringCounts {
  const tally = ctx.callNumbers;
  const lastId = ctx.calls.lastId;
  const removals = ctx.calls.removals;
  if (tally.counts === undefined || tally.removals !== removals || lastId < tally.through) {
    // Built from the account's distinct numbers and their sizes, not from each call.
    const counts = new SubstringCounts(COUNTED_LENGTH);
    const prefix = callNumberKey(ctx.account.id, '');
    for (const key of ctx.calls.indexKeys('account_number')) {
      if (typeof key === 'string' && key.startsWith(prefix)) counts.add(key.slice(prefix.length), ctx.calls.countOwnKey('account_number', key));
    }
    tally.counts = counts;
  } else {
    // Ids only grow: the calls since the last read are the ids after it (the account's own, those still here).
    for (let id = tally.through + 1; id <= lastId; id++) {
      const call = ctx.calls.get(id);
      if (call) tally.counts.add(call.client_phone_number);
    }
  }
  tally.through = lastId;
  tally.removals = removals;
  return tally.counts;
}

export function findCall(ctx: AccountCtx, id: number): Call {
  const call = ctx.calls.get(id);
  if (!call) throw callErrors.notFound();
  return call;
}

/** Deletes the record with its transcript, recording and metadata (spec: Delete call). */
export function deleteCall(ctx: AccountCtx, id: number): void {
  const call = ctx.calls.get(id);
  if (!call) throw callErrors.deleteNotFound();
  ctx.calls.delete(call.id);
}

/**
 * The call serialiser of the request's wire: each call with its assistant's
 * post_call_schema, which the live evaluation items read (live-platform D.2).
 * @example listCalls(ctx, query).rows.map(callView(ctx))
 */
export function callView(ctx: AccountCtx): (call: Call) => ReturnType<typeof serialiseCall> {
  return (call) => {
    const assistant = call.assistant_id === null ? undefined : ctx.assistants.get(call.assistant_id);
    return serialiseCall(call, ctx.files, ctx.wire, assistant?.post_call_schema, assistant?.post_call_evaluation);
  };
}

/**
 * The JSON text of each call as `callView` shows it. On the spec wire, where a call's
 * record reads nothing but the call, the text is kept per call until the call changes
 * (`Table.text`); on the live wire the evaluation items read the assistant's
 * post_call_schema too, so the text is written each time.
 * @example pageText(listCalls(ctx, query), 1, 15, callText(ctx))
 */
export function callText(ctx: AccountCtx): (call: Call) => string {
  if (ctx.wire === 'spec') {
    // The same for every call of the table: the files' base URL is the simulator's (setBaseUrl drops the kept texts).
    const specCallText = (call: Call) => JSON.stringify(serialiseCall(call, ctx.files, 'spec'));
    return (call) => ctx.calls.text(call, specCallText);
  }
  const view = callView(ctx);
  return (call) => JSON.stringify(view(call));
}

/**
 * Inserts a finished call record (control API `POST /__sim/calls`), for tests that
 * need history without running calls.
 */
export function insertCall(state: SimState, input: InsertCallInput): Call {
  const bag = new ErrorBag();
  const account = state.db.accounts.get(input.account_id);
  if (!account) bag.rule('account_id', 'exists').throwIfAny();
  const ctx = accountCtx(account!, state);
  const assistant = ctx.assistants.get(input.assistant_id);
  if (!assistant) bag.rule('assistant_id', 'exists');
  const campaign = input.campaign_id == null ? undefined : ctx.campaigns.get(input.campaign_id);
  if (input.campaign_id != null && !campaign) bag.rule('campaign_id', 'exists');
  if (input.lead_id != null && !ctx.leads.get(input.lead_id)) bag.rule('lead_id', 'exists');
  const created = input.created_at === undefined ? ctx.now() : parseInstant(input.created_at);
  if (created === undefined) bag.add('created_at', 'The created at must be an ISO 8601 time.');
  else if (!isClockTime(created)) bag.rule('created_at', 'clockTime');
  bag.throwIfAny();
  const number = assistant!.phone_number_id === null ? undefined : ctx.phoneNumbers.get(assistant!.phone_number_id);
  return ctx.calls.insertRow((id, accountId) =>
    callRow(id, {
      account_id: accountId,
      assistant_id: assistant!.id,
      assistant_name: assistant!.name,
      campaign_id: campaign?.id ?? null,
      campaign_name: campaign?.name ?? null,
      lead_id: input.lead_id ?? null,
      type: input.type,
      duration: input.duration,
      assistant_phone_number: input.assistant_phone_number ?? number?.phone_number ?? '',
      client_phone_number: input.client_phone_number,
      status: input.status,
      transcript: input.transcript,
      variables: input.variables,
      evaluation: input.evaluation,
      webhook_response: input.webhook_response,
      carrier_cost_micros: toMicros(input.carrier_cost),
      total_cost_micros: toMicros(input.total_cost),
      answered_by: input.answered_by,
      recording_url: input.recording_url,
      ended_at: created! + input.duration * 1000,
      created_at: created!,
    }, ctx.callMemo.heads),
  );
}


export const INBOUND_MESSAGES = {
  noAssistant: 'No inbound assistant answers this number.',
} as const;

/**
 * A call arriving at one of the platform's numbers (control API `POST /__sim/calls/inbound`):
 * it rings the inbound assistant that owns the number; 404 when none does.
 */
export function ringInbound(state: SimState, input: { to: string; from: string }): Call {
  const bag = new ErrorBag();
  const to = readE164(input.to.trim(), state.wire);
  if (!to) bag.add('to', 'The to must be a valid phone number in E.164 format.');
  const from = readE164(input.from.trim(), state.wire);
  if (!from) bag.add('from', 'The from must be a valid phone number in E.164 format.');
  bag.throwIfAny();
  const number = state.db.phoneNumbers.first('number', to!.number);
  const assistant = number ? state.db.assistants.first('inbound_number', number.id) : undefined;
  const account = assistant ? state.db.accounts.get(assistant.account_id) : undefined;
  if (!number || !assistant || !account) throw shapeA(404, INBOUND_MESSAGES.noAssistant);
  return placeCall(accountCtx(account, state), { assistant, assistant_phone_number: number.phone_number, client_phone_number: from!.number, type: 'inbound', input_variables: {} });
}
