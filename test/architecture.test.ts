/**
 * House rules checked by reading the source (STYLE.md 5): no ambient time or randomness outside
 * core/clock.ts and core/random.ts. The layering of src/ (no cycles, only src/adapters/** imports
 * msw, express and ws, core < engine < domain < control/scenario/state < simulator.ts < entry
 * points) is checked by dependency-cruiser with .dependency-cruiser.cjs, here and in `npm run deps`.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SRC = join(ROOT, 'src');
const DEPCRUISE_CONFIG = join(ROOT, '.dependency-cruiser.cjs');

/** Files allowed to read real time and real randomness. */
const AMBIENT_ALLOWED = new Set(['core/clock.ts', 'core/random.ts']);

const AMBIENT_PATTERNS: [string, RegExp][] = [
  ['Date.now(', /\bDate\s*\.\s*now\s*\(/],
  ['new Date()', /\bnew\s+Date\b(?!\s*\(\s*[^\s)])/],
  ['Math.random(', /\bMath\s*\.\s*random\s*\(/],
  ['randomUUID(', /\brandomUUID\s*\(/],
  ['setTimeout(', /\bsetTimeout\s*\(/],
  ['setInterval(', /\bsetInterval\s*\(/],
];

const printer = ts.createPrinter({ removeComments: true });

/** The code of a TypeScript source without its comments (strings and regexes stay intact). */
function stripComments(source: string): string {
  return printer.printFile(ts.createSourceFile('file.ts', source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS));
}

/** The forbidden ambient calls in comment-free code. */
function ambientCalls(code: string): string[] {
  return AMBIENT_PATTERNS.filter(([, pattern]) => pattern.test(code)).map(([name]) => name);
}

/** The imports of `module` that are not `import type` (they load the module at run time). */
function runtimeImports(code: string, module: string): string[] {
  const escaped = module.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const pattern = new RegExp(`\\bimport\\s+(type\\s+)?[^'"\`;]*?\\bfrom\\s*['"]${escaped}['"]`, 'g');
  return [...code.matchAll(pattern)].filter((m) => m[1] === undefined).map((m) => m[0]);
}

interface SourceFile {
  /** Path under src/, with forward slashes. */
  path: string;
  code: string;
}

function sourceFiles(): SourceFile[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => ({ path: file.split(/[\\/]/).join('/'), code: stripComments(readFileSync(join(SRC, file), 'utf8')) }))
    .sort((a, b) => a.path.localeCompare(b.path));
}

const FILES = sourceFiles();
const file = (path: string): SourceFile => {
  const found = FILES.find((f) => f.path === path);
  if (!found) throw new Error(`src/${path} was not scanned`);
  return found;
};

describe('architecture', () => {
  it('scans more than 20 source files', () => {
    expect(FILES.length).toBeGreaterThan(20);
    expect(FILES.map((f) => f.path)).toEqual(expect.arrayContaining(['core/clock.ts', 'core/random.ts', 'cli.ts', 'bin.ts', 'simulator.ts']));
  });

  it('reads real time and randomness only in core/clock.ts and core/random.ts', () => {
    const offenders = FILES.filter((f) => !AMBIENT_ALLOWED.has(f.path)).flatMap((f) => ambientCalls(f.code).map((call) => `src/${f.path}: ${call}`));
    expect(offenders).toEqual([]);
  });

  it('finds the real time and randomness that the exempt files do use', () => {
    const found = [...AMBIENT_ALLOWED].flatMap((path) => ambientCalls(file(path).code));
    expect(found).toEqual(expect.arrayContaining(['Date.now(', 'Math.random(']));
  });

  it.each(['cli.ts', 'cli/serve.ts', 'bin.ts'])('imports node:http in src/%s for types only', (path) => {
    expect(runtimeImports(file(path).code, 'node:http')).toEqual([]);
  });
});

/** A temporary copy of `from`/src with tsconfig.json and fixtures/, the repository's node_modules linked in. */
function copyOfSrc(from: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'voxsim-depcruise-'));
  for (const entry of ['src', 'fixtures', 'tsconfig.json']) cpSync(join(from, entry), join(dir, entry), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'junction');
  return dir;
}

/** dependency-cruiser on `baseDir`/src with .dependency-cruiser.cjs (paths in the result are relative to baseDir). */
async function cruiseSrc(baseDir: string): Promise<ICruiseResult> {
  const options = await extractDepcruiseOptions(DEPCRUISE_CONFIG);
  const tsConfigFile = join(baseDir, 'tsconfig.json');
  const { output } = await cruise(['src'], { ...options, baseDir, tsConfig: { fileName: tsConfigFile } }, {}, { tsConfig: extractTSConfig(tsConfigFile) });
  if (typeof output === 'string') throw new Error(`dependency-cruiser returned text instead of a result: ${output.slice(0, 200)}`);
  return output;
}

/** `src/x.ts`, or `npm:<package>` for anything resolved inside a node_modules folder (wherever that is). */
function modulePath(path: string): string {
  const npm = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path.split(/[\\/]/).join('/'));
  return npm ? `npm:${npm[1]}` : path;
}

/** One line per violation: `rule: from -> to`, or `rule: from -> ... -> from` for a cycle (reported once per cycle). */
function violationLines(result: ICruiseResult): string[] {
  const line = (v: IViolation): string => {
    const path = v.cycle ? v.cycle.map((step) => step.name) : [v.to];
    return `${v.rule.name}: ${[v.from, ...path].map(modulePath).join(' -> ')}`;
  };
  return result.summary.violations.map(line).sort();
}

/** The dependencies of the module `source` in a cruise result. */
function dependenciesOf(result: ICruiseResult, source: string) {
  const found = result.modules.find((m) => m.source === source);
  if (!found) throw new Error(`${source} was not cruised`);
  return found.dependencies;
}

let realCruise: Promise<ICruiseResult> | undefined;
/** The cruise of the repository's own src/, shared by the tests below. */
const cruiseOfRepository = (): Promise<ICruiseResult> => (realCruise ??= cruiseSrc(ROOT));

describe('layering (dependency-cruiser, .dependency-cruiser.cjs)', () => {
  const copies: string[] = [];
  afterAll(() => {
    for (const dir of copies) rmSync(dir, { recursive: true, force: true });
  });

  it('finds no violation in src/', async () => {
    const result = await cruiseOfRepository();
    expect(result.summary.totalCruised).toBeGreaterThan(20);
    expect(violationLines(result)).toEqual([]);
  });

  it('resolves every import in src/, so the rules see every edge', async () => {
    const result = await cruiseOfRepository();
    const unresolved = result.modules
      .filter((m) => m.source.startsWith('src/'))
      .flatMap((m) => m.dependencies.filter((d) => d.couldNotResolve).map((d) => `${m.source} -> ${d.module}`));
    expect(unresolved).toEqual([]);
  });

  it('sees the transport imports that the adapters do make', async () => {
    const result = await cruiseOfRepository();
    expect(dependenciesOf(result, 'src/adapters/express.ts').map((d) => modulePath(d.resolved))).toContain('npm:express');
    expect(dependenciesOf(result, 'src/adapters/msw.ts').map((d) => modulePath(d.resolved))).toContain('npm:msw');
    expect(dependenciesOf(result, 'src/adapters/event-stream.ts').map((d) => modulePath(d.resolved))).toContain('npm:ws');
    expect(dependenciesOf(result, 'src/adapters/events-client.ts').map((d) => modulePath(d.resolved))).toContain('npm:ws');
  });

  it.each(['src/cli.ts', 'src/cli/serve.ts', 'src/cli/events.ts', 'src/cli/catalog.ts', 'src/bin.ts'])('lets %s import no npm package (it reaches the transports through src/adapters)', async (source) => {
    const result = await cruiseOfRepository();
    expect(dependenciesOf(result, source).filter((d) => !d.coreModule && !d.module.startsWith('.')).map((d) => d.module)).toEqual([]);
  });

  it('reports a planted violation of every rule, with the offending edge, and no allowed import', async () => {
    // Two copies of one snapshot of src/ (another edit of src/ cannot slip in between): one as it is, one planted.
    const original = copyOfSrc(ROOT);
    const dir = copyOfSrc(original);
    copies.push(original, dir);
    const plant = (path: string, code: string): void => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), code);
    };
    // A cycle in core, closed by a type-only import.
    plant('src/core/zz-cycle-a.ts', "import { b } from './zz-cycle-b.js';\nexport interface A { n: number }\nexport const a = (): number => b({ n: 1 });\n");
    plant('src/core/zz-cycle-b.ts', "import type { A } from './zz-cycle-a.js';\nexport const b = (x: A): number => x.n;\n");
    // Core reaching up into domain; core may use npm packages and node builtins.
    plant('src/core/zz-up.ts', "import { readFileSync } from 'node:fs';\nimport { z } from 'zod';\nimport { domainValue } from '../domain/zz-types.js';\nexport const up = [readFileSync, z, domainValue];\n");
    // Engine may use core and node builtins, but not import domain, not even for types.
    plant('src/core/zz-base.ts', 'export const base = 1;\n');
    plant(
      'src/engine/zz-value.ts',
      "import { EventEmitter } from 'node:events';\nimport { base } from '../core/zz-base.js';\nexport interface EngineThing { n: number }\nexport const engineValue = [EventEmitter, base];\n",
    );
    plant('src/engine/zz-up.ts', "import type { DomainThing } from '../domain/zz-types.js';\nexport const engineUp = (x: DomainThing): number => x.n;\n");
    // Domain: engine types are fine, engine values are not; upper layers not even for types.
    plant(
      'src/domain/zz-types.ts',
      "import type { EngineThing } from '../engine/zz-value.js';\nexport type DomainThing = EngineThing;\nexport type Other = import('../engine/zz-value.js').EngineThing;\nexport const domainValue = 1;\n",
    );
    plant('src/domain/zz-runtime.ts', "import { engineValue } from '../engine/zz-value.js';\nexport const domainRuntime = engineValue;\n");
    plant('src/domain/zz-upper.ts', "import type { ControlThing } from '../control/zz-control.js';\nexport type DomainUpper = ControlThing;\n");
    // Control, scenario and state may use core, engine, domain and each other, never the simulator or the entry points.
    plant(
      'src/control/zz-control.ts',
      "import { domainValue } from '../domain/zz-types.js';\nimport { engineValue } from '../engine/zz-value.js';\nimport { stateValue } from '../state/zz-state.js';\nexport type ControlThing = number;\nexport const control = [domainValue, engineValue, stateValue];\n",
    );
    plant('src/state/zz-state.ts', "import { domainValue } from '../domain/zz-types.js';\nexport const stateValue = domainValue;\n");
    plant('src/state/zz-entry.ts', "import type * as api from '../index.js';\nexport type Api = typeof api;\n");
    // Recording sits above scenario (it may import it, core and domain), below the entry points; nothing below imports it.
    plant('src/recording/zz-recording.ts', "import { stateValue } from '../state/zz-state.js';\nimport { domainValue } from '../domain/zz-types.js';\nexport const recording = [stateValue, domainValue];\n");
    plant('src/recording/zz-entry.ts', "import type * as simulator from '../simulator.js';\nexport type Sim = typeof simulator;\n");
    plant('src/scenario/zz-down.ts', "import { recording } from '../recording/zz-recording.js';\nexport const down = recording;\n");
    // Only index.ts, adapters and cli.ts import simulator.ts.
    plant('src/zz-main.ts', "import type * as simulator from './simulator.js';\nexport type Sim = typeof simulator;\n");
    plant('src/adapters/zz-adapter.ts', "import type * as simulator from '../simulator.js';\nimport { WebSocketServer } from 'ws';\nexport const adapter = [WebSocketServer] as unknown as typeof simulator;\n");
    // Transports outside src/adapters, in every form; look-alikes are fine.
    plant('src/zz-transport-type.ts', "import type { Request } from 'express';\nexport type Req = Request;\n");
    plant('src/zz-transport-dynamic.ts', "export const load = () => import('msw/node');\n");
    plant('src/zz-transport-reexport.ts', "export { WebSocketServer } from 'ws';\n");
    plant('src/zz-ws.ts', 'export const socket = 1;\n');
    plant('src/zz-lookalike.ts', "import { socket } from './zz-ws.js';\nexport const lookalike = socket;\n");

    const baseline = violationLines(await cruiseSrc(original));
    const planted = violationLines(await cruiseSrc(dir));
    // The planted copy keeps every violation that src/ has right now ...
    expect(baseline.filter((line) => !planted.includes(line))).toEqual([]);
    // ... and adds exactly the planted ones.
    expect(planted.filter((line) => !baseline.includes(line))).toEqual([
      'core-is-self-contained: src/core/zz-up.ts -> src/domain/zz-types.ts',
      'domain-not-engine-at-runtime: src/domain/zz-runtime.ts -> src/engine/zz-value.ts',
      'domain-not-upper-layers: src/domain/zz-upper.ts -> src/control/zz-control.ts',
      'engine-only-core: src/engine/zz-up.ts -> src/domain/zz-types.ts',
      'no-circular: src/core/zz-cycle-a.ts -> src/core/zz-cycle-b.ts -> src/core/zz-cycle-a.ts',
      'recording-above-scenario: src/scenario/zz-down.ts -> src/recording/zz-recording.ts',
      'services-not-entry-points: src/recording/zz-entry.ts -> src/simulator.ts',
      'services-not-entry-points: src/state/zz-entry.ts -> src/index.ts',
      'simulator-only-from-entry-points: src/recording/zz-entry.ts -> src/simulator.ts',
      'simulator-only-from-entry-points: src/zz-main.ts -> src/simulator.ts',
      'transports-only-in-adapters: src/zz-transport-dynamic.ts -> npm:msw',
      'transports-only-in-adapters: src/zz-transport-reexport.ts -> npm:ws',
      'transports-only-in-adapters: src/zz-transport-type.ts -> npm:express',
    ]);
  });
});

