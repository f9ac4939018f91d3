/** Reading multipart/form-data bodies (core/multipart, RFC 7578): text parts, file parts by size, malformed forms. */
import { describe, expect, it } from 'vitest';
import { UploadedFile, isMultipart, parseMultipart } from '../../src/core/multipart.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const TYPE = 'multipart/form-data; boundary=XYZ';
const part = (headers: string, content: string) => `--XYZ\r\n${headers}\r\n\r\n${content}\r\n`;
const END = '--XYZ--\r\n';

describe('isMultipart', () => {
  it.each([
    ['multipart/form-data; boundary=x', true],
    ['Multipart/Form-Data;boundary=x', true],
    ['multipart/form-data', true],
    ['multipart/mixed; boundary=x', false],
    ['application/json', false],
    [undefined, false],
  ])('%s → %s', (type, expected) => {
    expect(isMultipart(type)).toBe(expected);
  });
});

describe('parseMultipart', () => {
  it('reads text parts as UTF-8 strings and file parts as files with their byte size', () => {
    const body = part('Content-Disposition: form-data; name="name"', 'Größe') + part('Content-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf', 'ä€x') + END;
    const form = parseMultipart(bytes(body), TYPE)!;
    expect(form.name).toBe('Größe');
    expect(form.file).toBeInstanceOf(UploadedFile);
    expect(form.file).toEqual(new UploadedFile('a.pdf', 'application/pdf', 6));
  });

  it('counts binary bytes exactly, a CR LF inside a file included', () => {
    const head = bytes('--XYZ\r\nContent-Disposition: form-data; name="file"; filename="b.bin"\r\n\r\n');
    const content = new Uint8Array([0, 255, 13, 10, 45, 45, 0x80]);
    const tail = bytes('\r\n--XYZ--');
    const body = new Uint8Array([...head, ...content, ...tail]);
    expect(parseMultipart(body, TYPE)!.file).toEqual(new UploadedFile('b.bin', 'application/octet-stream', 7));
  });

  it('reads an empty file as size 0', () => {
    const form = parseMultipart(bytes(part('Content-Disposition: form-data; name="file"; filename="e.txt"', '') + END), TYPE)!;
    expect((form.file as UploadedFile).size).toBe(0);
  });

  it('takes a quoted boundary, a preamble and header names in any case', () => {
    const body = `preamble\r\n--a b\r\ncontent-disposition: form-data; name="x"\r\n\r\n1\r\n--a b--`;
    expect(parseMultipart(bytes(body), 'multipart/form-data; boundary="a b"')).toEqual({ x: '1' });
  });

  it('unescapes quoted names and keeps the last of a repeated field', () => {
    const body = part('Content-Disposition: form-data; name="a"', 'first') + part('Content-Disposition: form-data; name="a"', 'second') + part('Content-Disposition: form-data; name="q\\"t"', 'v') + END;
    expect(parseMultipart(bytes(body), TYPE)).toEqual({ a: 'second', 'q"t': 'v' });
  });

  it('keeps a field named __proto__ as plain data', () => {
    const form = parseMultipart(bytes(part('Content-Disposition: form-data; name="__proto__"', 'x') + END), TYPE)!;
    expect(Object.getPrototypeOf(form)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(form, '__proto__')?.value).toBe('x');
  });

  it.each([
    ['no boundary parameter', part('Content-Disposition: form-data; name="a"', '1') + END, 'multipart/form-data'],
    ['no delimiter at all', 'just text', TYPE],
    ['no closing delimiter', '--XYZ\r\nContent-Disposition: form-data; name="a"\r\n\r\n1', TYPE],
    ['a part without a name', part('Content-Disposition: form-data', '1') + END, TYPE],
    ['a part without headers end', '--XYZ\r\nContent-Disposition: form-data; name="a"', TYPE],
    ['garbage after a delimiter', '--XYZ??', TYPE],
  ])('answers undefined for %s', (_label, body, type) => {
    expect(parseMultipart(bytes(body), type)).toBeUndefined();
  });
});
