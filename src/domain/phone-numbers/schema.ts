/** Phone numbers (spec: Phone number (account list), Available number, Phone numbers endpoints). */
import * as z from 'zod';
import { integer, isoTimestamp } from '../../core/answers.js';
import { fromMicros } from '../../core/money.js';
import { formatIsoUtc } from '../../core/time.js';
import { E164 } from '../../core/phone.js';
import { RULE_MESSAGES, int, oneOf, parseInput } from '../../core/validation.js';
import { say, texts, type Texts, type Wire } from '../../core/wire.js';
import { lazySchema } from '../../core/lazy-schema.js';

export { E164 };
/** The message of the E.164 format rule (`:attribute` is the field). */
export const E164_RULE = 'The :attribute must be a phone number in E.164 format.';

export const NUMBER_TYPES = ['normal', 'sip', 'caller_id'] as const;
export type NumberType = (typeof NUMBER_TYPES)[number];

/** A number type's label; the live wire capitalises it (live-platform D.4: `SIP Trunk` is a decision). */
export const TYPE_LABELS: Record<NumberType, string | Texts> = {
  normal: texts('Dedicated number', 'Dedicated Number'),
  sip: texts('SIP trunk', 'SIP Trunk'),
  caller_id: 'Caller ID',
};

/** The countries numbers can be searched in (spec: Search numbers). */
export const SEARCH_COUNTRIES = ['US', 'CA', 'GB', 'AU', 'IL', 'PL', 'FI', 'NL', 'DK', 'IT'] as const;
/** live-platform E: the live wire also searches Germany, and by default (decision). */
export const LIVE_SEARCH_COUNTRIES = [...SEARCH_COUNTRIES, 'DE'] as const;
export type SearchCountry = (typeof LIVE_SEARCH_COUNTRIES)[number];
export const ADDRESS_REQUIREMENTS = ['none', 'local', 'foreign', 'inventory'] as const;

/** The monthly subscription of a purchased (`normal`) number. */
export interface Subscription {
  /** 0 for the month after purchase, then 1, 2, ... */
  period: number;
  price_micros: number;
  billing_price_id: string;
  period_start: number;
  period_end: number;
  /** A cancelled subscription ends the number at `period_end`. */
  cancelled: boolean;
  /** The clock event that renews or ends it. */
  event_id: number;
}

export interface PhoneNumber {
  id: number;
  account_id: number;
  phone_number: string;
  country_code: string;
  type: NumberType;
  sms_capable: boolean;
  region: string;
  has_active_subscription: boolean;
  subscription: Subscription | null;
  /** live-platform B: set through `PUT /user/phone-numbers/{id}`; shown on the live wire. Absent in older snapshots. */
  nickname?: string | null;
  created_at: number;
  /** live-platform C.4: the trunk settings of a `sip` number; absent on other types and in older snapshots. */
  sip?: SipTrunkSettings;
}

export const SIP_TRUNK_TYPES = ['extension', 'number'] as const;
export const SIP_CALLING_FORMATS = ['+e164', 'e164', 'national'] as const;
export const SIP_AUTHORIZATION_TYPES = ['auth', 'ip'] as const;

/** What a SIP trunk stores beside its number (live-platform C.4); `sip_password` is never shown. */
export interface SipTrunkSettings {
  sip_trunk_type: (typeof SIP_TRUNK_TYPES)[number];
  sip_username: string | null;
  sip_password: string | null;
  sip_address: string | null;
  sip_calling_format: (typeof SIP_CALLING_FORMATS)[number];
  inbound_authorization_type: (typeof SIP_AUTHORIZATION_TYPES)[number];
  allowed_inbound_ips: string[] | null;
  outbound_proxy: boolean;
  inbound_trunk_id: string;
  outbound_trunk_id: string;
  /** How often each trunk was provisioned: the trunk ids derive from the seed, the number and these. */
  inbound_generation: number;
  outbound_generation: number;
  updated_at: number;
}

/** A number this account was shown by a search; purchase accepts only these. */
export interface NumberOffer {
  id: number;
  account_id: number;
  phone_number: string;
  phone_number_formatted: string;
  country_code: SearchCountry;
  price_micros: number;
  billing_price_id: string;
  address_requirements: (typeof ADDRESS_REQUIREMENTS)[number];
  sms_capable: boolean;
  created_at: number;
}

