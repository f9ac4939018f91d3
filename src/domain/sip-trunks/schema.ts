/**
 * SIP trunks (live-platform C.4): a SIP trunk is a phone number of type `sip` with trunk
 * settings. Input schemas, the trunk ids and the wire record.
 */
import * as z from 'zod';
import { integer, isoTimestamp } from '../../core/answers.js';
import { SeededRandom } from '../../core/random.js';
import { formatIsoUtc } from '../../core/time.js';
import { oneOf, str, strBetween } from '../../core/validation.js';
import { SIP_AUTHORIZATION_TYPES, SIP_CALLING_FORMATS, SIP_TRUNK_TYPES, type PhoneNumber, type SipTrunkSettings } from '../phone-numbers/schema.js';
import { lazyRequire } from '../../core/lazy.js';
import { lazySchema, once } from '../../core/lazy-schema.js';

const net = lazyRequire<typeof import('node:net')>('node:net');

/**
 * Whether a text is an IPv4 or IPv6 address. node:net is asked when a trunk is first
 * checked, not loaded while voxsim is imported (issue 29).
 */
function isIP(text: string): boolean {
  return net().isIP(text) !== 0;
}

/** The answers and rule texts of SIP trunks (live-platform C.4; the rules' words are ours). */
export const SIP_TRUNK_MESSAGES = {
  created: 'SIP trunk created successfully.',
  updated: 'SIP trunk updated successfully.',
  notFound: 'SIP trunk not found.',
  duplicate: 'A SIP trunk with the same phone number, username, and address already exists.',
  extensionLength: 'The phone number must be between 1 and 15 characters.',
  extensionWhitespace: 'The phone number may not contain whitespace.',
  typeFixed: 'The sip trunk type cannot be changed.',
  host: 'The :attribute must be a host name or IP address, without scheme or port.',
  ip: 'The :attribute must be a valid IP address.',
  countryCode: 'The :attribute must be two letters.',
} as const;

/** A host name (RFC 1123 labels) or a bare IPv4/IPv6 address: no scheme, no port, no path. */
export function isSipHost(value: string): boolean {
  if (isIP(value)) return true;
  if (value.length === 0 || value.length > 253) return false;
  return value.split('.').every((label) => /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(label));
}

const ips = () => z.array(z.string().refine((v) => isIP(v), { error: SIP_TRUNK_MESSAGES.ip })).min(1).nullable();

const fields = once(() => ({
  phone_number: z.string().min(1),
  nickname: str(50).nullable(),
  sip_username: strBetween(3, 128),
  sip_password: strBetween(3, 255),
  sip_address: z.string().refine(isSipHost, { error: SIP_TRUNK_MESSAGES.host }),
  sip_calling_format: oneOf(SIP_CALLING_FORMATS),
  inbound_authorization_type: oneOf(SIP_AUTHORIZATION_TYPES),
  allowed_inbound_ips: ips(),
  country_code: z.string().regex(/^[A-Za-z]{2}$/, { error: SIP_TRUNK_MESSAGES.countryCode }),
  outbound_proxy: z.boolean(),
}));

/**
 * `POST /user/phone-numbers/sip-trunks`. The rules that join fields (the phone number's
 * form by trunk type, the addresses required with `ip`) are checked by the service.
 */
export const CreateSipTrunkBody = lazySchema(() => z.object({
  sip_trunk_type: oneOf(SIP_TRUNK_TYPES),
  phone_number: fields().phone_number,
  nickname: fields().nickname.optional(),
  sip_username: fields().sip_username,
  sip_password: fields().sip_password,
  sip_address: fields().sip_address,
  sip_calling_format: fields().sip_calling_format,
  inbound_authorization_type: fields().inbound_authorization_type,
  allowed_inbound_ips: fields().allowed_inbound_ips.optional(),
  country_code: fields().country_code,
  outbound_proxy: fields().outbound_proxy.optional(),
}));
export type CreateSipTrunkInput = z.infer<typeof CreateSipTrunkBody>;

