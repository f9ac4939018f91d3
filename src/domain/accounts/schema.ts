/** Accounts: the records behind API keys, and their wire shapes. */
import * as z from 'zod';
import { integer } from '../../core/answers.js';
import { fromMicros } from '../../core/money.js';
import { isTimezone } from '../../core/time.js';
import { RULE_MESSAGES, int, str, usd } from '../../core/validation.js';
import { lazySchema, once } from '../../core/lazy-schema.js';

/** Plan limits (decisions: Plan, configurable per account). */
export interface Plan {
  max_campaigns: number;
  max_calls_in_parallel: number;
  max_tools: number;
}

/** The highest price an account's rates may set (decisions: Billing defaults): the API's bound, and a restored account's (state/rows.ts). */
export const MAX_PRICE_USD = 1000;

export const DEFAULT_PLAN: Plan = { max_campaigns: 10, max_calls_in_parallel: 10, max_tools: 5 };

/** Prices (decisions: Billing defaults, Messaging prices; spec: Widget message price), in micro-dollars. */
export interface Rates {
  ai_per_minute_micros: number;
  carrier_per_minute_micros: number;
  widget_message_micros: number;
  template_message_micros: number;
  freeform_message_micros: number;
  /** live-platform C.5: the price of one SMS segment; absent in older snapshots (then the default). */
  sms_segment_micros?: number;
}

export const DEFAULT_RATES: Rates = {
  ai_per_minute_micros: 100_000,
  carrier_per_minute_micros: 10_000,
  widget_message_micros: 10_000,
  template_message_micros: 50_000,
  freeform_message_micros: 10_000,
  // live-platform C.5: 0.05 USD per segment (the live per-segment example, in the spec's USD).
  sms_segment_micros: 50_000,
};

export interface Account {
  id: number;
  name: string;
  email: string;
  api_key: string;
  balance_micros: number;
  has_payment_method: boolean;
  timezone: string;
  plan: Plan;
  rates: Rates;
  /** When the last accepted messaging sends happened (the rate limit's sliding window). */
  recent_sends: number[];
  /** When the last accepted AI reply generations happened (live-platform B.1); absent in older snapshots. */
  recent_replies?: number[];
  created_at: number;
}

/** The documented key of the default account (ARCHITECTURE §3). */
export const DEFAULT_API_KEY = 'sim_test_key';
export const DEFAULT_ACCOUNT = {
  name: 'Voxsim Test Account',
  email: 'test@voxsim.test',
  api_key: DEFAULT_API_KEY,
} as const;
/** Every account starts with 100 USD and a payment method (decisions: Fixtures for every account). */
export const DEFAULT_BALANCE_USD = 100;

const timezone = lazySchema(() => z.string().refine(isTimezone, { error: RULE_MESSAGES.timezone }));

// Closed, like every nested object of a control input: a misspelt key is refused (422), never dropped.
const planInput = lazySchema(() => z.strictObject({
  max_campaigns: int(0, 1000).optional(),
  max_calls_in_parallel: int(1, 1000).optional(),
  max_tools: int(0, 100).optional(),
}));

/** A price (decisions: Billing defaults): at most 1000 USD. */
const price = () => usd(MAX_PRICE_USD);
const ratesInput = lazySchema(() => z.strictObject({
  ai_per_minute: price().optional(),
  carrier_per_minute: price().optional(),
  widget_message: price().optional(),
  template_message: price().optional(),
  freeform_message: price().optional(),
  sms_segment: price().optional(),
}));

const accountFields = once(() => ({
  name: str(255).min(1).optional(),
  email: str(255).email({ error: 'The :attribute must be a valid email address.' }).optional(),
  api_key: z
    .string()
    .min(8, { error: RULE_MESSAGES.minString.replace(':min', '8') })
    .max(128, { error: RULE_MESSAGES.maxString.replace(':max', '128') })
    .regex(/^[A-Za-z0-9_\-.]+$/, { error: 'The :attribute may only contain letters, numbers, dashes, dots and underscores.' })
    .optional(),
  balance: usd().optional(),
  has_payment_method: z.boolean().optional(),
  timezone: timezone.optional(),
  plan: planInput.optional(),
  rates: ratesInput.optional(),
}));

/** `POST /__sim/accounts` and `createSimulator({accounts})`. */
export const AccountInput = lazySchema(() => z.object(accountFields()));
export type AccountInput = z.infer<typeof AccountInput>;

/** `PATCH /__sim/accounts/{id}`: any of the create fields. */
export const AccountPatch = lazySchema(() => z.object(accountFields()));
export type AccountPatch = z.infer<typeof AccountPatch>;

/** An account as the control API shows it (`serialiseAccount`). */
export const AccountRecord = lazySchema(() => z
  .object({
    id: integer(),
    name: z.string(),
    email: z.string(),
    api_key: z.string(),
    balance: z.number(),
    has_payment_method: z.boolean(),
    timezone: z.string(),
    plan: z.object({ max_campaigns: integer(), max_calls_in_parallel: integer(), max_tools: integer() }),
    rates: z.object({
      ai_per_minute: z.number(),
      carrier_per_minute: z.number(),
      widget_message: z.number(),
      template_message: z.number(),
      freeform_message: z.number(),
      sms_segment: z.number(),
    }),
  })
  .meta({ id: 'Account' }));
export type AccountRecord = z.output<typeof AccountRecord>;

/** `GET /user/me` (decisions: Account). */
export const MeRecord = lazySchema(() => z.object({ name: z.string(), email: z.string(), total_balance: z.number() }).meta({ id: 'Me' }));
export type MeRecord = z.output<typeof MeRecord>;

/** An account as the control API shows it. */
export function serialiseAccount(a: Account): AccountRecord {
  return {
    id: a.id,
    name: a.name,
    email: a.email,
    api_key: a.api_key,
    balance: fromMicros(a.balance_micros),
    has_payment_method: a.has_payment_method,
    timezone: a.timezone,
    plan: { ...a.plan },
    rates: {
      ai_per_minute: fromMicros(a.rates.ai_per_minute_micros),
      carrier_per_minute: fromMicros(a.rates.carrier_per_minute_micros),
      widget_message: fromMicros(a.rates.widget_message_micros),
      template_message: fromMicros(a.rates.template_message_micros),
      freeform_message: fromMicros(a.rates.freeform_message_micros),
      sms_segment: fromMicros(a.rates.sms_segment_micros ?? DEFAULT_RATES.sms_segment_micros!),
    },
  };
}

/** `GET /user/me` (decisions: Account). */
export function serialiseMe(a: Account): MeRecord {
  return { name: a.name, email: a.email, total_balance: fromMicros(a.balance_micros) };
}
