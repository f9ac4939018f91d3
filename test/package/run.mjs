#!/usr/bin/env node
/**
 * The packaging test (`npm run test:package`, run by .ci/run after `npm test`): packs
 * voxsim as npm would publish it, installs the tarball into fresh projects, one with
 * msw 3 and one with the lowest msw 2 of the peer range, 2.11.0 (the suite runs the newest
 * msw 2 through the `msw2` alias), each with vitest, runs the README's MSW example and the
 * vitest-fixture example there, and type-checks a strict consumer importing every entry
 * point with moduleResolution node16 and bundler. Dev tools are installed at the
 * versions this checkout has, from the shared npm cache where it holds them.
 */
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';

const ROOT = new URL('../..', import.meta.url).pathname;
const version = (name) => JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
const started = Date.now();
const log = (line) => console.log(`[package ${((Date.now() - started) / 1000).toFixed(1)}s] ${line}`);

function run(command, args, cwd) {
  try {
    return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
  } catch (error) {
    console.error(`${command} ${args.join(' ')} failed in ${cwd}:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
    throw error;
  }
}

/** `run` without blocking: the two projects (msw 3 and msw 2) are made and checked side by side. */
function runAsync(command, args, cwd) {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      console.error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}${stderr ?? ''}`);
      reject(error);
    });
  });
}

/**
 * The Python package as a Node project that installed voxsim has it (docs/python.md: `pip
 * install ./node_modules/voxsim/python`): the tarball carries every file of the repository's
 * python/ but its tests, which .ci/run pip-installs and tests; here the shipped copy is
 * imported from its folder, is the npm package's version, and its `start_server` runs the
 * project's voxsim, on which a sandbox is made and deleted. Answers the log line.
 */
