/**
 * Writing HAR 1.2 (`voxsim record`): one entry per exchange, appended, so the file is a
 * valid, complete HAR whenever it is read and an exchange costs the same at the 10,000th
 * entry as at the first (issue 34; it was rewritten whole after each one before). Secrets
 * never reach the file: `Authorization`, cookies and keys in query strings become
 * `<redacted>`, and so does every bearer token seen, wherever else it appears (an answer
 * that shows an account's key).
 */
import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { bearerToken } from '../core/http.js';
import { writeFileAtomically } from '../state/atomic.js';
import type { HarEntry, HarLog } from './har.js';

export const REDACTED = '<redacted>';

/** Headers whose values are secrets. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key', 'x-admin-token']);
/** Query parameters whose values are secrets. */
const SECRET_PARAMS = /^(api[_-]?key|key|token|access[_-]?token|auth|apikey|secret)$/i;

/** One exchange as the proxy saw it: bytes as sent and received. */
export interface RecordedExchange {
  /** Epoch ms the request started. */
  startedAt: number;
  /** Real milliseconds until the answer was read whole. */
  durationMs: number;
  method: string;
  /** The URL the request went to (the upstream's). */
  url: string;
  httpVersion?: string;
  requestHeaders: [string, string][];
  requestBody: Uint8Array | null;
  status: number;
  statusText: string;
  responseHeaders: [string, string][];
  /** The body as received (still content-encoded, as the client got it). */
  responseBody: Uint8Array;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Text of bytes: UTF-8 when they are, else base64 (and the encoding says so). */
function textOf(bytes: Uint8Array): { text: string; encoding?: 'base64' } {
  try {
    return { text: utf8.decode(bytes) };
  } catch {
    return { text: Buffer.from(bytes).toString('base64'), encoding: 'base64' };
  }
}

/** The body decoded of its content-encoding (HAR's `content.text` is the decoded body); as received when it cannot be. */
function decoded(bytes: Uint8Array, encoding: string | undefined): Uint8Array {
  try {
    switch (encoding?.trim().toLowerCase()) {
      case 'gzip':
      case 'x-gzip':
        return gunzipSync(bytes);
      case 'deflate':
        return inflateSync(bytes);
      case 'br':
        return brotliDecompressSync(bytes);
      default:
        return bytes;
    }
  } catch {
    return bytes;
  }
}

/** A URL with its secret query values redacted. */
export function redactUrl(url: string): string {
  const parsed = new URL(url);
  for (const name of [...parsed.searchParams.keys()]) if (SECRET_PARAMS.test(name)) parsed.searchParams.set(name, REDACTED);
  return parsed.href;
}

const headerValue = (headers: [string, string][], name: string) => headers.find(([n]) => n.toLowerCase() === name)?.[1];

/**
 * The HAR entry of an exchange, secrets redacted (the headers and query values here; the
 * tokens elsewhere by HarWriter).
 * @example harEntry(exchange).request.headers.find((h) => h.name === 'authorization')?.value // '<redacted>'
 */
export function harEntry(x: RecordedExchange): HarEntry {
  const url = redactUrl(x.url);
  const headers = (list: [string, string][]) => list.map(([name, value]) => ({ name, value: SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : value }));
  const requestType = headerValue(x.requestHeaders, 'content-type');
  const responseType = headerValue(x.responseHeaders, 'content-type');
  const body = decoded(x.responseBody, headerValue(x.responseHeaders, 'content-encoding'));
  const content = textOf(body);
  const post = x.requestBody === null || x.requestBody.length === 0 ? undefined : textOf(x.requestBody);
  return {
    startedDateTime: new Date(x.startedAt).toISOString(),
    time: x.durationMs,
    request: {
      method: x.method,
      url,
      httpVersion: x.httpVersion ?? 'HTTP/1.1',
      cookies: [],
      headers: headers(x.requestHeaders),
      queryString: [...new URL(url).searchParams].map(([name, value]) => ({ name, value })),
      ...(post && { postData: { mimeType: requestType ?? 'application/octet-stream', text: post.text, ...(post.encoding && { _encoding: post.encoding }) } }),
      headersSize: -1,
      bodySize: x.requestBody?.length ?? 0,
    },
    response: {
      status: x.status,
      statusText: x.statusText,
      httpVersion: x.httpVersion ?? 'HTTP/1.1',
      cookies: [],
      headers: headers(x.responseHeaders),
      content: { size: body.length, mimeType: responseType ?? 'application/octet-stream', text: content.text, ...(content.encoding && { encoding: content.encoding }) },
      redirectURL: headerValue(x.responseHeaders, 'location') ?? '',
      headersSize: -1,
      bodySize: x.responseBody.length,
    },
    cache: {},
    timings: { send: 0, wait: x.durationMs, receive: 0 },
  };
}

/** What closes a log with entries: the list, `log` and the document (HarWriter.text's layout). */
const CLOSE = '\n]\n  }\n}\n';

/**
 * A HAR file kept valid after each exchange. The file is the log's head, its entries and
 * CLOSE; `add` writes `,` and the new entry over the old CLOSE, then CLOSE again, in one
 * positional write (the first entry goes in place of the empty list `[]`): earlier bytes are
 * never written again, and the file is a complete HAR before and after that write. The whole
 * file is written anew (to a temporary file renamed over it) only when it starts, when a
 * token seen for the first time must be redacted in earlier entries, and after a write that
 * failed.
 * @example const har = new HarWriter('session.har', '0.1.0'); har.write(); har.add(exchange)
 */
export class HarWriter {
  /** Each entry's JSON, kept so a rewrite does not serialise them again. */
  private readonly entries: string[] = [];
  private readonly secrets = new Set<string>();
  /** The open file once it is written; `undefined` before, and after a write that failed (the next add rewrites it). */
  private fd: number | undefined;
  /** The file's length in bytes, CLOSE (or the empty list's close) included. */
  private size = 0;
  /** Where the entries' list starts: the `[` of `[]` in an empty log. */
  private listAt = 0;

