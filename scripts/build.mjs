/**
 * Builds dist/ with the TypeScript compiler and leaves the `voxsim` bin executable (tsc
 * writes it without its execute bit, and `npx voxsim` runs it directly).
 *
 * `--if-stale` (the `prepare` script) builds only when the build is missing or older than
 * a file it is built from: `npx voxsim` in a checkout installs the checkout into npm's
 * exec cache, which runs `prepare` there, and a build that empties dist/ while tests or a
 * server read it would break them.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'dist/src/bin.js');
/** What the build is made from: tsconfig.json's inputs and the config itself. */
const INPUTS = ['src', 'fixtures', 'tsconfig.json', 'package.json'];

function newestInput() {
  let newest = 0;
  for (const input of INPUTS) {
    const path = join(ROOT, input);
    if (!existsSync(path)) continue;
    const files = statSync(path).isDirectory() ? readdirSync(path, { recursive: true, encoding: 'utf8' }).map((file) => join(path, file)) : [path];
    for (const file of files) newest = Math.max(newest, statSync(file).mtimeMs);
  }
  return newest;
}

if (process.argv.includes('--if-stale') && existsSync(BIN) && statSync(BIN).mtimeMs >= newestInput()) {
  console.log('dist/ is up to date: not rebuilt');
  process.exit(0);
}
rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.json')], { cwd: ROOT, stdio: 'inherit' });
if (result.status !== 0) process.exit(result.status ?? 1);
chmodSync(BIN, 0o755);
