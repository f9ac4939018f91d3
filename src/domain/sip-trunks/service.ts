/**
 * SIP trunks (live-platform C.4): create, read and update the `sip` numbers of an
 * account with their trunk settings. Deletion is the phone number release (a `sip`
 * number goes at once), so it lives in the phone-numbers domain.
 */
import { shapeC } from '../../core/errors.js';
import { E164, readE164 } from '../../core/phone.js';
import { ErrorBag, ruleMessage } from '../../core/validation.js';
import type { AccountCtx } from '../context.js';
import { E164_RULE, type PhoneNumber, type SipTrunkSettings } from '../phone-numbers/schema.js';
import { PHONE_MESSAGES, regionOf } from '../phone-numbers/service.js';
import { SIP_TRUNK_MESSAGES, defaultTrunk, trunkId, type CreateSipTrunkInput, type SipTrunk, type UpdateSipTrunkInput } from './schema.js';

export const sipTrunkErrors = {
  /** Unknown, foreign, or not a `sip` number. */
  notFound: () => shapeC(404, SIP_TRUNK_MESSAGES.notFound),
  duplicate: () => shapeC(409, SIP_TRUNK_MESSAGES.duplicate),
};

type Trunk = SipTrunk;

/** A number with its trunk settings (a `sip` number of an older snapshot gets the control API's defaults). */
function trunkOf(ctx: AccountCtx, number: PhoneNumber): Trunk {
  return { number, sip: number.sip ?? defaultTrunk(ctx.seed, number.id, number.created_at) };
}

/** The account's SIP trunks (its `sip` numbers), in id order. */
export function listSipTrunks(ctx: AccountCtx): Trunk[] {
  return ctx.phoneNumbers.list((n) => n.type === 'sip').map((n) => trunkOf(ctx, n));
}

/** The trunk, or 404 C when the id is unknown, another account's, or not a `sip` number. */
export function findSipTrunk(ctx: AccountCtx, id: number): Trunk {
  const number = ctx.phoneNumbers.get(id);
  if (!number || number.type !== 'sip') throw sipTrunkErrors.notFound();
  return trunkOf(ctx, number);
}

/** The settings after a create or update, before the checks that need the account. */
interface Draft {
  sip_trunk_type: SipTrunkSettings['sip_trunk_type'];
  phone_number: string;
  /** Null only on a number made through the control API that has not been completed. */
  sip_username: string | null;
  sip_password: string | null;
  sip_address: string | null;
  sip_calling_format: SipTrunkSettings['sip_calling_format'];
  inbound_authorization_type: SipTrunkSettings['inbound_authorization_type'];
  allowed_inbound_ips: string[] | null | undefined;
  country_code: string;
  outbound_proxy: boolean;
}

/**
 * The rules that join fields (live-platform C.4): the phone number's form by trunk type,
 * the addresses required with `ip`. Answers the stored phone number and country: a
 * `number` trunk's own country wins when it can be read.
 */
function checkDraft(draft: Draft, bag: ErrorBag): { phone_number: string; country_code: string; allowed_inbound_ips: string[] | null } {
  let country = draft.country_code.toUpperCase();
  const number = draft.phone_number;
  if (draft.sip_trunk_type === 'extension') {
    if (number.length > 15) bag.add('phone_number', SIP_TRUNK_MESSAGES.extensionLength);
    if (/\s/.test(number)) bag.add('phone_number', SIP_TRUNK_MESSAGES.extensionWhitespace);
  } else if (!E164.test(number)) {
    bag.add('phone_number', ruleMessage(E164_RULE, 'phone_number'));
  } else {
    country = readE164(number)?.country ?? country;
  }
  if (draft.inbound_authorization_type === 'ip' && !draft.allowed_inbound_ips) {
    bag.rule('allowed_inbound_ips', 'requiredIf', { other: 'inbound authorization type', value: 'ip' });
  }
  // live-platform C.4: the addresses mean nothing with `auth`.
  const allowed = draft.inbound_authorization_type === 'ip' ? [...(draft.allowed_inbound_ips ?? [])] : null;
  return { phone_number: number, country_code: country, allowed_inbound_ips: allowed };
}

/** The trunk settings a checked draft stores (the type and trunk ids aside). */
function draftSettings(draft: Draft, checked: ReturnType<typeof checkDraft>) {
  return {
    sip_username: draft.sip_username,
    sip_password: draft.sip_password,
    sip_address: draft.sip_address,
    sip_calling_format: draft.sip_calling_format,
    inbound_authorization_type: draft.inbound_authorization_type,
    allowed_inbound_ips: checked.allowed_inbound_ips,
    outbound_proxy: draft.outbound_proxy,
  };
}

/** Another of the account's trunks with the same number, username and address (live-platform C.4: 409). */
function duplicateOf(ctx: AccountCtx, draft: Draft, selfId?: number): boolean {
  // A number made through the control API has no username or address: it clashes with nothing until it has both.
  if (draft.sip_username === null || draft.sip_address === null) return false;
  return ctx.phoneNumbers
    .list((n) => n.type === 'sip' && n.id !== selfId && n.phone_number === draft.phone_number)
    .some((n) => n.sip?.sip_username === draft.sip_username && n.sip?.sip_address === draft.sip_address);
}

