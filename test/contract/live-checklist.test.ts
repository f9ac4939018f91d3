/**
 * Every route of the live platform's checklist is served, on both transports. The list is
 * the table under "Route checklist" in docs/live-platform.md (the project's own copy of
 * the live platform's routes), read here rather than from our router, so a route the
 * docs name and voxsim does not serve fails here.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { contract } from '../support/api.js';

const DOCUMENT = new URL('../../docs/live-platform.md', import.meta.url);
const KINDS = ['alias', 'live route', 'live resource'] as const;

interface Row {
  method: string;
  path: string;
  kind: (typeof KINDS)[number];
}

/** The rows of the table under "## Route checklist". */
function checklist(): Row[] {
  const text = readFileSync(DOCUMENT, 'utf8');
  const at = text.indexOf('## Route checklist');
  if (at < 0) throw new Error('docs/live-platform.md has no "## Route checklist" section');
  const section = text.slice(at).split(/\n## /)[0]!;
  return section
    .split('\n')
    .map((line) => /^\|\s*(GET|POST|PUT|PATCH|DELETE)\s*\|\s*(\S+)\s*\|\s*(alias|live route|live resource)\s*\|$/.exec(line.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ method: m[1]!, path: m[2]!, kind: m[3] as Row['kind'] }));
}

const ROWS = checklist();
const nameOf = (row: Row) => `${row.method} ${row.path}`;

it('reads the whole checklist from the docs, each route once', () => {
  expect(ROWS.length).toBe(57);
  expect(ROWS.filter((r) => r.kind === 'alias')).toHaveLength(11);
  expect(ROWS.filter((r) => r.kind === 'live route')).toHaveLength(9);
  expect(ROWS.filter((r) => r.kind === 'live resource')).toHaveLength(37);
  expect(ROWS[0]).toEqual({ method: 'POST', path: '/user/campaigns', kind: 'alias' });
  expect(ROWS.at(-1)).toEqual({ method: 'POST', path: '/user/sms', kind: 'live resource' });
  expect(new Set(ROWS.map(nameOf)).size).toBe(ROWS.length);
});

contract('live platform route checklist', (api) => {
  for (const row of ROWS) {
    it(`serves ${nameOf(row)} (${row.kind})`, async () => {
      const path = row.path.replace(/\{[A-Za-z]+\}/g, '1');
      const res = await api().call(row.method, path, row.method === 'GET' || row.method === 'DELETE' ? undefined : {});
      // Not the router's answers to a path or method it does not serve.
      expect(res.status, JSON.stringify(res.body)).not.toBe(405);
      expect(res.body?.message ?? '').not.toMatch(/^The route .* could not be found\.$/);
      expect(res.status).toBeLessThan(500);
    });
  }
});
