/**
 * What the package ships beside its code: a LICENSE, and source maps that carry their
 * sources (the package ships dist/, not src/, so a map pointing at src/ alone would
 * leave a debugger or a stack-trace tool with nothing to show).
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
    const maps = readdirSync(join(ROOT, 'dist/src'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(50);
    for (const file of maps) {
      const map = JSON.parse(readFileSync(join(ROOT, 'dist/src', file), 'utf8')) as { sources: string[]; sourcesContent?: string[] };
      expect(map.sourcesContent, file).toHaveLength(map.sources.length);
      const source = join(ROOT, 'dist/src', file, '..', map.sources[0]!);
      expect(map.sourcesContent![0], file).toBe(readFileSync(source, 'utf8'));
    }
  });
});
