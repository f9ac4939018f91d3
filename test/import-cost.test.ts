/**
 * What importing the built package loads (issue 29): `import 'voxsim'` and
 * `import 'voxsim/msw'` read only the package's own chunks, msw and two Node built-ins;
 * faker, luxon, safe-regex2, libphonenumber-js, yaml, the recording modules and
 * node:http load when a path first needs them, and the schemas of answers, scenarios and
 * route bodies are built on first use. The time it takes is the bench's
 * (`import.voxsim_msw`); this checks what it is made of, which a change can break without
 * a timed test noticing.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
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
