/**
 * vitest's global setup: the test files' temporary directories (state files, sandbox
 * directories, the spawned servers' files) go to a directory on tmpfs where the machine has
 * one (/dev/shm), removed when the run ends. On a disk, the durable writes' fsyncs wait for
 * it: the state server file spent most of its time there while the other worker wrote too.
 * What the tests check is the same on either: the calls made, the files' contents, a kill -9
 * at any point (a killed process loses nothing the kernel already has, on a disk or not).
 * VOXSIM_TEST_TMPDIR names another parent; an empty one keeps the system's.
 */
import { accessSync, chmodSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export default function setup(): (() => void) | undefined {
  const parent = process.env.VOXSIM_TEST_TMPDIR ?? '/dev/shm';
  if (parent === '') return undefined;
  try {
    accessSync(parent, constants.W_OK);
  } catch {
    return undefined;
  }
  const dir = mkdtempSync(join(parent, 'voxsim-tests-'));
  // Open to every user as /tmp is (sticky): tests run the server as another user to see it refuse a file.
  chmodSync(dir, 0o1777);
  process.env.TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