function pythonFromPackage(project, packageVersion, shipped) {
  const wanted = run('git', ['ls-files', 'python'], ROOT).split('\n').filter((f) => f !== '' && !f.startsWith('python/tests/') && !f.endsWith('.gitignore'));
  const missing = wanted.filter((f) => !shipped.has(f));
  if (missing.length > 0) throw new Error(`python: the package lacks ${missing.join(', ')}`);
  const script = [
    'import sys, voxsim',
    'from voxsim import start_server',
    'assert voxsim.__version__ == sys.argv[2], voxsim.__version__',
    'with start_server(sys.argv[1]) as server:',
    '    box = server.client.sandbox(seed=7)',
    '    assert box.api_key.startswith("vsk_") and box.accounts.list()[0]["id"] == 1',
    '    box.delete()',
    'print("ok")',
  ].join('\n');
  const source = join(project, 'node_modules', 'voxsim', 'python', 'src');
  let printed;
  try {
    printed = execFileSync('python3', ['-c', script, project, packageVersion], { cwd: project, encoding: 'utf8', env: { ...process.env, PYTHONPATH: source } }).trim();
  } catch (error) {
    if (error.code === 'ENOENT') return `python: ${wanted.length} files shipped; not run (no python3 here)`;
    throw new Error(`python: the shipped package failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
  }
  if (printed !== 'ok') throw new Error(`python: the shipped package printed ${JSON.stringify(printed)}`);
  return `python: the package ships python/ (${wanted.length} files, no tests); its voxsim ${packageVersion} started this project's voxsim, and a sandbox was made and deleted`;
}

const work = mkdtempSync(join(tmpdir(), 'voxsim-package-'));
let failed = false;
try {
  // npm test builds first; the build runs again only when a source is newer than it (the prepare script), then packs without scripts.
  run('node', [join(ROOT, 'scripts/build.mjs'), '--if-stale'], ROOT);
  const packed = JSON.parse(run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT));
  const tarball = join(work, packed[0].filename);
  log(`packed ${packed[0].filename}: ${packed[0].entryCount} files, ${Math.round(packed[0].size / 1024)} KB`);
  const names = new Set(packed[0].files.map((f) => f.path));
  // The README links the docs pages, so the package ships them (docs/*.md: not the screenshots).
  const pages = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
  for (const file of ['LICENSE', 'README.md', ...pages, 'dist/src/index.js', 'dist/src/adapters/vitest.d.ts', 'scenario.schema.json']) {
    if (!names.has(file)) throw new Error(`the package lacks ${file}`);
  }
  if ([...names].some((f) => f.startsWith('src/') || f.startsWith('test/'))) throw new Error('the package ships src/ or test/');
  // What the shipped pages link to is shipped too (the Python package, the examples they name); the screenshots are not (the package leaves them out).
  for (const page of [...names].filter((f) => f.endsWith('.md'))) {
    for (const [, target] of readFileSync(join(ROOT, page), 'utf8').matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:|^#/i.test(target) || target.includes('screenshots/')) continue;
      const path = posix.normalize(posix.join(posix.dirname(page), target.split('#')[0])).replace(/\/$/, '');
      if (!names.has(path) && ![...names].some((f) => f.startsWith(`${path}/`))) throw new Error(`${page} links ${target}, which the package lacks`);
    }
  }
  const bin = packed[0].files.find((f) => f.path === 'dist/src/bin.js');
  if (!bin || (bin.mode & 0o111) !== 0o111) throw new Error(`the package's bin dist/src/bin.js is not executable (mode ${bin?.mode.toString(8)})`);

  const tools = [`vitest@${version('vitest')}`, `typescript@${version('typescript')}`, `@types/node@${version('@types/node')}`];
  // The floor of the peer range `^2.11.0 || ^3.0.0`, read from package.json so the two cannot part.
  const peerRange = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).peerDependencies.msw;
  const msw2Floor = /\^(2\.\d+\.\d+)/.exec(peerRange)?.[1];
  if (msw2Floor === undefined) throw new Error(`the msw peer range names no msw 2 floor: ${peerRange}`);
  // The two projects side by side (each its own folder; npm's cache takes concurrent installs): about half the time.
  const check = async (msw) => {
    const project = join(work, msw.replace(/[@.]/g, '-'));
    cpSync(join(ROOT, 'test/package/consumer.ts'), join(project, 'src/consumer.ts'));
    for (const example of ['msw.test.ts', 'vitest.test.ts']) cpSync(join(ROOT, 'examples', example), join(project, 'test', example));
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2));
    await runAsync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--save-dev', tarball, msw, ...tools], project);
    log(`${msw}: installed voxsim from the tarball with ${tools.join(', ')}`);
    const printed = (await runAsync('npx', ['--no-install', 'voxsim', '--version'], project)).trim();
    if (printed !== packed[0].version) throw new Error(`${msw}: npx voxsim --version printed ${JSON.stringify(printed)}`);
    const tests = await runAsync('npx', ['vitest', 'run', '--reporter=dot'], project);
    const summary = /Tests\s+(.*)/.exec(tests)?.[1]?.trim();
    if (!/^3 passed/.test(summary ?? '')) throw new Error(`${msw}: the examples did not all pass: ${summary}\n${tests}`);
    log(`${msw}: the README's MSW example and the vitest-fixture example pass (${summary})`);
    if (msw === `msw@${version('msw')}`) log(pythonFromPackage(project, packed[0].version, names));
    // Declaration files of every dependency are checked once (node16); the bundler pass checks the consumer's view only, to keep this quick.
    for (const [resolution, module, skipLibCheck] of [['node16', 'node16', false], ['bundler', 'esnext', true]]) {
      const config = `tsconfig.${resolution}.json`;
      writeFileSync(
        join(project, config),
        JSON.stringify({
          compilerOptions: { strict: true, noEmit: true, skipLibCheck, target: 'es2023', lib: ['es2023', 'dom'], module, moduleResolution: resolution, types: ['node'], exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true },
          files: ['src/consumer.ts'],
        }),
      );
      await runAsync('npx', ['tsc', '-p', config], project);
      log(`${msw}: the strict consumer type-checks with moduleResolution ${resolution}${skipLibCheck ? '' : ' (declarations included)'}, without @types/express`);
    }
  };
  // Both run to their end before the folder is removed; the first failure is the one reported.
  const results = await Promise.allSettled([`msw@${version('msw')}`, `msw@${msw2Floor}`].map(check));
  const failure = results.find((r) => r.status === 'rejected');
  if (failure) throw failure.reason;
  log('passed');
} catch (error) {
  failed = true;
  console.error(`[package] FAILED: ${error.message}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
