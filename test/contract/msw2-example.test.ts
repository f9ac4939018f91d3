/** The README's MSW example under msw 2 (see support/msw2.ts): `msw` is the `msw2` alias here. */
import { vi } from 'vitest';

vi.mock('msw', () => import('msw2'));
vi.mock('msw/node', () => import('msw2/node'));

await import('../../examples/msw.test.js');
