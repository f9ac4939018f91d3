/** Accounts and authentication (ARCHITECTURE §3; decisions: Plan, Fixtures for every account). */
import { shapeA } from '../../core/errors.js';
import { bearerToken } from '../../core/http.js';
import { toMicros } from '../../core/money.js';
import { accountKeyOf, inSandbox } from '../../core/sandbox-keys.js';
import { ErrorBag } from '../../core/validation.js';
import { provisionKnowledgebases } from '../knowledgebases/service.js';
import { provisionTools } from '../tools/service.js';
import { provisionMessaging } from '../msgapp/service.js';
import { accountCtx } from '../context.js';
import type { SimState } from '../state.js';
import { DEFAULT_BALANCE_USD, DEFAULT_PLAN, DEFAULT_RATES, type Account, type AccountInput, type AccountPatch, type Rates } from './schema.js';

/** Rates given in USD over `base`; each one left out keeps its value. */
function ratesOf(input: AccountInput['rates'], base: Rates): Rates {
  const pick = (usd: number | undefined, micros: number) => (usd === undefined ? micros : toMicros(usd));
  return {
    ai_per_minute_micros: pick(input?.ai_per_minute, base.ai_per_minute_micros),
    carrier_per_minute_micros: pick(input?.carrier_per_minute, base.carrier_per_minute_micros),
    widget_message_micros: pick(input?.widget_message, base.widget_message_micros),
    template_message_micros: pick(input?.template_message, base.template_message_micros),
    freeform_message_micros: pick(input?.freeform_message, base.freeform_message_micros),
    sms_segment_micros: pick(input?.sms_segment, base.sms_segment_micros ?? DEFAULT_RATES.sms_segment_micros!),
  };
}

export const ACCOUNT_MESSAGES = {
  notFound: 'Account not found.',
  apiKeyTaken: 'The api key has already been taken.',
  /** issue 35: a sandbox's keys name it, so that the server routes each to its sandbox. */
  apiKeyOutsideSandbox: (sandboxKey: string) => `The api key of an account in a sandbox must be the sandbox's key or start with "${sandboxKey}_".`,
  /** The same rule for a snapshot restored into a sandbox (SnapshotError's problem text). */
  snapshotOutsideSandbox: (sandboxKey: string) => `must be the sandbox's key or start with "${sandboxKey}_" in this sandbox`,
} as const;

/** A generated account key: `sim_<part>`, in a sandbox an account key of it (`<sandbox key>_<part>`). */
function generatedKey(sandboxKey: string | null, part: string): string {
  return sandboxKey === null ? `sim_${part}` : accountKeyOf(sandboxKey, part);
}

function checkApiKey(state: SimState, apiKey: string | undefined, selfId?: number): void {
  if (apiKey === undefined) return;
  if (!inSandbox(state.sandboxKey, apiKey)) new ErrorBag().add('api_key', ACCOUNT_MESSAGES.apiKeyOutsideSandbox(state.sandboxKey!)).throwIfAny();
  const holder = state.db.accounts.first('api_key', apiKey);
  if (holder && holder.id !== selfId) new ErrorBag().add('api_key', ACCOUNT_MESSAGES.apiKeyTaken).throwIfAny();
}

/**
 * Creates an account with its fixtures (knowledge bases, tools); unspecified fields
 * are generated from the seed.
 * @example createAccount(state, { api_key: 'sim_other_key', balance: 5 })
 */
export function createAccount(state: SimState, input: AccountInput): Account {
  checkApiKey(state, input.api_key);
  const { faker } = state.random;
  const name = input.name ?? faker.company.name();
  const account = state.db.accounts.insert({
    name,
    email: input.email ?? faker.internet.email({ firstName: name.split(/\W+/)[0], provider: 'example.test' }).toLowerCase(),
    // issue 35: a sandbox's generated keys start with its own, so that they route to it (and never clash with another's).
    api_key: input.api_key ?? generatedKey(state.sandboxKey, faker.string.alphanumeric({ length: 32, casing: 'lower' })),
    balance_micros: toMicros(input.balance ?? DEFAULT_BALANCE_USD),
    has_payment_method: input.has_payment_method ?? true,
    timezone: input.timezone ?? 'UTC',
    plan: { ...DEFAULT_PLAN, ...input.plan },
    rates: ratesOf(input.rates, DEFAULT_RATES),
    recent_sends: [],
    recent_replies: [],
    created_at: state.clock.now(),
  });
  // The fixtures are written when one of their tables is first used, with what they read now (db.ts `fixtures`).
  const now = account.created_at;
  state.db.fixtures.add(() => {
    const ctx = accountCtx(account, state);
    provisionKnowledgebases(ctx, now);
    provisionTools(ctx, now);
    provisionMessaging(ctx, name);
  });
  return account;
}

/** Changes any of the create fields of an account. */
export function patchAccount(state: SimState, id: number, patch: AccountPatch): Account {
  const account = state.db.accounts.get(id);
  if (!account) throw shapeA(404, ACCOUNT_MESSAGES.notFound);
  checkApiKey(state, patch.api_key, id);
  return state.db.accounts.update(id, {
    ...(patch.name !== undefined && { name: patch.name }),
    ...(patch.email !== undefined && { email: patch.email }),
    ...(patch.api_key !== undefined && { api_key: patch.api_key }),
    ...(patch.balance !== undefined && { balance_micros: toMicros(patch.balance) }),
    ...(patch.has_payment_method !== undefined && { has_payment_method: patch.has_payment_method }),
    ...(patch.timezone !== undefined && { timezone: patch.timezone }),
    ...(patch.plan !== undefined && { plan: { ...account.plan, ...patch.plan } }),
    ...(patch.rates !== undefined && { rates: ratesOf(patch.rates, account.rates) }),
  });
}

/** The account of `Authorization: Bearer <key>`, if the key is known. */
export function authenticate(state: SimState, authorization: string | undefined): Account | undefined {
  const token = bearerToken(authorization);
  return token === undefined ? undefined : state.db.accounts.first('api_key', token);
}
