/**
 * Answers that are files, not JSON (live-platform H.7: recordings and attachments one can
 * download): the body is bytes with their media type, and a `Range` request gets its part.
 * The adapters write a `FileBody` as it is.
 */
import { header, type SimRequest, type SimResponse } from './http.js';

/** Where a simulator serves its files: its base URL, the scope naming it among a server's sandboxes, and what its links are derived from. */
export interface FileSpace {
  /** The base URL clients reach the simulator at (the server's, the MSW handlers' `baseUrl`). */
  baseUrl: string;
  /** `sim` for a lone simulator, a digest of the sandbox key for a sandbox (the server routes a link by it). */
  readonly scope: string;
  /** What the links' unguessable part is made from: the sandbox key, else the seed. */
  secret(): string;
}

/** A file as an answer's body. */
export class FileBody {
  constructor(
    readonly bytes: Uint8Array,
    readonly contentType: string,
  ) {}
}

/** The text of a range that cannot be served (416). */
export const RANGE_NOT_SATISFIABLE = 'The requested range is not satisfiable.';

/**
 * The first and last byte of a single `bytes=` range over `size` bytes; null when it cannot
 * be served (416), undefined when there is no range to honour (the whole file: no header,
 * another unit, several ranges, or a header that is not a range at all, as RFC 9110 14.2 lets a server ignore).
 * @example byteRange('bytes=0-99', 1000) // [0, 99]
 */
export function byteRange(value: string | undefined, size: number): [number, number] | null | undefined {
  if (value === undefined) return undefined;
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(value);
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    // A suffix: the last n bytes.
    const n = Number(match[2]);
    if (n === 0 || size === 0) return null;
    return [Math.max(0, size - n), size - 1];
  }
  const first = Number(match[1]);
  const last = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (first >= size || last < first) return null;
  return [first, last];
}

/**
 * A file's answer to `request`: 200 with the whole file, 206 with the part a single range
 * asks for, 416 (shape A) for a range past its end. Public and not cached elsewhere.
 * @example fileAnswer(request, pngFile(), 'image/png', 'photo.png')
 */
export function fileAnswer(request: SimRequest, bytes: Uint8Array, contentType: string, filename: string): SimResponse {
  const disposition = `inline; filename="${filename.replace(/["\\\r\n]/g, '_')}"`;
  const common = { 'accept-ranges': 'bytes', 'content-disposition': disposition, 'cache-control': 'private, max-age=0' };
  const range = byteRange(header(request, 'range'), bytes.length);
  if (range === null) return { status: 416, headers: { ...common, 'content-range': `bytes */${bytes.length}` }, body: { message: RANGE_NOT_SATISFIABLE } };
  if (range === undefined) return { status: 200, headers: common, body: new FileBody(bytes, contentType) };
  const [first, last] = range;
  return { status: 206, headers: { ...common, 'content-range': `bytes ${first}-${last}/${bytes.length}` }, body: new FileBody(bytes.subarray(first, last + 1), contentType) };
}
