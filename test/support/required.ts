/**
 * Tests that need a program this machine may lack (nginx for the sharding test, a Node older
 * than `engines` for the old-Node test): where it is missing they are skipped, saying why,
 * except under CI (`CI=true`, as CI services and `.ci/run` set it), where the missing
 * program is a failing test of its own: a CI run must not pass with them skipped.
 */
import { it } from 'vitest';

/** Whether this run is CI's (`CI` set to anything but empty, `0` or `false`, as CI services set it). */
export const IN_CI = !['', '0', 'false'].includes((process.env.CI ?? '').trim().toLowerCase());

/**
 * When `missing` says why `what` cannot run here: under CI a test that fails with that
 * reason, elsewhere one line on standard error (the tests themselves are skipped by the
 * caller). Nothing when `missing` is undefined.
 * @example requiredInCi('the nginx sharding tests', HAVE_NGINX ? undefined : 'no nginx at /usr/sbin/nginx')
 */
export function requiredInCi(what: string, missing: string | undefined): void {
  if (missing === undefined) return;
  if (!IN_CI) {
    console.warn(`${what} skipped: ${missing}`);
    return;
  }
  it(`runs ${what} (CI=true: they may not be skipped)`, () => {
    throw new Error(`${what} could not run under CI: ${missing}`);
  });
}
