/**
 * Builds dist/: the declarations with the TypeScript compiler, and the code as one bundled
 * ES module per entry point (`voxsim`, `voxsim/msw`, `voxsim/express`, `voxsim/vitest`, the
 * `voxsim` command) with esbuild, at the paths package.json names (dist/src/...), chunks
 * they share in dist/src/chunks/. zod is bundled in, so an import reads a few files
 * instead of some 300 (issue 29); msw and vitest stay the consumer's own (peers),
 * express and ws the server's, and the dependencies a path may not need are required on
 * first use (src/core/lazy.ts), from node_modules. The bin is left executable (`npx voxsim` runs it).
 *
 * `--if-stale` (the `prepare` script) builds only when the build is missing or older than
 * a file it is built from: `npx voxsim` in a checkout installs the checkout into npm's
 * exec cache, which runs `prepare` there, and a build that empties dist/ while tests or a
 * server read it would break them.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'dist/src/bin.js');
/** What the build is made from: tsconfig.json's inputs, the config and this script. */
const INPUTS = ['src', 'fixtures', 'tsconfig.json', 'package.json', 'scripts/build.mjs'];
/**
 * The package's entry points (package.json `exports`, and the command that `bin`'s
 * src/bin.ts loads after its Node check: src/cli/launch.ts).
 */
const ENTRIES = ['src/index.ts', 'src/adapters/msw.ts', 'src/adapters/msw-runtime.ts', 'src/adapters/express.ts', 'src/adapters/vitest.ts', 'src/cli/launch.ts'];
/** What the package bundles in: a dependency every path needs. */
const BUNDLED = ['zod'];
/**
 * What stays external: what the consumer brings (peers) and the package's other
 * dependencies, loaded from node_modules when a path needs them, each with its subpaths.
 */
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const EXTERNAL = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })
  .filter((name) => !BUNDLED.includes(name))
  .flatMap((name) => [name, `${name}/*`]);

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
const result = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.json'), '--emitDeclarationOnly'], { cwd: ROOT, stdio: 'inherit' });
if (result.status !== 0) process.exit(result.status ?? 1);

/**
 * msw.ts imports msw-runtime.js first so that it checks Node and msw before msw loads: it
 * stays a module of its own, named by a path that holds from dist/src/adapters/ and from
 * dist/src/chunks/ alike (wherever esbuild puts msw.ts's code).
 */
const runtimeFirst = {
  name: 'msw-runtime-first',
  setup(b) {
    b.onResolve({ filter: /\/msw-runtime\.js$/ }, (args) => (args.importer.endsWith('msw.ts') ? { path: '../adapters/msw-runtime.js', external: true } : undefined));
  },
};
await build({
  absWorkingDir: ROOT,
  entryPoints: ENTRIES,
  outbase: 'src',
  outdir: 'dist/src',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  sourcemap: true,
  sourcesContent: true,
  external: EXTERNAL,
  plugins: [runtimeFirst],
  logLevel: 'warning',
});
/**
 * The bin, built on its own (issue 34): one file that imports nothing statically (a shared
 * chunk, even esbuild's own helpers, is linked before the Node check could run), written
 * for Node 14 so that an old Node parses it and prints the check's line. It loads the
 * command, dist/src/cli/launch.js, by a dynamic import left as it is.
 */
const launchOutside = {
  name: 'launch-outside',
  setup(b) {
    b.onResolve({ filter: /^\.\/cli\/launch\.js$/ }, () => ({ path: './cli/launch.js', external: true }));
  },
};
await build({
  absWorkingDir: ROOT,
  entryPoints: ['src/bin.ts'],
  outfile: BIN,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node14',
  sourcemap: true,
  sourcesContent: true,
  external: ['node:*'],
  plugins: [launchOutside],
  logLevel: 'warning',
});
chmodSync(BIN, 0o755);
