/**
 * Writing HAR 1.2 (`voxsim record`): one entry per exchange, the file rewritten whole and
 * renamed into place after each one, so it is a valid HAR whenever it is read. Secrets
 * never reach the file: `Authorization`, cookies and keys in query strings become
 * `<redacted>`, and so does every bearer token seen, wherever else it appears (an answer
 * that shows an account's key).
 */
import { renameSync, writeFileSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { bearerToken } from '../core/http.js';
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

/**
 * A HAR file kept valid after each exchange: `add` writes the whole log to a temporary
 * file beside it and renames that over it.
 * @example const har = new HarWriter('session.har', '0.1.0'); har.add(exchange)
 */
export class HarWriter {
  /** Each entry's JSON, kept so a rewrite does not serialise them again. */
  private readonly entries: string[] = [];
  private readonly secrets = new Set<string>();

  constructor(
    readonly file: string,
    private readonly version: string,
    /** Extra `log` fields (`_voxsim`: the upstream and base path). */
    private readonly extra: Record<string, unknown> = {},
  ) {}

  get count(): number {
    return this.entries.length;
  }

  /** Adds an exchange and rewrites the file; a token seen in it is redacted everywhere from now on, earlier entries included. */
  add(exchange: RecordedExchange): void {
    const token = bearerToken(headerValue(exchange.requestHeaders, 'authorization'));
    const fresh = token !== undefined && token !== REDACTED && token.length >= 4 && !this.secrets.has(token);
    if (fresh) this.secrets.add(token);
    if (fresh) for (let i = 0; i < this.entries.length; i++) this.entries[i] = this.scrub(this.entries[i]!);
    this.entries.push(this.scrub(JSON.stringify(harEntry(exchange))));
    this.write();
  }

  /** Writes the file as it stands (an empty log before the first exchange); nothing without a file. */
  write(): void {
    if (this.file === '') return;
    const temp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temp, this.text());
    renameSync(temp, this.file);
  }

  /** The HAR's text. */
  text(): string {
    const log = { version: '1.2', creator: { name: 'voxsim', version: this.version }, ...this.extra };
    const head = JSON.stringify({ log: { ...log, entries: [] } }, null, 2);
    // The entries go where the empty list is: `"entries": []` is the log's last key.
    return `${head.slice(0, head.lastIndexOf('[]'))}[\n${this.entries.join(',\n')}\n]\n  }\n}\n`.replace('[\n\n]', '[]');
  }

  /** The log as an object (for in-process use). */
  log(): HarLog {
    return JSON.parse(this.text()) as HarLog;
  }

  private scrub(text: string): string {
    let out = text;
    for (const secret of this.secrets) out = out.replaceAll(JSON.stringify(secret).slice(1, -1), REDACTED);
    return out;
  }
}