/** The order of checks after validation (live-platform C.4): 409 duplicate, then 422 on a number any record holds. */
function checkAccount(ctx: AccountCtx, draft: Draft, numberChanged: boolean, selfId?: number): void {
  if (duplicateOf(ctx, draft, selfId)) throw sipTrunkErrors.duplicate();
  // decision (live-platform C.4): inbound routing needs unique numbers, so a `number` trunk's number is free platform-wide.
  if (draft.sip_trunk_type === 'number' && numberChanged && ctx.numberInUse(draft.phone_number)) {
    new ErrorBag().add('phone_number', PHONE_MESSAGES.taken).throwIfAny();
  }
}

/**
 * Registers a SIP trunk: a `sip` number with its trunk settings and freshly provisioned
 * inbound and outbound trunk ids.
 * @example createSipTrunk(ctx, { sip_trunk_type: 'number', phone_number: '+4930123456', sip_username: 'office', ... })
 */
export function createSipTrunk(ctx: AccountCtx, input: CreateSipTrunkInput): Trunk {
  const draft: Draft = { ...input, allowed_inbound_ips: input.allowed_inbound_ips, outbound_proxy: input.outbound_proxy ?? false };
  const bag = new ErrorBag();
  const checked = checkDraft(draft, bag);
  bag.throwIfAny();
  checkAccount(ctx, draft, true);
  const now = ctx.now();
  const number = ctx.phoneNumbers.insert({
    phone_number: checked.phone_number,
    country_code: checked.country_code,
    type: 'sip',
    sms_capable: false,
    region: regionOf(checked.country_code),
    has_active_subscription: false,
    subscription: null,
    nickname: input.nickname ? input.nickname : null,
    created_at: now,
  });
  const sip: SipTrunkSettings = {
    sip_trunk_type: draft.sip_trunk_type,
    ...draftSettings(draft, checked),
    inbound_trunk_id: trunkId(ctx.seed, number.id, 'inbound', 0),
    outbound_trunk_id: trunkId(ctx.seed, number.id, 'outbound', 0),
    inbound_generation: 0,
    outbound_generation: 0,
    updated_at: now,
  };
  return { number: ctx.phoneNumbers.update(number.id, { sip }), sip };
}

/** The fields whose change re-provisions each trunk (live-platform C.4 Update). */
const INBOUND_FIELDS = ['sip_username', 'sip_password', 'phone_number', 'inbound_authorization_type', 'allowed_inbound_ips'] as const;
const OUTBOUND_FIELDS = ['sip_username', 'sip_password', 'sip_address', 'phone_number', 'outbound_proxy'] as const;

/**
 * Changes any trunk field but its type (partial). A change of the fields a trunk depends
 * on provisions it again, with a new trunk id (live-platform C.4 Update).
 */
export function updateSipTrunk(ctx: AccountCtx, id: number, input: UpdateSipTrunkInput): Trunk {
  const { number, sip } = findSipTrunk(ctx, id);
  const bag = new ErrorBag();
  if (input.sip_trunk_type !== undefined && input.sip_trunk_type !== sip.sip_trunk_type) bag.add('sip_trunk_type', SIP_TRUNK_MESSAGES.typeFixed);
  const draft: Draft = {
    sip_trunk_type: sip.sip_trunk_type,
    phone_number: input.phone_number ?? number.phone_number,
    sip_username: input.sip_username ?? sip.sip_username,
    sip_password: input.sip_password ?? sip.sip_password,
    sip_address: input.sip_address ?? sip.sip_address,
    sip_calling_format: input.sip_calling_format ?? sip.sip_calling_format,
    inbound_authorization_type: input.inbound_authorization_type ?? sip.inbound_authorization_type,
    allowed_inbound_ips: input.allowed_inbound_ips !== undefined ? input.allowed_inbound_ips : sip.allowed_inbound_ips,
    country_code: input.country_code ?? number.country_code,
    outbound_proxy: input.outbound_proxy ?? sip.outbound_proxy,
  };
  const checked = checkDraft(draft, bag);
  bag.throwIfAny();
  const numberChanged = checked.phone_number !== number.phone_number;
  checkAccount(ctx, draft, numberChanged, number.id);
  const next = {
    ...sip,
    ...draftSettings(draft, checked),
    updated_at: ctx.now(),
  };
  const before = { ...sip, phone_number: number.phone_number };
  const after = { ...next, phone_number: checked.phone_number };
  const changed = (fields: readonly (keyof typeof after)[]) => fields.some((f) => JSON.stringify(before[f]) !== JSON.stringify(after[f]));
  if (changed(INBOUND_FIELDS)) {
    next.inbound_generation = sip.inbound_generation + 1;
    next.inbound_trunk_id = trunkId(ctx.seed, number.id, 'inbound', next.inbound_generation);
  }
  if (changed(OUTBOUND_FIELDS)) {
    next.outbound_generation = sip.outbound_generation + 1;
    next.outbound_trunk_id = trunkId(ctx.seed, number.id, 'outbound', next.outbound_generation);
  }
  const updated = ctx.phoneNumbers.update(number.id, {
    phone_number: checked.phone_number,
    country_code: checked.country_code,
    region: regionOf(checked.country_code),
    ...(input.nickname !== undefined && { nickname: input.nickname === '' ? null : input.nickname }),
    sip: next,
  });
  return { number: updated, sip: next };
}
