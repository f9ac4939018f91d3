/**
 * Phone numbers: search, purchase, list, release, and the monthly subscription on the
 * clock (spec: Phone numbers; Phone number release behaviour; decisions: Release of a
 * normal number, Billing period).
 */
import { shapeC } from '../../core/errors.js';
import { toMicros } from '../../core/money.js';
import { parsePhone, readE164 } from '../../core/phone.js';
import { SeededRandom } from '../../core/random.js';
import { addMonthsUtc, formatSqlUtc } from '../../core/time.js';
import { ErrorBag, ruleMessage } from '../../core/validation.js';
import { say, texts } from '../../core/wire.js';
import countries from '../../../fixtures/number-countries.json' with { type: 'json' };
import liveCountries from '../../../fixtures/number-countries-live.json' with { type: 'json' };
import type { AccountCtx } from '../context.js';
import type { SimState } from '../state.js';
import { defaultTrunk } from '../sip-trunks/schema.js';
import { E164, E164_RULE, type InsertNumberInput, type NumberOffer, type PhoneNumber, type SearchCountry, type SearchQuery } from './schema.js';

export const PHONE_MESSAGES = {
  purchased: 'Phone number purchased successfully.',
  updated: 'Phone number updated successfully.',
  // live-platform D.5: a pair is the specification's text and the live platform's.
  noPaymentMethod: texts('A payment method is required to purchase a phone number. Please add a payment method to your account.', 'No payment method found. Please add a payment method to your account.'),
  inUse: 'This phone number is already in use.',
  notOffered: 'This phone number is not available for purchase. Please search for available numbers first.',
  notFound: 'Phone number not found.',
  cancelled: (until: string) =>
    texts(`Subscription cancelled. The phone number stays active until ${until} UTC, then it is released.`, 'Phone number released successfully. It will be removed at the end of the billing period.'),
  alreadyCancelled: texts('The subscription of this phone number is already cancelled.', 'Phone number is already scheduled for release.'),
  deleted: 'Phone number deleted successfully.',
  callerIdDeleted: texts('Caller ID deleted and removed from the telephony provider.', 'Phone number deleted successfully.'),
  invalidNumber: 'The phone number must be a valid phone number in E.164 format.',
  taken: 'The phone number has already been taken.',
} as const;

export const phoneErrors = {
  noPaymentMethod: () => shapeC(402, PHONE_MESSAGES.noPaymentMethod),
  inUse: () => shapeC(400, PHONE_MESSAGES.inUse),
  notOffered: () => shapeC(400, PHONE_MESSAGES.notOffered),
  notFound: () => shapeC(404, PHONE_MESSAGES.notFound),
  alreadyCancelled: () => shapeC(400, PHONE_MESSAGES.alreadyCancelled),
};

/** Clock event that renews a subscription or, once cancelled, ends the number. */
export const PERIOD_END_EVENT = 'phone_number.period_end';
export interface PeriodEndPayload {
  account_id: number;
  phone_number_id: number;
}

interface CountryPlan {
  country_code: SearchCountry;
  prefixes: string[];
  pattern: string;
  price: number;
  address_requirements: NumberOffer['address_requirements'];
  sms_capable: boolean;
}

// live-platform E: the live wire's extra country (DE) has its own fixture, so the spec's list stays as it is.
const COUNTRY_PLANS = new Map([...countries, ...liveCountries].map((c) => [c.country_code, c as CountryPlan]));
const CALLING_CODES: Record<SearchCountry, string> = { US: '1', CA: '1', GB: '44', AU: '61', IL: '972', PL: '48', FI: '358', NL: '31', DK: '45', IT: '39', DE: '49' };
/** How many numbers a search answers at most. */
export const SEARCH_RESULTS = 10;
const SEARCH_ATTEMPTS = 400;

/** The provisioning region of a number's country. Divergence: the platform's region names are not shown; ours are short codes. */
export function regionOf(country: string): string {
  if (['US', 'CA'].includes(country)) return 'us1';
  if (country === 'AU') return 'au1';
  return 'ie1';
}

/** Whether a number can still place and take calls: a cancelled subscription has left the rotation. */
export function isUsable(n: PhoneNumber): boolean {
  return n.type !== 'normal' || n.has_active_subscription;
}

/** The account's number of `id` when it can place calls (see isUsable); the one test of campaigns, the dialer and make_call. */
export function usableNumber(ctx: AccountCtx, id: number | null): PhoneNumber | undefined {
  const number = id === null ? undefined : ctx.phoneNumbers.get(id);
  return number && isUsable(number) ? number : undefined;
}

/**
 * Purchasable numbers: a function of the seed, the country and `contains` alone, so the
 * same search answers the same numbers, less those already taken (spec: Search numbers).
 * Every answer is remembered as an offer to this account; purchase accepts only offers.
 */
