/**
 * What the package ships beside its code: a LICENSE, and source maps that carry their
 * sources (the package ships dist/, not src/ or node_modules/, so a map pointing at
 * them alone would leave a debugger or a stack-trace tool with nothing to show).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url).pathname;

describe('package files', () => {
  it('ships an MIT LICENSE, as package.json says', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { license: string };
    expect(pkg.license).toBe('MIT');
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) 2026 the voxsim contributors\n/);
  });

  it('embeds every source in its map, the same text as the source file', () => {
    // One bundled module per entry point, and the chunks they share (scripts/build.mjs).
    const maps = readdirSync(join(ROOT, 'dist/src'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js.map'));
    expect(maps).toEqual(expect.arrayContaining(['index.js.map', 'bin.js.map', 'adapters/msw.js.map', 'adapters/express.js.map', 'adapters/vitest.js.map']));
    const ours = new Set<string>();
    for (const file of maps) {
      const map = JSON.parse(readFileSync(join(ROOT, 'dist/src', file), 'utf8')) as { sources: string[]; sourcesContent?: string[] };
      expect(map.sourcesContent, file).toHaveLength(map.sources.length);
      map.sources.forEach((source, i) => {
        const path = join(ROOT, 'dist/src', file, '..', source);
        // Ours as they are; a bundled dependency's as its own maps give them (a type-only file of theirs has none).
        if (!path.startsWith(join(ROOT, 'src/')) && !path.startsWith(join(ROOT, 'fixtures/'))) return;
        expect(map.sourcesContent![i], `${file}: ${source}`).toBe(readFileSync(path, 'utf8'));
        ours.add(path);
      });
    }
    // Every module of the package's code is in some map, but those that only declare types (they compile to nothing)
    // and src/cli.ts, the command line's exports for tests and scripts (the command runs src/cli/main.ts, issue 45).
    const UNBUNDLED = ['src/cli.ts', 'src/domain/state.ts', 'src/types.ts'];
    const sources = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => `src/${f}`);
    expect(sources.filter((f) => !ours.has(join(ROOT, f))).sort()).toEqual(UNBUNDLED);
  });
});