/** `PUT /user/phone-numbers/sip-trunks/{id}`: partial; `sip_trunk_type` may only repeat the current type. */
export const UpdateSipTrunkBody = lazySchema(
  () =>
    z.object({
      sip_trunk_type: oneOf(SIP_TRUNK_TYPES).optional(),
      ...Object.fromEntries(Object.entries(fields()).map(([name, schema]) => [name, schema.optional()])),
    }) as unknown as z.ZodType<Partial<CreateSipTrunkInput>>,
);
export type UpdateSipTrunkInput = Partial<CreateSipTrunkInput>;

/** A trunk: its number and its settings. */
export interface SipTrunk {
  number: PhoneNumber;
  sip: SipTrunkSettings;
}

const TRUNK_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A trunk id: `ST_` and 12 lowercase letters and digits (live-platform C.4, decision),
 * derived from the seed, the number, the direction and how often it was provisioned, so
 * it draws nothing from the simulator's generator and replays byte for byte.
 * @example trunkId(1, 3, 'inbound', 0) // 'ST_…' (12 characters after the prefix)
 */
export function trunkId(seed: number, numberId: number, direction: 'inbound' | 'outbound', generation: number): string {
  const random = SeededRandom.derive(seed, 'sip-trunk', numberId, direction, generation);
  let id = 'ST_';
  for (let i = 0; i < 12; i++) id += TRUNK_ALPHABET[random.int(0, TRUNK_ALPHABET.length - 1)];
  return id;
}

/**
 * The trunk settings of a `sip` number made through the control API (live-platform C.4,
 * decision): no username or address, `+e164`, `auth`, no proxy, generated trunk ids.
 */
export function defaultTrunk(seed: number, numberId: number, at: number): SipTrunkSettings {
  return {
    sip_trunk_type: 'number',
    sip_username: null,
    sip_password: null,
    sip_address: null,
    sip_calling_format: '+e164',
    inbound_authorization_type: 'auth',
    allowed_inbound_ips: null,
    outbound_proxy: false,
    inbound_trunk_id: trunkId(seed, numberId, 'inbound', 0),
    outbound_trunk_id: trunkId(seed, numberId, 'outbound', 0),
    inbound_generation: 0,
    outbound_generation: 0,
    updated_at: at,
  };
}

/**
 * The trunk record (live-platform C.4), the same on both wires; the list leaves out the
 * two trunk ids. The password is stored, never shown.
 */
/** A SIP trunk (live-platform C.4); the list leaves out the trunk ids. */
export const SipTrunkRecord = lazySchema(() => z
  .object({
    id: integer(),
    phone_number: z.string(),
    nickname: z.string().nullable(),
    sip_username: z.string().nullable(),
    sip_address: z.string().nullable(),
    sip_calling_format: z.enum(SIP_CALLING_FORMATS),
    inbound_authorization_type: z.enum(SIP_AUTHORIZATION_TYPES),
    allowed_inbound_ips: z.array(z.string()).nullable(),
    outbound_proxy: z.boolean(),
    country_code: z.string(),
    inbound_trunk_id: z.string().optional(),
    outbound_trunk_id: z.string().optional(),
    created_at: isoTimestamp(),
    updated_at: isoTimestamp(),
  })
  .meta({ id: 'SipTrunk' }));
export type SipTrunkRecord = z.output<typeof SipTrunkRecord>;

export function serialiseSipTrunk({ number: n, sip }: SipTrunk, withTrunkIds = true): SipTrunkRecord {
  return {
    id: n.id,
    phone_number: n.phone_number,
    nickname: n.nickname ?? null,
    sip_username: sip.sip_username,
    sip_address: sip.sip_address,
    sip_calling_format: sip.sip_calling_format,
    inbound_authorization_type: sip.inbound_authorization_type,
    allowed_inbound_ips: sip.allowed_inbound_ips === null ? null : [...sip.allowed_inbound_ips],
    outbound_proxy: sip.outbound_proxy,
    country_code: n.country_code,
    ...(withTrunkIds && { inbound_trunk_id: sip.inbound_trunk_id, outbound_trunk_id: sip.outbound_trunk_id }),
    created_at: formatIsoUtc(n.created_at),
    updated_at: formatIsoUtc(sip.updated_at),
  };
}
