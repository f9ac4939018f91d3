/**
 * The MSW handlers under msw 2 (peer range `^2.11.0 || ^3`): `msw` is replaced by the
 * `msw2` dev dependency (an npm alias of msw 2) for everything this file loads, the
 * adapter included, and representative contract suites run through the MSW transport
 * alone: the route-table suite (authentication, path ids, malformed bodies of every
 * route, checked against the OpenAPI document), campaigns (clock-driven dialing, webhook
 * deliveries through an msw handler), and a check that the adapter loaded msw 2. The README example
 * runs under msw 2 in msw2-example.test.ts (two MSW servers must not listen at once).
 * The rest run under msw 3 only, to keep the suite quick.
 */
import { describe, expect, it, vi } from 'vitest';
import msw2Package from 'msw2/package.json' with { type: 'json' };
import { onlyTransport } from '../support/api.js';

vi.mock('msw', () => import('msw2'));
vi.mock('msw/node', () => import('msw2/node'));
vi.mock('msw/package.json', () => import('msw2/package.json'));

onlyTransport('msw');
await import('./routes.test.js');
await import('./campaigns.test.js');

describe('msw 2', () => {
  it('is what the adapter loaded', async () => {
    const msw = await import('msw');
    expect(msw2Package.version).toMatch(/^2\.(1[1-9]|[2-9]\d)\./);
    expect(msw.http).toBe((await import('msw2')).http);
  });
});
