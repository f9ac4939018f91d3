/**
 * Call records and starting one call (spec: Calls; decisions: Start one call,
 * make_call checks in order, Balance and dialing, Assistant activation).
 */
import { shapeA } from '../../core/errors.js';
import { texts } from '../../core/wire.js';
import { parseInstant } from '../../core/time.js';
import { dateWindow, partialNumberFilter, partialNumberNeedle } from '../filters.js';
import { ErrorBag } from '../../core/validation.js';
import { toMicros } from '../../core/money.js';
import { accountCtx, type AccountCtx } from '../context.js';
import type { SimState } from '../state.js';
import { readE164 } from '../../core/phone.js';
import { usableNumber } from '../phone-numbers/service.js';
import { coversOneCall } from './billing.js';
import { placeCall } from './lifecycle.js';
import { callStatusKey, callTypeKey } from '../db.js';
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
  const client = readE164(input.phone_number);
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
 * List calls). The page is read from the newest end of the narrowest index a filter
 * names, stopping at the page; a date filter is a binary search while creation times
 * grow with the ids. The total is the index's size when no other filter narrows it,
 * else a count over the (date-cut) index rows, without copying them.
 */
export function listCalls(ctx: AccountCtx, q: CallListQuery): PageCut<Call> {
  const bag = new ErrorBag();
  if (q.assistant_id !== undefined && !ctx.assistants.get(q.assistant_id)) bag.rule('assistant_id', 'exists');
  if (q.campaign_id !== undefined && !ctx.campaigns.get(q.campaign_id)) bag.rule('campaign_id', 'exists');
  bag.throwIfAny();
  const account = ctx.account.id;
  // Each candidate index covers its own filter; every key names rows of this account only.
  const candidates: { index: string; key: number; covers: 'campaign' | 'assistant' | 'status' | 'type' | 'account' }[] = [{ index: 'account', key: account, covers: 'account' }];
  if (q.campaign_id !== undefined) candidates.push({ index: 'campaign', key: q.campaign_id, covers: 'campaign' });
  if (q.assistant_id !== undefined) candidates.push({ index: 'assistant', key: q.assistant_id, covers: 'assistant' });
  if (q.status !== undefined) candidates.push({ index: 'account_status', key: callStatusKey(account, q.status), covers: 'status' });
  if (q.type !== undefined) candidates.push({ index: 'account_type', key: callTypeKey(account, q.type), covers: 'type' });
  let chosen = candidates[0]!;
  // On a tie the later (filter-covering) index wins: it leaves one check fewer.
  for (const c of candidates) if (ctx.calls.countOwnKey(c.index, c.key) <= ctx.calls.countOwnKey(chosen.index, chosen.key)) chosen = c;
  const { rows, monotone } = ctx.calls.orderedOwnKey(chosen.index, chosen.key);

  const [from, to] = dateWindow(q, ctx.account.timezone);
  let lo = 0;
  let hi = rows.length;
  const dated = from !== -Infinity || to !== Infinity;
  if (dated && monotone) {
    lo = lowerBound(rows, createdAt, from);
    hi = lowerBound(rows, createdAt, to);
  }
  const phone = q.phone_number === undefined ? undefined : partialNumberFilter(q.phone_number);
  // A filter that every call of the account passes (its index holds as many calls as the account) is left unchecked: counted, not guessed.
  const all = ctx.calls.countOwnKey('account', account);
  const needed = (covers: string, index: string, key: number) => chosen.covers !== covers && ctx.calls.countOwnKey(index, key) < all;
  const checks: ((c: Call) => boolean)[] = [];
  if (q.status !== undefined && needed('status', 'account_status', callStatusKey(account, q.status))) checks.push((c) => c.status === q.status);
  if (q.type !== undefined && needed('type', 'account_type', callTypeKey(account, q.type))) checks.push((c) => c.type === q.type);
  if (q.assistant_id !== undefined && needed('assistant', 'assistant', q.assistant_id)) checks.push((c) => c.assistant_id === q.assistant_id);
  if (q.campaign_id !== undefined && needed('campaign', 'campaign', q.campaign_id)) checks.push((c) => c.campaign_id === q.campaign_id);
  // With other filters, a partial number that every call's number holds is left unchecked too (alone, it has its own path below).
  const phoneEverywhere = phone !== undefined && (chosen.covers !== 'account' || dated || checks.length > 0) && numberCounts(ctx).count(partialNumberNeedle(q.phone_number!)) === all;
  if (phone !== undefined && !phoneEverywhere) checks.push((c) => phone(c.client_phone_number));
  if (dated && !monotone) checks.push((c) => c.created_at >= from && c.created_at < to);

  const skip = (q.page - 1) * q.per_page;
  // A partial number alone: its total counted by substring, its page read from the account's newest calls while matches are
  // dense enough, else merged from the newest ends of the matching numbers.
  if (phone !== undefined && checks.length === 1 && chosen.covers === 'account' && !dated) {
    const total = numberCounts(ctx).count(partialNumberNeedle(q.phone_number!));
    if (total === 0) return { rows: [], total };
    if (total !== undefined && ((skip + q.per_page) * rows.length) / total <= NEWEST_WALK_LIMIT) return { rows: newestMatching(rows, phone, skip, q.per_page), total };
    return byNumber(ctx, phone, skip, q.per_page);
  }
  // Call history reads newest first: the page is taken from the high end of [lo, hi).
  if (checks.length === 0) {
    const page: Call[] = [];
    for (let i = hi - 1 - skip; i >= lo && page.length < q.per_page; i--) page.push(rows[i]!);
    return { rows: page, total: hi - lo };
  }
  // A plain loop: `every` would build a closure for each row.
  const keep =
    checks.length === 1
      ? checks[0]!
      : (c: Call) => {
          for (let i = 0; i < checks.length; i++) if (!checks[i]!(c)) return false;
          return true;
        };
  const page: Call[] = [];
  let total = 0;
  for (let i = hi - 1; i >= lo; i--) {
    const row = rows[i]!;
    if (!keep(row)) continue;
    if (total >= skip && page.length < q.per_page) page.push(row);
    total++;
  }
  return { rows: page, total };
}

