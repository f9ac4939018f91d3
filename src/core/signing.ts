/**
 * Signatures of what the platform sends (live-platform H.4: `X-Signature-256` is the hex
 * HMAC-SHA256 of the raw body with the sender's signing secret).
 */
import { lazyRequire } from './lazy.js';

/** node:crypto, loaded by the first signature made: importing voxsim does not load it (issue 29). */
const crypto = lazyRequire<typeof import('node:crypto')>('node:crypto');

/**
 * The hex HMAC-SHA256 of `text` (UTF-8) with `secret`.
 * @example hmacSha256Hex('s', '{}') // '5f1c…' (64 hex digits)
 */
export function hmacSha256Hex(secret: string, text: string): string {
  return crypto().createHmac('sha256', secret).update(text, 'utf8').digest('hex');
}

/**
 * The hex SHA-256 of `text` (UTF-8).
 * @example sha256Hex('abc').slice(0, 8) // 'ba7816bf'
 */
export function sha256Hex(text: string): string {
  return crypto().createHash('sha256').update(text, 'utf8').digest('hex');
}
