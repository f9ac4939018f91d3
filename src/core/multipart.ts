/**
 * `multipart/form-data` bodies (RFC 7578), read from bytes so a binary upload keeps its
 * exact size. Text parts become strings; a part with a `filename` becomes an
 * `UploadedFile`, which carries the file's name, type and size but not its content
 * (no route reads an upload's content, only its size: live-platform C.1).
 */

/** A file part of a form. Only a form can hold one: no JSON value is an instance of this class. */
export class UploadedFile {
  constructor(
    readonly filename: string,
    readonly content_type: string,
    readonly size: number,
  ) {}
}

/** A form's fields: text parts as strings, file parts as files. A repeated name keeps its last part, as PHP reads forms. */
export type FormFields = Record<string, string | UploadedFile>;

/**
 * Whether a content type is `multipart/form-data`.
 * @example isMultipart('multipart/form-data; boundary=x') // true
 */
export function isMultipart(contentType: string | undefined): boolean {
  return contentType !== undefined && /^\s*multipart\/form-data\s*(;|$)/i.test(contentType);
}

/** The boundary parameter of a multipart content type (quoted or bare), if any. */
function boundaryOf(contentType: string): string | undefined {
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');

/** The first index at or after `from` where `needle` occurs in `haystack`, else -1 (the first byte is found natively). */
function indexOfBytes(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0]!;
  for (let at = haystack.indexOf(first, from); at >= 0 && at + needle.length <= haystack.length; at = haystack.indexOf(first, at + 1)) {
    let i = 1;
    while (i < needle.length && haystack[at + i] === needle[i]) i++;
    if (i === needle.length) return at;
  }
  return -1;
}

/** A parameter of a Content-Disposition header (`name="x"`), unquoted. */
function dispositionParam(disposition: string, param: string): string | undefined {
  const match = new RegExp(`;\\s*${param}="((?:[^"\\\\]|\\\\.)*)"|;\\s*${param}=([^;\\s]+)`, 'i').exec(disposition);
  if (!match) return undefined;
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2];
}

/**
 * Reads a `multipart/form-data` body; undefined when it is not well-formed (no
 * boundary, a part without a name, no closing delimiter).
 * @example parseMultipart(bytes, 'multipart/form-data; boundary=X') // { name: 'Manual', file: UploadedFile {...} }
 */
export function parseMultipart(body: Uint8Array, contentType: string): FormFields | undefined {
  const boundary = boundaryOf(contentType);
  if (boundary === undefined) return undefined;
  const delimiter = encoder.encode(`--${boundary}`);
  const nextDelimiter = encoder.encode(`\r\n--${boundary}`);
  const headerEnd = encoder.encode('\r\n\r\n');
  const fields: FormFields = Object.create(null) as FormFields;
  let at = indexOfBytes(body, delimiter, 0);
  if (at < 0) return undefined;
  at += delimiter.length;
  for (;;) {
    // After a delimiter: `--` closes the form, CRLF opens a part.
    if (body[at] === 0x2d && body[at + 1] === 0x2d) return { ...fields };
    if (body[at] !== 0x0d || body[at + 1] !== 0x0a) return undefined;
    const headersStart = at + 2;
    const headersEnd = indexOfBytes(body, headerEnd, headersStart);
    if (headersEnd < 0) return undefined;
    const headers = decoder.decode(body.subarray(headersStart, headersEnd)).split('\r\n');
    const header = (name: string) => headers.find((h) => h.toLowerCase().startsWith(`${name}:`))?.slice(name.length + 1).trim();
    const disposition = header('content-disposition');
    const name = disposition === undefined ? undefined : dispositionParam(disposition, 'name');
    if (name === undefined || name === '') return undefined;
    const contentStart = headersEnd + headerEnd.length;
    const contentEnd = indexOfBytes(body, nextDelimiter, contentStart);
    if (contentEnd < 0) return undefined;
    const filename = dispositionParam(disposition!, 'filename');
    fields[name] =
      filename === undefined
        ? decoder.decode(body.subarray(contentStart, contentEnd))
        : new UploadedFile(filename, header('content-type') ?? 'application/octet-stream', contentEnd - contentStart);
    at = contentEnd + nextDelimiter.length;
  }
}
