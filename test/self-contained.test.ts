/**
 * The repository holds everything it reads: no source, test, script or config file names a
 * path outside the repository root, so a clone with nothing beside it builds, tests and runs.
 * Every relative path written in a file (a chain of `..` segments) is resolved against that file's
 * folder (and, for a source file, against the folder it is built to under `dist/` too, where
 * it runs), and every absolute path naming a home or work folder is refused outright.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Folders that are installed or built, not written: they are not the repository's own files. */
const SKIP = new Set(['node_modules', 'dist', '.git', 'coverage']);
/** What is code or configuration: sources, tests, scripts, benches, config and CI. */
const CODE = /\.(?:[cm]?[jt]s|json|ya?ml|sh)$|^\.ci\/|^\.[\w-]+rc$|\.config\.\w+$/;

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return SKIP.has(entry.name) ? [] : filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}

const FILES = filesUnder(ROOT)
  .map((path) => relative(ROOT, path).split(sep).join('/'))
  .filter((path) => CODE.test(path) && path !== 'package-lock.json');

/** Written as pieces, so that this file's own examples name no path. */
const UP = '..' + '/';

/** The relative paths a text names that leave the repository, read from the folder of `file` (or of its build). */
function pathsOutside(file: string, text: string, root = ROOT): string[] {
  const found: string[] = [];
  const folders = [dirname(file), ...(file.startsWith('src/') ? [`dist/${dirname(file)}`] : [])];
  for (const match of text.matchAll(/(?<![\w.])((?:\.\.\/)+)([\w@$-][\w@.$/-]*)?/g)) {
    const inside = folders.some((folder) => !relative(root, resolve(root, folder, match[0])).startsWith('..'));
    if (!inside) found.push(match[0]);
  }
  for (const match of text.matchAll(/(?<![\w.])\/(?:work|home|root|Users)\/[\w.@$-]+/g)) found.push(match[0]);
  return found;
}

describe('a self-contained repository', () => {
  it('reads the project files it checks', () => {
    expect(FILES).toContain('package.json');
    expect(FILES).toContain('.ci/run');
    expect(FILES).toContain('test/self-contained.test.ts');
    expect(FILES.some((path) => path.startsWith('src/'))).toBe(true);
    expect(FILES.some((path) => path.startsWith('node_modules/') || path.startsWith('dist/'))).toBe(false);
  });

  it('finds a path that leaves the repository, and none that stays in it', () => {
    const shared = `${UP}${UP}${UP}shared/spec/live.md`;
    expect(pathsOutside('test/contract/x.test.ts', `new URL('${shared}', import.meta.url)`)).toEqual([shared]);
    expect(pathsOutside('test/contract/x.test.ts', `new URL('${UP}${UP}docs/live.md', import.meta.url)`)).toEqual([]);
    expect(pathsOutside('bench/run.ts', `readFileSync('/${'work'}/shared/x.json')`)).toEqual([`/${'work'}/shared`]);
    expect(pathsOutside('src/core/a.ts', `import x from '${UP}b.js' // see ${UP.repeat(4)}shared`)).toEqual([`${UP.repeat(4)}shared`]);
    // A source file runs from dist/src/...: one more level up still lands in the repository.
    expect(pathsOutside('src/adapters/a.ts', `['${UP}${UP}dashboard/index.html', '${UP}${UP}${UP}dashboard/index.html']`)).toEqual([]);
    expect(pathsOutside('test/a.ts', `'${UP}${UP}dashboard'`)).toEqual([`${UP}${UP}dashboard`]);
  });

  it.each(FILES)('%s names no path outside the repository', (file) => {
    expect(pathsOutside(file, readFileSync(join(ROOT, file), 'utf8'))).toEqual([]);
  });
});
