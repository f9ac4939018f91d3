/**
 * The MSW contract suites under msw 2 (peer range `^2.11.0 || ^3`): each
 * `test/contract/msw2-part*.test.ts` replaces `msw` by the `msw2` dev dependency (an npm
 * alias of msw 2) with `vi.mock`, then runs its share of every contract file through the
 * MSW transport alone. The files are found, not listed, so a new contract suite runs
 * under both majors without anyone remembering to add it; they are shared out over the
 * parts so that the workers run them side by side.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { onlyTransport } from './api.js';

const CONTRACT = new URL('../contract/', import.meta.url);

/** Every contract suite run through the transports (`contract()` of api.ts), in name order: not the Express-only files, not the msw 2 runners. */
export function contractSuites(): string[] {
  return readdirSync(CONTRACT)
    .filter((file) => file.endsWith('.test.ts') && !file.startsWith('msw2') && /\bcontract\(/.test(readFileSync(new URL(file, CONTRACT), 'utf8')))
    .sort();
}

/** Runs part `part` (1-based) of `parts` of the contract suites through MSW, under the msw the caller mocked in. */
export async function runContractSuitesUnderMsw2(part: number, parts: number): Promise<void> {
  onlyTransport('msw');
  const mine = contractSuites().filter((_, index) => index % parts === part - 1);
  for (const file of mine) await import(new URL(file.replace(/\.ts$/, '.js'), CONTRACT).href);
  describe(`msw 2 (part ${part} of ${parts}: ${mine.length} suites)`, () => {
    it('is what the adapter loaded', async () => {
      const msw = await import('msw');
      const { default: installed } = await import('msw2/package.json', { with: { type: 'json' } });
      expect(installed.version).toMatch(/^2\.(1[1-9]|[2-9]\d)\./);
      expect(msw.http).toBe((await import('msw2')).http);
    });
  });
}
