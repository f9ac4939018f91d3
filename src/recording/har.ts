/**
 * HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), the part drift and from-har
 * read: each entry's start, request (method, URL, headers, body) and response (status,
 * headers, body). Written by `voxsim record` and by any tool that writes HAR (browsers'
 * dev tools, Playwright's `recordHar`, mitmproxy); the fields those tools add are kept and
 * ignored. A body is `text`, base64 when `encoding` says so (`_encoding` on a request body,
 * which HAR 1.2 leaves without one: voxsim writes a binary upload that way).
 */
import * as z from 'zod';
import { parseInstant } from '../core/time.js';
import { lazySchema } from '../core/lazy-schema.js';

/** A HAR that cannot be read, located: `FILE: entry 3: request.url: ...`. */
export class HarError extends Error {
  constructor(
    readonly file: string,
    /** 1-based index in `log.entries`, null for the log itself. */
    readonly entry: number | null,
    readonly detail: string,
  ) {
    super(`${file}: ${entry === null ? '' : `entry ${entry}: `}${detail}`);
  }
}

const NameValue = lazySchema(() => z.looseObject({ name: z.string(), value: z.string() }));

const PostData = lazySchema(() => z.looseObject({
  mimeType: z.string().optional(),
  text: z.string().optional(),
  encoding: z.string().optional(),
  _encoding: z.string().optional(),
  params: z.array(z.looseObject({ name: z.string(), value: z.string().optional(), fileName: z.string().optional() })).optional(),
}));

const Content = lazySchema(() => z.looseObject({
  size: z.number().optional(),
  mimeType: z.string().optional(),
  text: z.string().optional(),
  encoding: z.string().optional(),
}));

/** One HAR entry, as far as it is read. */
export const HarEntrySchema = lazySchema(() => z.looseObject({
  startedDateTime: z.string().refine((text) => parseInstant(text) !== undefined, { error: 'must be an ISO 8601 time' }),
  time: z.number().optional(),
  request: z.looseObject({
    method: z.string().min(1),
    url: z.string().refine((text) => URL.canParse(text), { error: 'must be an absolute URL' }),
    httpVersion: z.string().optional(),
    headers: z.array(NameValue),
    queryString: z.array(NameValue).optional(),
    cookies: z.array(z.unknown()).optional(),
    postData: PostData.optional(),
  }),
  response: z.looseObject({
    status: z.number().int(),
    statusText: z.string().optional(),
    headers: z.array(NameValue),
    cookies: z.array(z.unknown()).optional(),
    content: Content,
  }),
}));
export type HarEntry = z.infer<typeof HarEntrySchema>;

export interface HarLog {
  log: { version: string; creator: { name: string; version: string }; entries: HarEntry[]; [key: string]: unknown };
}

/** An exchange of a HAR, decoded: absolute time, URL, the bodies as bytes and as text. */
export interface Exchange {
  /** 1-based index in `log.entries`. */
  entry: number;
  /** Epoch ms of `startedDateTime`. */
  at: number;
  method: string;
  url: URL;
  requestHeaders: Record<string, string>;
  requestBytes: Uint8Array | null;
  status: number;
  responseHeaders: Record<string, string>;
  responseText: string;
}

/** The headers of a HAR list, names in lower case (a repeated one keeps its first value, as the router reads them). */
function headerRecord(list: { name: string; value: string }[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { name, value } of list) out[name.toLowerCase()] ??= value;
  return out;
}

/** Text of a HAR body: base64 decoded when its encoding says so. */
function bodyBytes(text: string | undefined, encoding: string | undefined): Uint8Array | null {
  if (text === undefined) return null;
  return encoding?.toLowerCase() === 'base64' ? new Uint8Array(Buffer.from(text, 'base64')) : new TextEncoder().encode(text);
}

/** A zod issue as one line: `request.url: must be an absolute URL`. */
function issueLine(issue: z.core.$ZodIssue): string {
  const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '');
  return `${path || 'entry'}: ${issue.message}`;
}

/**
 * Reads a HAR's text: its exchanges in recorded order, each decoded. A file that is not a
 * HAR, or an entry that cannot be read, is a HarError naming the file and the entry.
 * @example readHar(readFileSync('session.har', 'utf8'), 'session.har')[0].url.pathname // '/api/user/me'
 */
export function readHar(source: string | object, file = '<har>'): Exchange[] {
  let data: unknown = source;
  if (typeof source === 'string') {
    try {
      data = JSON.parse(source);
    } catch (error) {
      throw new HarError(file, null, `not JSON (${(error as Error).message.split('\n')[0]})`);
    }
  }
  const log = (data as { log?: { entries?: unknown } } | null)?.log;
  if (typeof log !== 'object' || log === null) throw new HarError(file, null, 'not a HAR file (no "log" object)');
  if (!Array.isArray(log.entries)) throw new HarError(file, null, 'not a HAR file (no "log.entries" list)');
  return log.entries.map((raw, i): Exchange => {
    const parsed = HarEntrySchema.safeParse(raw);
    if (!parsed.success) throw new HarError(file, i + 1, issueLine(parsed.error.issues[0]!));
    const { request, response, startedDateTime } = parsed.data;
    const post = request.postData;
    let responseText: string;
    try {
      const bytes = bodyBytes(response.content.text, response.content.encoding);
      responseText = bytes === null ? '' : new TextDecoder('utf-8', { fatal: false }).decode(bytes);
    } catch (error) {
      throw new HarError(file, i + 1, `response.content.text: ${(error as Error).message}`);
    }
    return {
      entry: i + 1,
      at: parseInstant(startedDateTime)!,
      method: request.method.toUpperCase(),
      url: new URL(request.url),
      requestHeaders: headerRecord(request.headers),
      requestBytes: post ? bodyBytes(post.text ?? formText(post.params), post.encoding ?? post._encoding) : null,
      status: response.status,
      responseHeaders: headerRecord(response.headers),
      responseText,
    };
  });
}

/** A body given only as `params` (a browser's form): url-encoded text of its values. */
function formText(params: { name: string; value?: string | undefined }[] | undefined): string | undefined {
  if (!params) return undefined;
  return new URLSearchParams(params.map((p) => [p.name, p.value ?? ''])).toString();
}

/**
 * A body's JSON, else its text (undefined when empty).
 * @example parseBodyText('{"a":1}') // { a: 1 }
 */
export function parseBodyText(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
