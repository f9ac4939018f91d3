/**
 * Replacing a file whole (src/state/atomic.ts, issue 45): a temp file flushed to disk,
 * renamed over the file, the directory flushed; nothing left behind when it fails. The
 * calls are watched through node:fs (the real functions do the work); every writer that
 * replaces a file whole goes through it.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const calls: string[] = [];
/** Set to make the next flush fail, as a full or failing disk would. */
const failing = { flush: false };
vi.mock('node:fs', async (original) => {
  const fs = await original<typeof import('node:fs')>();
  const paths = new Map<number, string>();
  const named = (fd: number) => paths.get(fd) ?? `fd ${fd}`;
  return {
    ...fs,
    openSync: (path: string, flags: string) => {
      const fd = fs.openSync(path, flags);
      paths.set(fd, path);
      calls.push(`open ${path} ${flags}`);
      return fd;
    },
    writeSync: (fd: number, ...rest: unknown[]) => {
      calls.push(`write ${named(fd)}`);
      return (fs.writeSync as (...args: unknown[]) => number)(fd, ...rest);
    },
    fdatasyncSync: (fd: number) => {
      calls.push(`fdatasync ${named(fd)}`);
      if (failing.flush) throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
      fs.fdatasyncSync(fd);
    },
    fsyncSync: (fd: number) => (calls.push(`fsync ${named(fd)}`), fs.fsyncSync(fd)),
    closeSync: (fd: number) => (calls.push(`close ${named(fd)}`), fs.closeSync(fd)),
    renameSync: (from: string, to: string) => (calls.push(`rename ${from} ${to}`), fs.renameSync(from, to)),
  };
});

const { syncDirectory, tempPathOf, writeFileAtomically } = await import('../../src/state/atomic.js');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'voxsim-atomic-'));
  calls.length = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('writeFileAtomically', () => {
  it('writes a temp file, flushes it, renames it over the file, then flushes the directory', () => {
    const file = join(dir, 'list.json');
    writeFileSync(file, 'old');
    calls.length = 0;
    writeFileAtomically(file, '{"new":true}\n');
    const temp = tempPathOf(file);
    expect(temp).toBe(`${file}.${process.pid}.tmp`);
    expect(calls).toEqual([`open ${temp} w`, `write ${temp}`, `fdatasync ${temp}`, `close ${temp}`, `rename ${temp} ${file}`, `open ${dir} r`, `fsync ${dir}`, `close ${dir}`]);
    expect(readFileSync(file, 'utf8')).toBe('{"new":true}\n');
    expect(readdirSync(dir)).toEqual(['list.json']);
  });

  it('leaves the old file as it was and no temp file when the flush fails', () => {
    const file = join(dir, 'list.json');
    writeFileSync(file, 'old');
    failing.flush = true;
    try {
      expect(() => writeFileAtomically(file, 'new')).toThrow('EIO: i/o error, fdatasync');
    } finally {
      failing.flush = false;
    }
    expect(calls).not.toContain(`rename ${tempPathOf(file)} ${file}`);
    expect(readdirSync(dir)).toEqual(['list.json']);
    expect(readFileSync(file, 'utf8')).toBe('old');
  });

  it('makes nothing where the directory does not exist', () => {
    expect(() => writeFileAtomically(join(dir, 'missing', 'y.json'), 'new')).toThrow(/ENOENT/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('flushes a directory it is given, and does nothing for one it cannot open as a file', () => {
    syncDirectory(dir);
    expect(calls).toEqual([`open ${dir} r`, `fsync ${dir}`, `close ${dir}`]);
    expect(() => syncDirectory(join(dir, 'missing'))).toThrow(/ENOENT/);
  });
});

describe('the writers that replace a file whole', () => {
  it('all go through src/state/atomic.ts: no other file of src/ renames', () => {
    const root = new URL('../../src/', import.meta.url).pathname;
    const renaming = (readdirSync(root, { recursive: true }) as string[])
      .filter((name) => name.endsWith('.ts'))
      .filter((name) => /\brenameSync\b|\brename\(/.test(readFileSync(join(root, name), 'utf8')));
    expect(renaming).toEqual(['state/atomic.ts']);
  });
});