const createdAt = (c: Call) => c.created_at;

/**
 * How many of the account's newest calls a partial-number page may expect to read
 * (the page's end over the share of calls that match) before the merge over the matching
 * numbers is the cheaper way.
 */
const NEWEST_WALK_LIMIT = 4096;

/** The longest filter text the substring counts answer; E.164 numbers have at most 16 characters. */
const COUNTED_LENGTH = 16;

/** The account's calls counted by the substrings of their client numbers, caught up with the calls inserted since the last read. */
function numberCounts(ctx: AccountCtx): SubstringCounts {
  const tally = ctx.callNumbers;
  const lastId = ctx.calls.lastId;
  const removals = ctx.calls.removals;
  if (tally.counts === undefined || tally.removals !== removals || lastId < tally.through) {
    // Built from the distinct numbers called and how many of the account's calls each has, not call by call.
    const counts = new SubstringCounts(COUNTED_LENGTH);
    for (const key of ctx.calls.indexKeys('client_number')) {
      const own = ctx.calls.countOwn('client_number', key);
      if (own > 0) counts.add(key as string, own);
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

/** The page of the calls in `rows` (ascending ids) whose number passes `phone`, newest first. */
function newestMatching(rows: readonly Call[], phone: (number: string) => boolean, skip: number, perPage: number): Call[] {
  const page: Call[] = [];
  let matched = 0;
  for (let i = rows.length - 1; i >= 0 && page.length < perPage; i--) {
    if (!phone(rows[i]!.client_phone_number)) continue;
    if (matched++ >= skip) page.push(rows[i]!);
  }
  return page;
}

/** The position of the newest of the account's calls in `rows` (ascending ids) at or before `at`, -1 when none. */
function newestOwn(rows: readonly Call[], at: number, account: number): number {
  while (at >= 0 && rows[at]!.account_id !== account) at--;
  return at;
}

/**
 * The page of the calls to the account's client numbers that pass `phone`, newest first:
 * the matching numbers are found among the distinct numbers called (not the calls), the
 * total is the sum of the account's calls to each, and the page is merged from the newest
 * end of each number's calls (a heap of one head per number), stopping at the page.
 */
function byNumber(ctx: AccountCtx, phone: (number: string) => boolean, skip: number, perPage: number): PageCut<Call> {
  const account = ctx.account.id;
  const heads: { rows: readonly Call[]; at: number }[] = [];
  let total = 0;
  for (const key of ctx.calls.indexKeys('client_number')) {
    if (typeof key !== 'string' || !phone(key)) continue;
    const own = ctx.calls.countOwn('client_number', key);
    if (own === 0) continue;
    const rows = ctx.calls.orderedAnyAccount('client_number', key);
    total += own;
    heads.push({ rows, at: newestOwn(rows, rows.length - 1, account) });
  }
  // A max-heap on the id of each number's newest row not yet taken.
  const id = (h: { rows: readonly Call[]; at: number }) => h.rows[h.at]!.id;
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
  const page: Call[] = [];
  for (let taken = 0; heads.length > 0 && page.length < perPage; taken++) {
    const top = heads[0]!;
    if (taken >= skip) page.push(top.rows[top.at]!);
    top.at = newestOwn(top.rows, top.at - 1, account);
    if (top.at < 0) {
      heads[0] = heads[heads.length - 1]!;
      heads.pop();
    }
    if (heads.length > 0) down(0);
  }
  return { rows: page, total };
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
  return (call) => serialiseCall(call, ctx.wire, call.assistant_id === null ? [] : ctx.assistants.get(call.assistant_id)?.post_call_schema);
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
  const to = readE164(input.to.trim());
  if (!to) bag.add('to', 'The to must be a valid phone number in E.164 format.');
  const from = readE164(input.from.trim());
  if (!from) bag.add('from', 'The from must be a valid phone number in E.164 format.');
  bag.throwIfAny();
  const number = state.db.phoneNumbers.first('number', to!.number);
  const assistant = number ? state.db.assistants.first('inbound_number', number.id) : undefined;
  const account = assistant ? state.db.accounts.get(assistant.account_id) : undefined;
  if (!number || !assistant || !account) throw shapeA(404, INBOUND_MESSAGES.noAssistant);
  return placeCall(accountCtx(account, state), { assistant, assistant_phone_number: number.phone_number, client_phone_number: from!.number, type: 'inbound', input_variables: {} });
}