describe('architecture matchers', () => {
  it.each([
    ['const t = Date.now();', 'Date.now('],
    ['const d = new Date();', 'new Date()'],
    ['const d = new Date;', 'new Date()'],
    ['const d = new Date( );', 'new Date()'],
    ['const r = Math.random();', 'Math.random('],
    ["import { randomUUID } from 'node:crypto'; const id = randomUUID();", 'randomUUID('],
    ['const id = crypto.randomUUID();', 'randomUUID('],
    ['setTimeout(() => undefined, 10);', 'setTimeout('],
    ['const h = globalThis.setInterval(tick, 1000);', 'setInterval('],
  ])('flags %j as %s', (sample, call) => {
    expect(ambientCalls(stripComments(sample))).toEqual([call]);
  });

  it.each(['const d = new Date(ms);', 'const d = new Date(clock.now());', "const d = new Date('2026-03-02T09:00:00Z');", 'const t = DateTime.now;', 'const x = new DateTime();'])(
    'does not flag %j',
    (sample) => {
      expect(ambientCalls(stripComments(sample))).toEqual([]);
    },
  );

  it('does not flag calls that appear only in comments', () => {
    const sample = [
      '// never call Date.now() here',
      '/* Math.random() and setTimeout() are banned */',
      '/**',
      ' * @example new Date() // not this',
      ' * crypto.randomUUID()',
      ' */',
      'export const x = 1; // setInterval(tick)',
    ].join('\n');
    expect(ambientCalls(stripComments(sample))).toEqual([]);
  });

  it('still sees code that follows a string containing //', () => {
    expect(ambientCalls(stripComments("const u = 'http://example.com'; const t = Date.now();"))).toEqual(['Date.now(']);
  });

  it('flags a runtime import of node:http and not a type-only one', () => {
    expect(runtimeImports(stripComments("import { createServer } from 'node:http';"), 'node:http')).toHaveLength(1);
    expect(runtimeImports(stripComments("import type { Server } from 'node:http';"), 'node:http')).toEqual([]);
  });
});
