/**
 * The README and the docs/ pages hold together: the README stays a short start (its line
 * budget), every docs page is reachable from the README and from the docs index, and no
 * relative link between them points nowhere: each names a file of the repository and,
 * with an `#anchor`, a heading of that file (GitHub's slugs).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The README's budget: a newcomer reads it in five minutes. */
const README_MAX_LINES = 300;
const PAGES = readdirSync(join(ROOT, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .sort()
  .map((name) => `docs/${name}`);
const FILES = ['README.md', ...PAGES];
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** The text outside fenced code blocks (a `#` line in a shell or YAML block is no heading). */
function withoutFences(markdown: string): string {
  return markdown.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** The text outside code, inline code emptied: a link written inside code is no link. */
function prose(markdown: string): string {
  return withoutFences(markdown).replace(/(`+)[\s\S]*?\1/g, '``');
}

/** GitHub's anchor of a heading: lowercase, punctuation dropped, each space a hyphen. */
function slug(heading: string): string {
  const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').trim().toLowerCase();
  return text.replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-');
}

/** The anchors of a markdown file's headings, repeated ones numbered as GitHub numbers them. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const match of withoutFences(markdown).matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)) {
    const base = slug(match[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
}

/** The relative link targets of a markdown text (links and images; not URLs with a scheme). */
function relativeLinks(markdown: string): string[] {
  const targets = [...prose(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** What is wrong with a link written in `file` (a path from the root), or undefined when it holds. */
function brokenLink(file: string, target: string, root = ROOT): string | undefined {
  const [path = '', anchor] = target.split('#', 2);
  const resolved = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)));
  if (relative(root, join(root, resolved)).startsWith('..')) return `${file}: ${target} leaves the repository`;
  const absolute = join(root, resolved);
  if (!existsSync(absolute)) return `${file}: ${target} names no file (${resolved})`;
  if (anchor === undefined) return undefined;
  if (statSync(absolute).isDirectory() || !resolved.endsWith('.md')) return `${file}: ${target} has an anchor in a file that is not markdown`;
  if (!anchors(readFileSync(absolute, 'utf8')).has(anchor)) return `${file}: ${target} names no heading of ${resolved}`;
  return undefined;
}

/** The docs pages a file links to (paths from the root), anchors dropped. */
function pagesLinkedFrom(file: string): Set<string> {
  return new Set(
    relativeLinks(read(file))
      .map((target) => target.split('#')[0]!)
      .filter((path) => path !== '')
      .map((path) => normalize(join(dirname(file), path))),
  );
}

describe('the README and docs/', () => {
  it('finds the docs pages, the live platform page among them', () => {
    expect(PAGES).toContain('docs/README.md');
    expect(PAGES).toContain('docs/live-platform.md');
    expect(PAGES.length).toBeGreaterThan(10);
  });

  it(`keeps the README to at most ${README_MAX_LINES} lines`, () => {
    const lines = read('README.md').replace(/\n$/, '').split('\n').length;
    expect(lines).toBeGreaterThan(100);
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it.each(PAGES.filter((page) => page !== 'docs/README.md'))('links %s from the README and from the docs index', (page) => {
    expect([...pagesLinkedFrom('README.md')]).toContain(page);
    expect([...pagesLinkedFrom('docs/README.md')]).toContain(page);
  });

  it('links the docs index from the README', () => {
    expect([...pagesLinkedFrom('README.md')]).toContain('docs/README.md');
  });

  it.each(FILES)('has no relative link in %s that points nowhere', (file) => {
    const links = relativeLinks(read(file));
    expect(links.map((target) => brokenLink(file, target)).filter((problem) => problem !== undefined)).toEqual([]);
  });

  it('reads links and anchors as GitHub does, and finds a broken one', () => {
    expect(slug('Folders, labels, SIP trunks and SMS')).toBe('folders-labels-sip-trunks-and-sms');
    expect(slug('`voxsim events`')).toBe('voxsim-events');
    expect(slug('Use it in your tests (MSW)')).toBe('use-it-in-your-tests-msw');
    expect(slug("The platform's resources")).toBe('the-platforms-resources');
    expect([...anchors('# A\n\n```sh\n# not a heading\n```\n\n## A\n### B c\n')]).toEqual(['a', 'a-1', 'b-c']);
    const text = 'See [x](docs/state.md#state-file), `[not](a-link.md)`, [web](https://example.test/x.md) and ![i](docs/screenshots/dashboard-1280x800.png).';
    expect(relativeLinks(text)).toEqual(['docs/state.md#state-file', 'docs/screenshots/dashboard-1280x800.png']);
    expect(brokenLink('README.md', 'docs/state.md#state-file')).toBeUndefined();
    expect(brokenLink('docs/state.md', '#snapshots')).toBeUndefined();
    expect(brokenLink('docs/state.md', '../README.md#run-the-server')).toBeUndefined();
    expect(brokenLink('README.md', 'docs/nowhere.md')).toMatch(/names no file/);
    expect(brokenLink('README.md', 'docs/state.md#nowhere')).toMatch(/names no heading/);
    expect(brokenLink('docs/state.md', '#state')).toMatch(/names no heading/);
  });
});