export function searchNumbers(ctx: AccountCtx, query: SearchQuery): NumberOffer[] {
  const plan = COUNTRY_PLANS.get(query.country_code)!;
  const contains = query.contains ?? '';
  const random = SeededRandom.derive(ctx.seed, 'number-search', plan.country_code, contains);
  const found = new Map<string, string>();
  for (let attempt = 0; attempt < SEARCH_ATTEMPTS && found.size < SEARCH_RESULTS; attempt++) {
    const prefix = plan.prefixes[random.int(0, plan.prefixes.length - 1)]!;
    let national = prefix + plan.pattern.replace(/N/g, () => String(random.int(2, 9))).replace(/X/g, () => String(random.int(0, 9)));
    if (contains.length > 0) {
      if (contains.length > national.length) break;
      const at = random.int(0, national.length - contains.length);
      national = national.slice(0, at) + contains + national.slice(at + contains.length);
    }
    const parsed = parsePhone(`+${CALLING_CODES[plan.country_code]}${national}`);
    if (!parsed?.isValid() || parsed.country !== plan.country_code) continue;
    if (!parsed.number.slice(1).includes(contains) || found.has(parsed.number) || ctx.numberInUse(parsed.number)) continue;
    found.set(parsed.number, parsed.formatInternational());
  }
  const now = ctx.now();
  return [...found].map(([number, formatted]) => {
    const offer = {
      phone_number: number,
      phone_number_formatted: formatted,
      country_code: plan.country_code,
      price_micros: toMicros(plan.price),
      billing_price_id: `price_${plan.country_code.toLowerCase()}_local_monthly`,
      address_requirements: plan.address_requirements,
      sms_capable: plan.sms_capable,
      created_at: now,
    };
    const known = ctx.numberOffers.where('account_number', `${ctx.account.id}:${number}`)[0];
    return known ? ctx.numberOffers.update(known.id, offer) : ctx.numberOffers.insert(offer);
  });
}

/**
 * Buys a number from this account's search results: a `normal` number with a monthly
 * subscription charged to the payment method and renewed on the clock (spec: Purchase number).
 */
export function purchaseNumber(ctx: AccountCtx, text: string): PhoneNumber {
  if (!E164.test(text)) new ErrorBag().add('phone_number', ruleMessage(E164_RULE, 'phone_number')).throwIfAny();
  if (!ctx.account.has_payment_method) throw phoneErrors.noPaymentMethod();
  if (ctx.numberInUse(text)) throw phoneErrors.inUse();
  const offer = ctx.numberOffers.where('account_number', `${ctx.account.id}:${text}`)[0];
  if (!offer) throw phoneErrors.notOffered();
  const now = ctx.now();
  const number = ctx.phoneNumbers.insert({
    phone_number: offer.phone_number,
    country_code: offer.country_code,
    type: 'normal',
    sms_capable: offer.sms_capable,
    region: regionOf(offer.country_code),
    has_active_subscription: true,
    subscription: null,
    created_at: now,
  });
  return startPeriod(ctx, number, 0);
}

/** Charges billing period `index` (0 = the month after purchase) and schedules its end. */
function startPeriod(ctx: AccountCtx, number: PhoneNumber, index: number): PhoneNumber {
  const offerPrice = number.subscription?.price_micros ?? toMicros(COUNTRY_PLANS.get(number.country_code as SearchCountry)!.price);
  const priceId = number.subscription?.billing_price_id ?? `price_${number.country_code.toLowerCase()}_local_monthly`;
  const periodStart = addMonthsUtc(number.created_at, index);
  const periodEnd = addMonthsUtc(number.created_at, index + 1);
  ctx.charges.insert({
    phone_number_id: number.id,
    phone_number: number.phone_number,
    amount_micros: offerPrice,
    billing_price_id: priceId,
    period_start: periodStart,
    period_end: periodEnd,
    created_at: ctx.now(),
  });
  // A subscription renews for ever: its period end is periodic, not work that run-until-idle waits for.
  const eventId = ctx.schedule<PeriodEndPayload>(periodEnd, PERIOD_END_EVENT, { account_id: ctx.account.id, phone_number_id: number.id }, { periodic: true });
  return ctx.phoneNumbers.update(number.id, {
    subscription: { period: index, price_micros: offerPrice, billing_price_id: priceId, period_start: periodStart, period_end: periodEnd, cancelled: false, event_id: eventId },
  });
}

