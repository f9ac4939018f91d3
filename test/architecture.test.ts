/**
 * House rules checked by reading the source (STYLE.md 5 and the adapter rule):
 * no ambient time or randomness outside core/clock.ts and core/random.ts, and only
 * src/adapters/* imports the transports (msw, express, ws).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

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

const TRANSPORT = /^(?:msw|express|ws)(?:\/.*)?$/;

const printer = ts.createPrinter({ removeComments: true });

/** The code of a TypeScript source without its comments (strings and regexes stay intact). */
function stripComments(source: string): string {
  return printer.printFile(ts.createSourceFile('file.ts', source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS));
}

/** The forbidden ambient calls in comment-free code. */
function ambientCalls(code: string): string[] {
  return AMBIENT_PATTERNS.filter(([, pattern]) => pattern.test(code)).map(([name]) => name);
}

/** Every module specifier: static imports, `export ... from`, dynamic `import()` and `require()`. */
function moduleSpecifiers(code: string): string[] {
  const patterns = [
    /\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"`]([^'"`]+)['"`]/g,
    /\brequire\s*\(\s*['"`]([^'"`]+)['"`]/g,
  ];
  return patterns.flatMap((pattern) => [...code.matchAll(pattern)].map((m) => m[1]!));
}

/** The transport modules (msw, express, ws and their subpaths) that comment-free code imports. */
function transportImports(code: string): string[] {
  return moduleSpecifiers(code).filter((s) => TRANSPORT.test(s));
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

  it('imports msw, express and ws only under src/adapters/', () => {
    const offenders = FILES.filter((f) => !f.path.startsWith('adapters/')).flatMap((f) => transportImports(f.code).map((m) => `src/${f.path}: ${m}`));
    expect(offenders).toEqual([]);
  });

  it('finds the transport imports that the adapters do make', () => {
    expect(transportImports(file('adapters/express.ts').code)).toContain('express');
    expect(transportImports(file('adapters/msw.ts').code)).toContain('msw');
  });

  it.each(['cli.ts', 'bin.ts'])('lets src/%s reach the transports only through ../adapters', (path) => {
    const code = file(path).code;
    expect(transportImports(code)).toEqual([]);
    const bare = moduleSpecifiers(code).filter((s) => !s.startsWith('.'));
    expect(bare.filter((s) => !s.startsWith('node:'))).toEqual([]);
  });

  it.each(['cli.ts', 'bin.ts'])('imports node:http in src/%s for types only', (path) => {
    expect(runtimeImports(file(path).code, 'node:http')).toEqual([]);
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

  it.each([
    ["import { http } from 'msw';", 'msw'],
    ['import { setupServer } from "msw/node";', 'msw/node'],
    ["import express from 'express';", 'express'],
    ["import type { Request } from 'express';", 'express'],
    ["import {\n  WebSocketServer,\n  type WebSocket,\n} from 'ws';", 'ws'],
    ["import 'ws';", 'ws'],
    ["export { http } from 'msw';", 'msw'],
    ["const m = await import('msw/node');", 'msw/node'],
    ['const e = await import("express");', 'express'],
    ["const ws = require('ws');", 'ws'],
  ])('flags the transport import in %j', (sample, module) => {
    expect(transportImports(stripComments(sample))).toEqual([module]);
  });

  it('flags a runtime import of node:http and not a type-only one', () => {
    expect(runtimeImports(stripComments("import { createServer } from 'node:http';"), 'node:http')).toHaveLength(1);
    expect(runtimeImports(stripComments("import type { Server } from 'node:http';"), 'node:http')).toEqual([]);
  });

  it.each([
    "import { z } from 'zod';",
    "import limit from 'express-rate-limit';",
    "import { socket } from './ws.js';",
    "import type { Server } from 'node:http';",
    "import { createApp } from './adapters/express.js';",
    "// import express from 'express';",
  ])('does not flag %j', (sample) => {
    expect(transportImports(stripComments(sample))).toEqual([]);
  });
});
