/**
 * The state file read ahead while `voxsim` loads its modules (src/state/read-ahead.ts,
 * src/bin.ts): the text it gives is the file's, as `readFileSync(file, 'utf8')` reads it,
 * and whatever it cannot vouch for (no read under way, a file that changed, one it could
 * not read) is left to the caller's own read.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serveStateFile } from '../../src/cli/options.js';
import { readAhead, takeReadAhead } from '../../src/state/read-ahead.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'voxsim-read-ahead-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('a read ahead', () => {
  it("gives the file's text as readFileSync decodes it, multi-byte characters and a byte-order mark included, once", async () => {
    const file = join(dir, 'state.json');
    writeFileSync(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"Zoë 🙂","n":1}\n')]));
    readAhead(file);
    const text = await takeReadAhead(file);
    expect(text).toBe(readFileSync(file, 'utf8'));
    expect(text?.length).toBe(25);
    // Taken once: a second take has nothing under way.
    expect(await takeReadAhead(file)).toBeUndefined();
  });

  it('is found by the same file under another spelling of its path', async () => {
    const file = join(dir, 'state.json');
    writeFileSync(file, '{"a":1}');
    readAhead(relative(process.cwd(), file));
    expect(await takeReadAhead(join(dir, '.', 'state.json'))).toBe('{"a":1}');
  });

  it('gives nothing for a file no read ahead was started for', async () => {
    const file = join(dir, 'state.json');
    writeFileSync(file, '{}');
    expect(await takeReadAhead(file)).toBeUndefined();
  });

  it.each([
    ['a missing file', (file: string) => file],
    ['a directory', (file: string) => (mkdirSync(file), file)],
    ['an empty file', (file: string) => (writeFileSync(file, ''), file)],
  ])('is not started for %s: the caller reads it and reports it', async (_name, make) => {
    const file = make(join(dir, 'state.json'));
    readAhead(file);
    expect(await takeReadAhead(file)).toBeUndefined();
  });

  it('gives nothing when the file was replaced, or changed its size or its time, since it was read', async () => {
    const replaced = join(dir, 'replaced.json');
    const grown = join(dir, 'grown.json');
    const touched = join(dir, 'touched.json');
    for (const file of [replaced, grown, touched]) writeFileSync(file, '{"v":1}');
    for (const file of [replaced, grown, touched]) readAhead(file);
    // Whether a read ends before the change or after, the file it read is not the one there now.
    rmSync(replaced);
    writeFileSync(replaced, '{"v":2}');
    writeFileSync(grown, '{"v":10}');
    utimesSync(touched, new Date(0), new Date(1_000_000));
    expect(await takeReadAhead(replaced)).toBeUndefined();
    expect(await takeReadAhead(grown)).toBeUndefined();
    expect(await takeReadAhead(touched)).toBeUndefined();
  });

  it('gives nothing when the file is gone by the time it is taken', async () => {
    const file = join(dir, 'state.json');
    writeFileSync(file, '{}');
    readAhead(file);
    rmSync(file);
    expect(await takeReadAhead(file)).toBeUndefined();
  });
});

describe('serveStateFile: the file a command line would read ahead', () => {
  it.each([
    [['serve', '--state-file', 'state.json'], 'state.json'],
    [['serve', '--port', '0', '--state-file=data/s.json', '--quiet'], 'data/s.json'],
    [['serve', '--port', '0'], undefined],
    // Not serve, or a line serve refuses: its own error is the command's to give.
    [['scenario', 'run', '--state-file', 'state.json'], undefined],
    [['serve', '--state-file', 'state.json', '--bogus'], undefined],
    [['serve', '--state-file'], undefined],
    [['serve', 'extra', '--state-file', 'state.json'], undefined],
    [[], undefined],
  ])('%j: %s', (argv, expected) => {
    expect(serveStateFile(argv)).toBe(expected);
  });
});
