/**
 * The form of a sandbox's key and id (issue 35; docs/sandboxes.md "Keys" and "Sharding"):
 * the one place that mints them, reads them and knows where a shard's name goes in them.
 *
 *   sandbox key   vsk_<24 hex>       on a shard  vsk_<shard>_<24 hex>
 *   account key   <sandbox key>      or          <sandbox key>_<anything>
 *   sandbox id    sbx_<12 hex>       on a shard  sbx_<shard>_<12 hex>
 *
 * So a key alone tells a server (and a proxy: examples/nginx/voxsim-shards.conf) whose it
 * is. Keys are minted unguessable (node:crypto), never from a seed: a key is a credential.
 * A shard's name holds no `_`, so the parts of a key split on it.
 */
import { secretHex } from './random.js';

/** What every sandbox key starts with: a token that does is never the server's own simulator's. */
export const SANDBOX_KEY_PREFIX = 'vsk_';
/** What every sandbox id starts with. */
export const SANDBOX_ID_PREFIX = 'sbx_';
/** What a shard's name may be: it is part of every key the shard mints, and of its sandboxes' ids. */
export const SHARD_NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;

const SHARD = '[a-z0-9][a-z0-9-]{0,31}';
/** A sandbox's own key, as minted (not an account key of it). */
export const SANDBOX_KEY = new RegExp(`^vsk_(?:${SHARD}_)?[0-9a-f]{24}$`);
/** A sandbox id, as minted: ids name files under --state-dir, so nothing else is taken. */
export const SANDBOX_ID = new RegExp(`^sbx_(?:${SHARD}_)?[0-9a-f]{12}$`);

/**
 * Throws a RangeError when `shard` is no shard's name.
 * @example checkShardName('East 1') // RangeError: shard must be 1-32 lowercase letters, …
 */
export function checkShardName(shard: string): void {
  if (!SHARD_NAME.test(shard)) throw new RangeError(`shard must be 1-32 lowercase letters, digits or dashes, starting with a letter or digit: ${shard}`);
}

/** The `<shard>_` part of what a shard mints; nothing without a shard. */
function shardPart(shard: string | undefined): string {
  if (shard === undefined) return '';
  checkShardName(shard);
  return `${shard}_`;
}

/**
 * A new sandbox key (unguessable).
 * @example mintSandboxKey('east-1') // 'vsk_east-1_9f1c…' (24 hex digits)
 */
export function mintSandboxKey(shard?: string): string {
  return `${SANDBOX_KEY_PREFIX}${shardPart(shard)}${secretHex(12)}`;
}

/**
 * A new sandbox id (unguessable: an id is not a credential, but it names files).
 * @example mintSandboxId() // 'sbx_4be0…' (12 hex digits)
 */
export function mintSandboxId(shard?: string): string {
  return `${SANDBOX_ID_PREFIX}${shardPart(shard)}${secretHex(6)}`;
}

/**
 * Whether a bearer token is of the sandbox form (`vsk_…`): such a token acts as a sandbox
 * or as nothing, never as the server's own simulator nor as its admin.
 * @example isSandboxToken('vsk_1f2e…_ops') // true
 */
export function isSandboxToken(token: string | undefined): token is string {
  return token !== undefined && token.startsWith(SANDBOX_KEY_PREFIX);
}

/**
 * The sandbox keys a token may be, or be an account key of: the ones of the minted form it
 * starts with (the key of a sandbox without a shard and one of a shard may both fit; the
 * server knows which it minted).
 * @example sandboxKeysOf('vsk_a_0123456789abcdef01234567_ops') // ['vsk_a_0123456789abcdef01234567']
 */
export function sandboxKeysOf(token: string): string[] {
  if (!isSandboxToken(token)) return [];
  const parts = token.split('_');
  return [parts.slice(0, 2).join('_'), parts.slice(0, 3).join('_')].filter((key, i, all) => SANDBOX_KEY.test(key) && all.indexOf(key) === i);
}

/**
 * The shard a sandbox key or id names, undefined when none (or when it is of no sandbox form).
 * @example shardOf('sbx_east-1_0123456789ab') // 'east-1'
 */
export function shardOf(keyOrId: string): string | undefined {
  const parts = keyOrId.split('_');
  if (parts.length !== 3) return undefined;
  return (SANDBOX_KEY.test(keyOrId) || SANDBOX_ID.test(keyOrId)) ? parts[1] : undefined;
}

/**
 * Whether `apiKey` may be an account's key in the simulator of sandbox key `sandboxKey`:
 * the key itself or an account key of it; any key outside a sandbox (`null`).
 * @example inSandbox('vsk_1f2e…', 'vsk_1f2e…_ops') // true
 */
export function inSandbox(sandboxKey: string | null, apiKey: string): boolean {
  return sandboxKey === null || apiKey === sandboxKey || apiKey.startsWith(`${sandboxKey}_`);
}

/**
 * An account key of a sandbox: its key, `_`, and a part of the account's own.
 * @example accountKeyOf('vsk_1f2e…', 'ops') // 'vsk_1f2e…_ops'
 */
export function accountKeyOf(sandboxKey: string, part: string): string {
  return `${sandboxKey}_${part}`;
}
