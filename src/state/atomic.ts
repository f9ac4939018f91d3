/**
 * Replacing a file whole, atomically and durably (issue 45): the one way the state file's
 * snapshot (persist.ts), the sandbox list (src/sandboxes/durable.ts), a recorded HAR
 * (src/recording/har-writer.ts) and the command line's written reports are replaced.
 *
 * 1. the new content goes to a temp file beside the file (`FILE.<pid>.tmp`: the same
 *    directory, so the same file system, and one process's name);
 * 2. the temp file's data is flushed to disk (fdatasync), so that the name never points
 *    at blocks the disk does not hold yet;
 * 3. it is renamed over the file: a reader sees the old content or the new, never a part;
 * 4. the directory is flushed (fsync), so that the rename itself survives a power loss.
 *
 * A write that fails leaves the old file as it was and no temp file behind.
 */
import { closeSync, fdatasyncSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The temp file a new content of `file` is written to before it is renamed over it.
 * @example tempPathOf('/var/voxsim/sandboxes.json') // '/var/voxsim/sandboxes.json.4242.tmp'
 */
export function tempPathOf(file: string): string {
  return `${file}.${process.pid}.tmp`;
}

/** Errors of a directory that cannot be opened or flushed as a file (Windows, some file systems): nothing more can be done there. */
const DIRECTORY_SYNC_UNSUPPORTED = new Set(['EISDIR', 'EINVAL', 'EPERM', 'EACCES', 'ENOTSUP', 'EBADF']);

/**
 * Flushes a directory's entries to disk (a rename or a new file in it). Where a directory
 * cannot be opened or flushed (Windows, some file systems) it does nothing; any other
 * failure (EIO) is thrown.
 */
export function syncDirectory(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch (error) {
    if (DIRECTORY_SYNC_UNSUPPORTED.has((error as NodeJS.ErrnoException).code ?? '')) return;
    throw error;
  }
  try {
    fsyncSync(fd);
  } catch (error) {
    if (!DIRECTORY_SYNC_UNSUPPORTED.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
  } finally {
    closeSync(fd);
  }
}

/**
 * Renames a temp file whose data is on disk already over `file`, then flushes the
 * directory (steps 3 and 4). For a writer that fills and flushes the temp file itself
 * (the state file's snapshot, written in slices).
 */
export function renameDurably(temp: string, file: string): void {
  renameSync(temp, file);
  syncDirectory(dirname(file));
}

/**
 * Replaces `file` with `data`, atomically and durably (all four steps). Throws the file
 * system's error when it cannot; the old file is then as it was, and no temp file is left.
 * @example writeFileAtomically('/var/voxsim/sandboxes.json', JSON.stringify(list))
 */
export function writeFileAtomically(file: string, data: string | Uint8Array): void {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  const temp = tempPathOf(file);
  const fd = openSync(temp, 'w');
  try {
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done);
    fdatasyncSync(fd);
  } catch (error) {
    closeSync(fd);
    removeQuietly(temp);
    throw error;
  }
  closeSync(fd);
  try {
    renameDurably(temp, file);
  } catch (error) {
    removeQuietly(temp);
    throw error;
  }
}

/** Removes a temp file if it can (one left behind is only litter). */
function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Left.
  }
}
