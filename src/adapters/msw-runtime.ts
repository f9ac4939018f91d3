/**
 * The runtime check of `voxsim/msw`, evaluated before msw is loaded (it is the adapter's
 * first import): an old Node or msw fails at import with one sentence saying what to
 * upgrade, not later inside msw.
 */
import { createRequire } from 'node:module';

/** The oldest Node that runs voxsim (its `engines`) and msw 3 (whose own `engines` say the same). */
export const MIN_NODE = '22.12.0';
/** The oldest msw whose handlers take a predicate (`http.all(predicate, ...)`), which these handlers are. */
export const MIN_MSW = '2.11.0';

/** `'22.12.0'` -> `[22, 12, 0]`; a pre-release suffix is ignored. */
function versionParts(version: string): number[] {
  return version.replace(/^v/, '').split(/[.-]/).slice(0, 3).map((part) => Number.parseInt(part, 10) || 0);
}

function olderThan(version: string, minimum: string): boolean {
  const [a, b] = [versionParts(version), versionParts(minimum)];
  for (let i = 0; i < 3; i += 1) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) < (b[i] ?? 0);
  return false;
}

/**
 * The one sentence saying why this runtime cannot run the handlers, or `null` when it can.
 * Checked when `voxsim/msw` is imported, so an old Node or msw fails there with the reason
 * instead of later inside msw (`Promise.withResolvers is not a function` on Node 20,
 * `path.endsWith is not a function` on msw 2.10).
 */
export function runtimeProblem(nodeVersion: string, mswVersion: string | undefined): string | null {
  if (olderThan(nodeVersion, MIN_NODE)) {
    return `voxsim/msw needs Node ${MIN_NODE} or newer (this is Node ${nodeVersion.replace(/^v/, '')}); upgrade Node to run it.`;
  }
  if (mswVersion !== undefined && olderThan(mswVersion, MIN_MSW)) {
    return `voxsim/msw needs msw ${MIN_MSW} or newer, 2.x or 3.x (installed: msw ${mswVersion}); run npm install -D msw@latest.`;
  }
  return null;
}

/** The installed msw's version, read from its package.json (exported by msw 2 and 3); `undefined` if it cannot be read. */
function installedMswVersion(): string | undefined {
  try {
    return (createRequire(import.meta.url)('msw/package.json') as { version?: string }).version;
  } catch {
    return undefined;
  }
}

const problem = runtimeProblem(process.versions.node, installedMswVersion());
if (problem !== null) throw new Error(problem);
