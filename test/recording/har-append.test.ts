/**
 * `voxsim record` appends each exchange to its HAR file (issue 34): the file is a complete
 * HAR 1.2 after every exchange, and an exchange writes its own entry and the file's close,
 * never the entries before it, so a 10,000-exchange session costs the same per exchange at
 * its end as at its start. The bytes are counted at node:fs (no timing: bench/har.ts times it).
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { harEntry, HarWriter, REDACTED, type RecordedExchange } from '../../src/recording/har-writer.js';
import { readHar } from '../../src/recording/har.js';

/**
 * Bytes node:fs wrote for the writer, by call: appends (writeSync to the file) and whole
 * files (writeSync to the temp file the whole file is written to: src/state/atomic.ts).
 */
const written = vi.hoisted(() => ({ appended: 0, whole: 0, failNext: false, temps: new Set<number>() }));
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  return {
    ...real,
    openSync: (...args: Parameters<typeof real.openSync>) => {
      const fd = real.openSync(...args);
      if (String(args[0]).endsWith('.tmp')) written.temps.add(fd);
      else written.temps.delete(fd);
      return fd;
    },
    writeSync: (...args: Parameters<typeof real.writeSync>) => {
      if (written.failNext) {
        written.failNext = false;
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      }
      const count = (real.writeSync as (...a: unknown[]) => number)(...args);
      if (written.temps.has(args[0])) written.whole += count;
      else written.appended += count;
      return count;
    },
  };
});

