/**
 * Reading a state file while the server's modules load (issue 29 item 3: restart). The
 * `voxsim` command starts the read before it imports the server (src/bin.ts): the whole
 * file is one read on a thread of Node's pool, which runs while the main thread compiles
 * the modules, and `voxsim serve` takes the bytes when it reads its state file. What is
 * left on the main thread is decoding them. On the 100k-lead bench state the read is some
 * 120 of the 250 ms that `readFileSync` takes, and it ends before the import does.
 *
 * A read ahead never decides anything: a file it cannot read whole (missing, a directory,
 * unreadable, too long for a string, cut short) or that changed since is read again by the
 * caller as it would have been without it, with the caller's own errors.
 */
import { constants } from 'node:buffer';
import { closeSync, fstatSync, openSync, read, statSync, type Stats } from 'node:fs';
import { resolve } from 'node:path';

interface Ahead {
  bytes: Buffer;
  stat: Stats;
}

/** The reads under way, by absolute path. */
const pending = new Map<string, Promise<Ahead | undefined>>();

/**
 * Starts reading `file` whole on a thread of the pool; `takeReadAhead` gives its text.
 * @example readAhead('state.json') // later: await takeReadAhead('state.json')
 */
export function readAhead(file: string): void {
  const path = resolve(file);
  if (pending.has(path)) return;
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return;
  }
  let stat: Stats;
  try {
    stat = fstatSync(fd);
  } catch {
    closeSync(fd);
    return;
  }
  // A file longer than a string can be has the caller's error, as has an empty one.
  if (!stat.isFile() || stat.size === 0 || stat.size > constants.MAX_STRING_LENGTH) {
    closeSync(fd);
    return;
  }
  const bytes = Buffer.allocUnsafeSlow(stat.size);
  pending.set(
    path,
    new Promise((done) => {
      // One read of the whole file: one request to the pool, which the main thread need not pump.
      read(fd, bytes, 0, bytes.length, 0, (error, count) => {
        closeSync(fd);
        done(error || count !== bytes.length ? undefined : { bytes, stat });
      });
    }),
  );
}

/**
 * The text of `file` as a `readAhead` read it, decoded as UTF-8 (as `readFileSync(file,
 * 'utf8')` does); undefined when no read ahead of it is under way, when it failed, or when
 * the file is no longer the one it read (another size, time of change or inode).
 */
export async function takeReadAhead(file: string): Promise<string | undefined> {
  const path = resolve(file);
  const ahead = pending.get(path);
  if (!ahead) return undefined;
  pending.delete(path);
  const got = await ahead;
  if (!got) return undefined;
  let now: Stats;
  try {
    now = statSync(path);
  } catch {
    return undefined;
  }
  if (now.ino !== got.stat.ino || now.size !== got.stat.size || now.mtimeMs !== got.stat.mtimeMs) return undefined;
  return got.bytes.toString('utf8');
}