  constructor(
    readonly file: string,
    private readonly version: string,
    /** Extra `log` fields (`_voxsim`: the upstream and base path). */
    private readonly extra: Record<string, unknown> = {},
  ) {}

  get count(): number {
    return this.entries.length;
  }

  /** Adds an exchange and writes it to the file; a token seen in it is redacted everywhere from now on, earlier entries included. */
  add(exchange: RecordedExchange): void {
    const token = bearerToken(headerValue(exchange.requestHeaders, 'authorization'));
    const fresh = token !== undefined && token !== REDACTED && token.length >= 4 && !this.secrets.has(token);
    if (fresh) this.secrets.add(token);
    let changed = false;
    if (fresh) {
      for (let i = 0; i < this.entries.length; i++) {
        const scrubbed = this.scrub(this.entries[i]!);
        if (scrubbed !== this.entries[i]) [this.entries[i], changed] = [scrubbed, true];
      }
    }
    const entry = this.scrub(JSON.stringify(harEntry(exchange)));
    this.entries.push(entry);
    if (this.file === '') return;
    // An earlier entry that now shows a redacted token is rewritten with the whole file (once per new token).
    if (changed || this.fd === undefined) return this.write();
    this.append(entry);
  }

  /** Writes the whole file as it stands (an empty log before the first exchange) and keeps it open for appends; nothing without a file. */
  write(): void {
    if (this.file === '') return;
    this.release();
    const text = this.text();
    // Replaced whole atomically and durably (src/state/atomic.ts); appends go to it after.
    writeFileAtomically(this.file, text);
    this.fd = openSync(this.file, 'r+');
    this.size = Buffer.byteLength(text);
    this.listAt = Buffer.byteLength(this.head());
  }

  /** Closes the file (a later add opens it again, written whole). */
  close(): void {
    this.release();
  }

  /** The HAR's text. */
  text(): string {
    // The entries go where the empty list is: `"entries": []` is the log's last key.
    return this.entries.length === 0 ? `${this.head()}[]\n  }\n}\n` : `${this.head()}[\n${this.entries.join(',\n')}${CLOSE}`;
  }

  /** The log as an object (for in-process use). */
  log(): HarLog {
    return JSON.parse(this.text()) as HarLog;
  }

  /** The file's text before the entries' list: the log's other fields, up to `"entries": `. */
  private head(): string {
    const log = { version: '1.2', creator: { name: 'voxsim', version: this.version }, ...this.extra };
    const text = JSON.stringify({ log: { ...log, entries: [] } }, null, 2);
    return text.slice(0, text.lastIndexOf('[]'));
  }

  /**
   * Writes `entry` (already in `entries`) over the file's close, and the close after it. A
   * write that fails puts the old close back (the file stays the HAR it was) and leaves the
   * file to be rewritten whole at the next exchange, this entry included, as before.
   */
  private append(entry: string): void {
    const first = this.entries.length === 1;
    // The first entry replaces the empty list `[]` and what follows; a later one, the close.
    const at = first ? this.listAt : this.size - CLOSE.length;
    const bytes = Buffer.from(`${first ? '[\n' : ',\n'}${entry}${CLOSE}`);
    const fd = this.fd!;
    try {
      for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, at + done);
      this.size = at + bytes.length;
    } catch (error) {
      try {
        writeSync(fd, first ? '[]\n  }\n}\n' : CLOSE, at);
        ftruncateSync(fd, this.size);
      } catch {
        // The next exchange writes the whole file anew.
      }
      this.release();
      throw error;
    }
  }

  private release(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    closeSync(fd);
  }

  private scrub(text: string): string {
    let out = text;
    for (const secret of this.secrets) out = out.replaceAll(JSON.stringify(secret).slice(1, -1), REDACTED);
    return out;
  }
}
