/**
 * The form of sandbox keys and ids (src/core/sandbox-keys.ts; docs/sandboxes.md "Keys",
 * "Sharding"): minted, read back, and the shard they name.
 */
import { describe, expect, it } from 'vitest';
import { accountKeyOf, inSandbox, isSandboxToken, mintSandboxId, mintSandboxKey, SANDBOX_ID, SANDBOX_KEY, sandboxKeysOf, shardOf } from '../../src/core/sandbox-keys.js';

describe('sandbox keys and ids', () => {
  it('mints keys and ids of the documented form, a shard name in them when there is one', () => {
    expect([mintSandboxKey(), mintSandboxId()]).toEqual([expect.stringMatching(/^vsk_[0-9a-f]{24}$/), expect.stringMatching(/^sbx_[0-9a-f]{12}$/)]);
    expect([mintSandboxKey('east-1'), mintSandboxId('east-1')]).toEqual([expect.stringMatching(/^vsk_east-1_[0-9a-f]{24}$/), expect.stringMatching(/^sbx_east-1_[0-9a-f]{12}$/)]);
    expect(SANDBOX_KEY.test(mintSandboxKey('a'))).toBe(true);
    expect(SANDBOX_ID.test(mintSandboxId('a'))).toBe(true);
    expect(mintSandboxKey()).not.toBe(mintSandboxKey());
    expect(() => mintSandboxKey('East 1')).toThrow('shard must be 1-32 lowercase letters, digits or dashes, starting with a letter or digit: East 1');
  });

  it('reads the sandbox key a token starts with: the key itself, an account key of it, on a shard or not', () => {
    const key = 'vsk_0123456789abcdef01234567';
    const sharded = 'vsk_b_0123456789abcdef01234567';
    expect(sandboxKeysOf(key)).toEqual([key]);
    expect(sandboxKeysOf(`${key}_ops`)).toEqual([key]);
    expect(sandboxKeysOf(sharded)).toEqual([sharded]);
    expect(sandboxKeysOf(`${sharded}_ops_2`)).toEqual([sharded]);
    // A key without a shard whose account part is 24 hex digits reads both ways: the server knows which it minted.
    expect(sandboxKeysOf(`${key}_abcdefabcdefabcdefabcdef`)).toEqual([key, `${key}_abcdefabcdefabcdefabcdef`]);
    expect([sandboxKeysOf('vsk_nothex'), sandboxKeysOf('sim_test_key'), sandboxKeysOf('vsk_')]).toEqual([[], [], []]);
    expect([isSandboxToken('vsk_x'), isSandboxToken('sim_test_key'), isSandboxToken(undefined)]).toEqual([true, false, false]);
  });

  it('tells the shard of a key or id, none for one without', () => {
    expect([shardOf('vsk_b_0123456789abcdef01234567'), shardOf('sbx_east-1_0123456789ab'), shardOf('vsk_0123456789abcdef01234567'), shardOf('sbx_0123456789ab'), shardOf('sim_a_b')]).toEqual(['b', 'east-1', undefined, undefined, undefined]);
  });

  it("takes a sandbox's key and the keys that start with it and _ as its accounts' keys", () => {
    const key = 'vsk_0123456789abcdef01234567';
    expect([inSandbox(key, key), inSandbox(key, accountKeyOf(key, 'ops')), inSandbox(key, `${key}ops`), inSandbox(key, 'sim_test_key'), inSandbox(null, 'anything')]).toEqual([true, true, false, false, true]);
    expect(accountKeyOf(key, 'ops')).toBe(`${key}_ops`);
  });
});
