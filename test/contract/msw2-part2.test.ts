/** Part 2 of the contract suites under msw 2 (test/support/msw2.ts); the README example runs under msw 2 in msw2-example.test.ts. */
import { vi } from 'vitest';
import { runContractSuitesUnderMsw2 } from '../support/msw2.js';

vi.mock('msw', () => import('msw2'));
vi.mock('msw/node', () => import('msw2/node'));
vi.mock('msw/package.json', () => import('msw2/package.json'));

await runContractSuitesUnderMsw2(2, 3);