/** The clock reached the end of a billing period: renew, or release a cancelled number. */
export function endBillingPeriod(ctx: AccountCtx, payload: PeriodEndPayload): void {
  const number = ctx.phoneNumbers.get(payload.phone_number_id);
  if (!number?.subscription) return;
  if (number.subscription.cancelled) {
    removeNumber(ctx, number);
    return;
  }
  startPeriod(ctx, number, number.subscription.period + 1);
}

/**
 * Sets or clears a number's nickname (live-platform B): any type, also a released
 * number awaiting its period end.
 */
export function renameNumber(ctx: AccountCtx, id: number, nickname: string | null | undefined): PhoneNumber {
  const number = findNumber(ctx, id);
  if (nickname === undefined) return number;
  return ctx.phoneNumbers.update(number.id, { nickname: nickname === '' ? null : nickname });
}

/** The legacy list (live-platform B: GET /user/phone-numbers): SMS-capable numbers with an active subscription. */
export function listSmsNumbers(ctx: AccountCtx): PhoneNumber[] {
  return ctx.phoneNumbers.list((n) => n.sms_capable && n.has_active_subscription);
}

/** Numbers of all types, oldest first (spec: List phone numbers). */
export function listNumbers(ctx: AccountCtx): PhoneNumber[] {
  return ctx.phoneNumbers.list();
}

/** The number, or 404 shape C. */
export function findNumber(ctx: AccountCtx, id: number): PhoneNumber {
  const number = ctx.phoneNumbers.get(id);
  if (!number) throw phoneErrors.notFound();
  return number;
}

/**
 * Releases a number (spec: Phone number release behaviour): a normal number's
 * subscription is cancelled and the number stays until the period ends; sip and caller-ID
 * numbers go at once. Either way inbound assistants and campaigns let go of it now.
 * Answers the message of the release.
 */
export function releaseNumber(ctx: AccountCtx, id: number): string {
  const number = findNumber(ctx, id);
  if (number.type === 'normal') {
    if (!number.subscription || number.subscription.cancelled) throw phoneErrors.alreadyCancelled();
    ctx.phoneNumbers.update(number.id, { has_active_subscription: false, subscription: { ...number.subscription, cancelled: true } });
    letGo(ctx, number, true);
    return say(ctx.wire, PHONE_MESSAGES.cancelled(formatSqlUtc(number.subscription.period_end)));
  }
  removeNumber(ctx, number);
  return number.type === 'caller_id' ? say(ctx.wire, PHONE_MESSAGES.callerIdDeleted) : PHONE_MESSAGES.deleted;
}

/** Inbound assistants (or, when it is gone for good, every assistant) unassign it; campaigns drop it. Calls keep their copy. */
function letGo(ctx: AccountCtx, number: PhoneNumber, inboundOnly: boolean): void {
  const now = ctx.now();
  for (const assistant of ctx.assistants.where('phone_number', number.id)) {
    if (!inboundOnly || assistant.type === 'inbound') ctx.assistants.update(assistant.id, { phone_number_id: null, updated_at: now });
  }
  for (const campaign of ctx.campaigns.list()) {
    if (campaign.phone_number_ids.includes(number.id)) {
      ctx.campaigns.update(campaign.id, { phone_number_ids: campaign.phone_number_ids.filter((n) => n !== number.id), updated_at: now });
    }
  }
}

function removeNumber(ctx: AccountCtx, number: PhoneNumber): void {
  if (number.subscription) ctx.cancel(number.subscription.event_id);
  letGo(ctx, number, false);
  ctx.phoneNumbers.delete(number.id);
}

/**
 * Adds a sip or caller-ID number to an account (ARCHITECTURE §6: POST /__sim/phone-numbers).
 * @example insertPhoneNumber(state, { account_id: 1, type: 'sip', phone_number: '+14155550100' })
 */
export function insertPhoneNumber(state: SimState, input: InsertNumberInput): PhoneNumber {
  const bag = new ErrorBag();
  if (!state.db.accounts.get(input.account_id)) bag.rule('account_id', 'exists');
  const read = readE164(input.phone_number, state.wire);
  if (!read) bag.add('phone_number', PHONE_MESSAGES.invalidNumber);
  else if (state.db.phoneNumbers.first('number', read.number)) bag.add('phone_number', PHONE_MESSAGES.taken);
  bag.throwIfAny();
  const now = state.clock.now();
  const number = state.db.phoneNumbers.insert({
    account_id: input.account_id,
    phone_number: read!.number,
    country_code: read!.country,
    type: input.type,
    sms_capable: false,
    region: regionOf(read!.country),
    has_active_subscription: false,
    subscription: null,
    created_at: now,
  });
  // live-platform C.4: a sip number is a SIP trunk, with the default trunk settings (decision).
  return input.type === 'sip' ? state.db.phoneNumbers.update(number.id, { sip: defaultTrunk(state.random.seed, number.id, now) }) : number;
}

