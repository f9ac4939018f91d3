/**
 * What importing the built package loads (issue 29): `import 'voxsim'` and
 * `import 'voxsim/msw'` read only the package's own chunks, msw and two Node built-ins;
 * faker, luxon, safe-regex2, libphonenumber-js, yaml, the recording modules and
 * node:http load when a path first needs them, and the schemas of answers, scenarios and
 * route bodies are built on first use. The time it takes is the bench's
 * (`import.voxsim_msw`); this checks what it is made of, which a change can break without
 * a timed test noticing.
 *
 * The same for the `voxsim` command (issue 45): `voxsim --version` and `voxsim sandbox
 * --help` load the main and the command declarations alone, and a command loads its own
 * module, not the simulator or another command's.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createSimulator } from '../src/simulator.js';
import { KEY, START } from './support/api.js';
import { pipelineAssistant } from './support/fixtures.js';

const ROOT = new URL('..', import.meta.url).pathname;

/** The bare specifiers a built module imports statically, and the relative modules it reaches, transitively. */
function staticImports(entry: string): { bare: Set<string>; files: Set<string> } {
  const bare = new Set<string>();
  const files = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const code = readFileSync(file, 'utf8');
    // Static imports only (`import x from "y"`, `import "y"`, `export ... from "y"`); `import("y")` is the lazy kind.
    for (const [, specifier] of code.matchAll(/^(?:import|export)\s[^;'"]*?(?:from\s*)?["']([^"']+)["']/gm)) {
      if (specifier!.startsWith('.')) visit(join(dirname(file), specifier!));
      else bare.add(specifier!);
    }
  };
  visit(join(ROOT, entry));
  return { bare, files };
}

describe('importing the package', () => {
  it('statically imports nothing beyond its chunks, msw, node:module and node:util', () => {
    const index = staticImports('dist/src/index.js');
    const msw = staticImports('dist/src/adapters/msw.js');
    expect([...index.bare].sort()).toEqual(['node:module', 'node:util']);
    expect([...msw.bare].sort()).toEqual(['msw', 'node:module']);
    // The recording modules (node:http, node:https, node:zlib) are a chunk of their own, loaded by drift() and recordHar().
    const isRecording = (file: string) => readFileSync(file, 'utf8').includes('// src/recording/proxy.ts');
    expect([...index.files, ...msw.files].filter(isRecording)).toEqual([]);
    // The bundler's marker is there to find: in a chunk of its own.
    const chunks = join(ROOT, 'dist/src/chunks');
    expect(readdirSync(chunks).filter((name) => name.endsWith('.js') && isRecording(join(chunks, name)))).toHaveLength(1);
  });

  it('builds a few hundred schemas, not the thousands it declares, and loads no lazy dependency', () => {
    const script = [
      "import { createRequire } from 'node:module';",
      'let schemas = 0;',
      // zod calls this for every schema it builds.
      'globalThis.__zod_globalConfig = { postProcessor() { schemas += 1; } };',
      "await import('voxsim'); await import('voxsim/msw');",
      "const cjs = Object.keys(createRequire(import.meta.url).cache).map((p) => p.replace(/.*node_modules\\//, '').split('/')[0]);",
      'console.log(JSON.stringify({ schemas, cjs }));',
    ].join('\n');
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' })) as { schemas: number; cjs: string[] };
    // 4,599 while every schema was built at import; about 260 now (zod.lazy stand-ins, and bodies of the few eager ones).
    expect(out.schemas).toBeGreaterThan(0);
    expect(out.schemas).toBeLessThan(400);
    // Every dependency but zod (bundled in) stays unloaded: the optional ones load on first use, express and ws with the server.
    const { dependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const unloaded = Object.keys(dependencies).filter((name) => name !== 'zod').map((name) => name.split('/')[0]!);
    expect(unloaded).toEqual(expect.arrayContaining(['@faker-js', 'luxon', 'safe-regex2', 'libphonenumber-js', 'yaml', 'express', 'ws']));
    for (const name of unloaded) expect(out.cjs).not.toContain(name);
  });

  it('loads each lazy dependency on its first use', () => {
    const script = [
      "import { createRequire } from 'node:module';",
      "const { createSimulator } = await import('voxsim');",
      `const sim = createSimulator({ seed: 1, startAt: '${START}' });`,
      `const res = await sim.handle({ method: 'POST', path: '/user/assistant', headers: { authorization: 'Bearer ${KEY}' }, body: ${JSON.stringify(JSON.stringify(pipelineAssistant()))} });`,
      "const cjs = Object.keys(createRequire(import.meta.url).cache).map((p) => p.replace(/.*node_modules\\//, '').split('/')[0]);",
      'console.log(JSON.stringify({ status: res.status, name: sim.control.accounts.list().data[0].name, cjs }));',
    ].join('\n');
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' })) as { status: number; name: string; cjs: string[] };
    expect(out.status).toBe(201);
    // The default account's generated name needs faker; the assistant's zone, luxon.
    expect(out.name).toBe(createSimulator({ seed: 1, startAt: START }).control.accounts.list().data[0]!.name);
    expect(out.cjs).toEqual(expect.arrayContaining(['@faker-js', 'luxon']));
    expect(out.cjs).not.toContain('safe-regex2');
  });
});

/**
 * Runs the built `voxsim` with `args` and answers what it loaded: every module URL it
 * resolved (a resolve hook registered before the bin runs records them), as the source
 * modules of the package (esbuild marks each one's code `// src/...ts` in the file it
 * bundles it into), the npm packages and the Node built-ins. The hook is
 * `module.registerHooks` (Node 22.15 and later; the tests run on the project's Node 24).
 */
function loadedBy(args: string[]): { status: number | null; stdout: string; src: string[]; packages: string[]; builtins: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'voxsim-loaded-'));
  const file = join(dir, 'loaded.json');
  try {
    const hook = [
      "import { registerHooks } from 'node:module';",
      "import { writeFileSync } from 'node:fs';",
      'const seen = new Set();',
      'registerHooks({ resolve(specifier, context, next) { const found = next(specifier, context); seen.add(found.url); return found; } });',
      `process.on('exit', () => writeFileSync(${JSON.stringify(file)}, JSON.stringify([...seen])));`,
    ].join('\n');
    const run = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(hook)}`, join(ROOT, 'dist/src/bin.js'), ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      // No compile cache: the same modules load with or without it; this keeps the run from writing one.
      env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: '1' },
    });
    const urls = JSON.parse(readFileSync(file, 'utf8')) as string[];
    const files = urls.filter((url) => url.startsWith('file:')).map((url) => fileURLToPath(url));
    const ours = files.filter((path) => path.startsWith(join(ROOT, 'dist/')));
    const src = new Set(ours.flatMap((path) => [...readFileSync(path, 'utf8').matchAll(/^\/\/ (src\/\S+\.ts)$/gm)].map((m) => m[1]!)));
    const packages = new Set(files.filter((path) => path.includes('/node_modules/')).map((path) => path.replace(/.*\/node_modules\//, '').split('/')[0]!));
    return {
      status: run.status,
      stdout: run.stdout,
      src: [...src].sort(),
      packages: [...packages].sort(),
      builtins: urls.filter((url) => url.startsWith('node:')).sort(),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What every run of the command loads: the Node check, the launcher (with serve's read-ahead of a state file), the main and the declarations. */
const COMMAND_CORE = [
  'src/bin.ts',
  'src/cli/commands.ts',
  'src/cli/help.ts',
  'src/cli/launch.ts',
  'src/cli/main.ts',
  'src/cli/node-version.ts',
  'src/cli/options.ts',
  'src/core/suggest.ts',
  'src/core/wire.ts',
  'src/state/read-ahead.ts',
  'src/version.ts',
];

describe('the voxsim command', () => {
  it.each([[['--version']], [['sandbox', '--help']], [['sandbox', 'create', '--help']], [['trigger', '--help']], [['--help']]])('%j loads the main and the declarations alone: no command, no simulator, no npm package', (args) => {
    const loaded = loadedBy(args);
    expect(loaded.status).toBe(0);
    expect(loaded.stdout.length).toBeGreaterThan(0);
    expect(loaded.src).toEqual(COMMAND_CORE);
    expect(loaded.packages).toEqual([]);
    expect(loaded.builtins).toEqual(['node:buffer', 'node:fs', 'node:module', 'node:path', 'node:util']);
  });

  it("loads the chosen command's module, and not another's or the simulator", () => {
    // Port 9 is one fetch will not use (a "bad port"): the list fails at once, exit 2, after its module loaded, with no network.
    const loaded = loadedBy(['sandbox', 'list', '--url', 'http://127.0.0.1:9/api']);
    expect(loaded.status).toBe(2);
    expect(loaded.src).toEqual([...COMMAND_CORE, 'src/cli/sandbox.ts', 'src/core/lazy.ts', 'src/core/random.ts'].sort());
    const schema = loadedBy(['scenario', 'schema']);
    expect(schema.status).toBe(0);
    expect(schema.src).toContain('src/scenario/schema.ts');
    for (const other of ['src/simulator.ts', 'src/cli/serve.ts', 'src/cli/sandbox.ts', 'src/cli/recording.ts']) expect(schema.src).not.toContain(other);
  });

  it('refuses a bad flag before it loads the command (one line, the help, exit 2)', () => {
    const loaded = loadedBy(['serve', '--prot', '5000']);
    expect(loaded.status).toBe(2);
    expect(loaded.src).toEqual(COMMAND_CORE);
  });
});