/** A monthly charge of a number subscription, to the payment method on file. */
export interface Charge {
  id: number;
  account_id: number;
  phone_number_id: number;
  phone_number: string;
  amount_micros: number;
  billing_price_id: string;
  period_start: number;
  period_end: number;
  created_at: number;
}

const contains = lazySchema(() => z
  .string()
  .max(10, { error: RULE_MESSAGES.maxString.replace(':max', '10') })
  .regex(/^\d*$/, { error: RULE_MESSAGES.digits })
  .optional());

export const SearchQuery = lazySchema(() => z.object({ country_code: oneOf(SEARCH_COUNTRIES).default('US'), contains }));
/** live-platform E: default `DE`, which the spec wire refuses with the usual 422. */
const LiveSearchQuery = lazySchema(() => z.object({ country_code: oneOf(LIVE_SEARCH_COUNTRIES).default('DE'), contains }));
export type SearchQuery = z.infer<typeof LiveSearchQuery>;

/**
 * The search query as the OpenAPI document shows it: either wire's countries (the live
 * wire's, which hold the spec wire's), as one document serves both (issue 34).
 */
export const SearchQueryDoc = lazySchema(() => z.object({
  country_code: oneOf(LIVE_SEARCH_COUNTRIES)
    .optional()
    .meta({ description: `The spec wire takes ${SEARCH_COUNTRIES.join(', ')} (default US); the live wire ${LIVE_SEARCH_COUNTRIES.join(', ')} (default DE) (live-platform E).` }),
  contains,
}));

/**
 * The search query read with the wire's countries and default (live-platform E). The
 * route reads it per request because a route's own query schema cannot see the wire, and
 * one schema for both would change the spec wire's 422 when `DE` comes with another error.
 * @example readSearchQuery('live', {}) // { country_code: 'DE' }
 */
export function readSearchQuery(wire: Wire, query: unknown): SearchQuery {
  return parseInput(wire === 'live' ? LiveSearchQuery : SearchQuery, query ?? {}, 'management');
}

export const PurchaseBody = lazySchema(() => z.object({ phone_number: z.string().min(1) }));

/** `PUT /user/phone-numbers/{id}` (live-platform B): a nickname of at most 50 characters; `""` or null clears it, omitted keeps it. */
export const UpdateNumberBody = lazySchema(() => z.object({
  nickname: z.string().max(50, { error: RULE_MESSAGES.maxString.replace(':max', '50') }).nullable().optional(),
}));

/** The answer of a nickname change (live-platform B). */
/** A number in the account lists on the spec wire (spec: Phone number (account list); `serialisePhoneNumber`). */
export const PhoneNumberRecord = lazySchema(() => z
  .object({
    id: integer(),
    phone_number: z.string(),
    country_code: z.string(),
    type: z.enum(NUMBER_TYPES),
    type_label: z.string(),
    sms_capable: z.boolean(),
    region: z.string(),
    has_active_subscription: z.boolean(),
    created_at: isoTimestamp(),
  })
  .meta({ id: 'PhoneNumber' }));
export type PhoneNumberRecord = z.output<typeof PhoneNumberRecord>;

/** A number in the account lists on the live wire: its nickname too (live-platform D.4). */
export const LivePhoneNumberRecord = lazySchema(() => PhoneNumberRecord.unwrap().extend({ nickname: z.string().nullable() }).meta({ id: 'LivePhoneNumber' }));
export type LivePhoneNumberRecord = z.output<typeof LivePhoneNumberRecord>;

/** A renamed number (live-platform B). */
export const NicknamedNumberRecord = lazySchema(() => z
  .object({ id: integer(), phone_number: z.string(), nickname: z.string().nullable(), country_code: z.string(), type: z.enum(NUMBER_TYPES) })
  .meta({ id: 'NicknamedNumber' }));
export type NicknamedNumberRecord = z.output<typeof NicknamedNumberRecord>;

