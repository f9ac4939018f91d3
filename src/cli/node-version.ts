/**
 * The Node check of the `voxsim` command (issue 34): src/bin.ts runs it before it loads
 * anything else, so a Node older than package.json's `engines` gets one sentence and exit
 * 2 instead of a SyntaxError from a module it cannot link (on Node 20, node:module has no
 * `enableCompileCache` export). This module is bundled into dist/src/bin.js itself (only
 * the bin imports it), so it keeps to syntax that Node 14 parses (test/old-node.test.ts).
 */

/** The oldest Node that runs voxsim: package.json's `engines` (`>=22.12`). */
export const MIN_NODE = '22.12';

/** `'22.12.0'` -> `[22, 12, 0]`; a `v` prefix and a pre-release suffix are ignored. */
function versionParts(version: string): number[] {
  const parts = version.replace(/^v/, '').split(/[.-]/).slice(0, 3).map((part) => Number.parseInt(part, 10) || 0);
  while (parts.length < 3) parts.push(0);
  return parts;
}

/**
 * The one line the command prints before it exits 2 on `nodeVersion` (`process.versions.node`),
 * or `null` when that Node runs it. Versions compare part by part as numbers (22.9 < 22.12).
 * @example nodeVersionProblem('20.19.5') // 'voxsim needs Node 22.12 or newer; this is Node 20.19.5.'
 */
export function nodeVersionProblem(nodeVersion: string): string | null {
  const have = versionParts(nodeVersion);
  const need = versionParts(MIN_NODE);
  for (let i = 0; i < 3; i += 1) {
    if (have[i] !== need[i]) {
      return have[i]! > need[i]! ? null : `voxsim needs Node ${MIN_NODE} or newer; this is Node ${nodeVersion.replace(/^v/, '')}.`;
    }
  }
  return null;
}
