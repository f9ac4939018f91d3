/**
 * The cold import (issue 29): `import('voxsim')` then `import('voxsim/msw')`, as a test
 * file's first lines pay it, against `import('msw/node')` alone, each in a fresh Node
 * process (the package as built: dist/, resolved through its own exports), alternating,
 * medians of 9 rounds (the issue asks at least 5: a cold start is noisy on a shared machine). Target: <= 1.5x.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { alternate, emit, timeFigure } from './lib.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = 9;

/** Milliseconds a fresh Node takes to import `specifiers` in order (measured inside it, start-up excluded). */
function coldImport(specifiers: string[]): number {
  const code = `const t = performance.now(); for (const s of ${JSON.stringify(specifiers)}) await import(s); console.log(performance.now() - t);`;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8' }).trim());
}

const result = await alternate(ROUNDS, () => coldImport(['voxsim', 'voxsim/msw']), () => coldImport(['msw/node']));
emit(timeFigure('import.voxsim_msw', result, { unit: 'ms per cold import', baselineOf: "import('msw/node') in a fresh process", limit: 1.5 }));