/** An available number (spec: Available number); the live wire names the price id for Stripe too. */
export const NumberOfferRecord = lazySchema(() => z
  .object({
    phone_number: z.string(),
    phone_number_formatted: z.string(),
    country_code: z.enum(LIVE_SEARCH_COUNTRIES),
    price: z.number(),
    billing_price_id: z.string(),
    stripe_price_id: z.string().optional(),
    address_requirements: z.enum(ADDRESS_REQUIREMENTS),
    sms_capable: z.boolean(),
  })
  .meta({ id: 'NumberOffer' }));
export type NumberOfferRecord = z.output<typeof NumberOfferRecord>;

/** A purchased number (spec: Purchase number). */
export const PurchasedNumberRecord = lazySchema(() => z
  .object({ id: integer(), phone_number: z.string(), country_code: z.string(), type: z.enum(NUMBER_TYPES), sms_capable: z.boolean() })
  .meta({ id: 'PurchasedNumber' }));
export type PurchasedNumberRecord = z.output<typeof PurchasedNumberRecord>;

/** A monthly charge (`GET /__sim/charges`). */
export const ChargeRecord = lazySchema(() => z
  .object({
    id: integer(),
    account_id: integer(),
    phone_number_id: integer(),
    phone_number: z.string(),
    amount: z.number(),
    billing_price_id: z.string(),
    period_start: isoTimestamp(),
    period_end: isoTimestamp(),
    created_at: isoTimestamp(),
  })
  .meta({ id: 'Charge' }));
export type ChargeRecord = z.output<typeof ChargeRecord>;

export function serialiseNicknamed(n: PhoneNumber): NicknamedNumberRecord {
  return { id: n.id, phone_number: n.phone_number, nickname: n.nickname ?? null, country_code: n.country_code, type: n.type };
}

/** `POST /__sim/phone-numbers`: a sip or caller-ID number for an account. */
export const InsertNumberBody = lazySchema(() => z.object({
  account_id: int(1),
  type: oneOf(['sip', 'caller_id']),
  phone_number: z.string().min(1),
}));
export type InsertNumberInput = z.infer<typeof InsertNumberBody>;

/** A number as the account list shows it (the control API shows the spec wire's form). */
export function serialisePhoneNumber(n: PhoneNumber, wire: Wire = 'spec'): PhoneNumberRecord | LivePhoneNumberRecord {
  return {
    id: n.id,
    phone_number: n.phone_number,
    // live-platform D.4: the live lists show the nickname right after the number.
    ...(wire === 'live' && { nickname: n.nickname ?? null }),
    country_code: n.country_code,
    type: n.type,
    type_label: say(wire, TYPE_LABELS[n.type]),
    sms_capable: n.sms_capable,
    region: n.region,
    has_active_subscription: n.has_active_subscription,
    created_at: formatIsoUtc(n.created_at),
  };
}

/** A search result (spec: Available number). */
export function serialiseOffer(o: NumberOffer, wire: Wire): NumberOfferRecord {
  return {
    phone_number: o.phone_number,
    phone_number_formatted: o.phone_number_formatted,
    country_code: o.country_code,
    price: fromMicros(o.price_micros),
    billing_price_id: o.billing_price_id,
    // live-platform D.4: the live platform names the same price id for Stripe too.
    ...(wire === 'live' && { stripe_price_id: o.billing_price_id }),
    address_requirements: o.address_requirements,
    sms_capable: o.sms_capable,
  };
}

/** The purchase answer's record (spec: Purchase number). */
export function serialisePurchased(n: PhoneNumber): PurchasedNumberRecord {
  return { id: n.id, phone_number: n.phone_number, country_code: n.country_code, type: n.type, sms_capable: n.sms_capable };
}

export function serialiseCharge(c: Charge): ChargeRecord {
  return {
    id: c.id,
    account_id: c.account_id,
    phone_number_id: c.phone_number_id,
    phone_number: c.phone_number,
    amount: fromMicros(c.amount_micros),
    billing_price_id: c.billing_price_id,
    period_start: formatIsoUtc(c.period_start),
    period_end: formatIsoUtc(c.period_end),
    created_at: formatIsoUtc(c.created_at),
  };
}