const dir = mkdtempSync(join(tmpdir(), 'voxsim-har-append-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeEach(() => Object.assign(written, { appended: 0, whole: 0, failNext: false }));

const START = Date.parse('2026-03-02T09:00:00Z');
/** The n-th exchange: the same size for every n below 100,000 (the id is padded). */
function exchange(n: number, extra: Partial<RecordedExchange> = {}): RecordedExchange {
  const id = String(n).padStart(5, '0');
  return {
    startedAt: START + n * 20,
    durationMs: 5,
    method: 'GET',
    url: `https://platform.example.test/api/user/leads/${id}`,
    requestHeaders: [['Accept', 'application/json']],
    requestBody: null,
    status: 200,
    statusText: 'OK',
    responseHeaders: [['Content-Type', 'application/json']],
    responseBody: Buffer.from(JSON.stringify({ data: { id: 100_000 + n, name: `Lead ${id}`, status: 'active' } })),
    ...extra,
  };
}
/** The file's close after the last entry, and the separator before an entry. */
const CLOSE = '\n]\n  }\n}\n';
const fileText = (file: string): string => readFileSync(file, 'utf8');

describe('HarWriter on a file', () => {
  it('leaves a complete HAR with n entries, in order, after each of the first exchanges', () => {
    const file = join(dir, 'each.har');
    const writer = new HarWriter(file, '0.1.0', { _voxsim: { upstream: 'https://platform.example.test/api', base_path: '/api' } });
    writer.write();
    const counts: number[] = [JSON.parse(fileText(file)).log.entries.length];
    for (let n = 0; n < 5; n++) {
      writer.add(exchange(n));
      const log = JSON.parse(fileText(file)).log;
      counts.push(log.entries.length);
      expect(log.entries.map((e: { request: { url: string } }) => e.request.url.slice(-5))).toEqual(Array.from({ length: n + 1 }, (_, i) => String(i).padStart(5, '0')));
    }
    expect(counts).toEqual([0, 1, 2, 3, 4, 5]);
    writer.close();
  });

  it('writes the same bytes as the whole log it holds, readable as a recording', () => {
    const file = join(dir, 'same.har');
    const writer = new HarWriter(file, '0.1.0');
    writer.write();
    expect(fileText(file)).toBe(writer.text());
    for (let n = 0; n < 3; n++) writer.add(exchange(n));
    expect(fileText(file)).toBe(writer.text());
    expect(readHar(fileText(file), file).map((x) => x.url.pathname)).toEqual(['/api/user/leads/00000', '/api/user/leads/00001', '/api/user/leads/00002']);
    writer.close();
  });

  it('writes each of 10,000 exchanges as its entry and the close alone: the same bytes for the last as for the first', () => {
    const file = join(dir, 'long.har');
    const writer = new HarWriter(file, '0.1.0');
    writer.write();
    const started = { whole: written.whole };
    const perExchange = new Set<number>();
    for (let n = 0; n < 10_000; n++) {
      const before = written.appended;
      writer.add(exchange(n));
      perExchange.add(written.appended - before);
    }
    // `[\n` or `,\n`, the entry, the close: 2 + entry + 9 bytes whatever the entries before it.
    expect([...perExchange]).toEqual([2 + Buffer.byteLength(JSON.stringify(harEntry(exchange(0)))) + CLOSE.length]);
    expect(written.whole).toBe(started.whole);
    const log = JSON.parse(fileText(file)).log;
    expect([log.entries.length, log.entries[9_999].request.url]).toEqual([10_000, 'https://platform.example.test/api/user/leads/09999']);
    writer.close();
  });

  it('writes the file whole once when a new bearer token shows in an earlier entry, redacting it there', () => {
    const file = join(dir, 'token.har');
    const token = 'sk_live_made_in_session_42';
    const writer = new HarWriter(file, '0.1.0');
    writer.write();
    // The control API answers with a new account's key; the next request uses it.
    writer.add(exchange(0, { responseBody: Buffer.from(JSON.stringify({ data: { api_key: token } })) }));
    const wholeBefore = written.whole;
    writer.add(exchange(1, { requestHeaders: [['Authorization', `Bearer ${token}`]] }));
    expect(written.whole).toBeGreaterThan(wholeBefore);
    const text = fileText(file);
    expect(text).not.toContain(token);
    expect(JSON.parse(JSON.parse(text).log.entries[0].response.content.text)).toEqual({ data: { api_key: REDACTED } });
    // The token is known now: the next exchange that uses it is appended again.
    const again = written.whole;
    writer.add(exchange(2, { requestHeaders: [['Authorization', `Bearer ${token}`]] }));
    expect([written.whole, JSON.parse(fileText(file)).log.entries.length]).toEqual([again, 3]);
    writer.close();
  });

  it('leaves the HAR it was after a failed write, and writes the file whole with the entry at the next exchange', () => {
    const file = join(dir, 'failed.har');
    const writer = new HarWriter(file, '0.1.0');
    writer.write();
    writer.add(exchange(0));
    const before = fileText(file);
    written.failNext = true;
    expect(() => writer.add(exchange(1))).toThrow('ENOSPC');
    expect(fileText(file)).toBe(before);
    writer.add(exchange(2));
    expect(JSON.parse(fileText(file)).log.entries.map((e: { request: { url: string } }) => e.request.url.slice(-1))).toEqual(['0', '1', '2']);
    expect(fileText(file)).toBe(writer.text());
    writer.close();
  });

  it('rolls back a failed first entry to the empty log', () => {
    const file = join(dir, 'failed-first.har');
    const writer = new HarWriter(file, '0.1.0');
    writer.write();
    const empty = fileText(file);
    written.failNext = true;
    expect(() => writer.add(exchange(0))).toThrow('ENOSPC');
    expect([fileText(file), JSON.parse(fileText(file)).log.entries]).toEqual([empty, []]);
    writer.close();
  });
});

it('counts every byte the writer puts in the file (a positive control of the counts)', () => {
  const file = join(dir, 'control.har');
  const writer = new HarWriter(file, '0.1.0');
  writer.write();
  expect(written.whole).toBe(statSync(file).size);
  writer.add(exchange(0));
  // The first entry is written over the empty list and its close (`[]` and 7 bytes: 9 in all).
  expect(statSync(file).size).toBe(written.whole - 9 + written.appended);
  writer.close();
});
