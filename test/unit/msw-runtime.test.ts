/** The import-time check of `voxsim/msw`: one sentence naming what to upgrade. */
import { describe, expect, it } from 'vitest';
import { MIN_MSW, MIN_NODE, runtimeProblem } from '../../src/adapters/msw.js';

describe('runtimeProblem', () => {
  it('accepts Node 22.12 and msw 2.11 at the edge, and newer', () => {
    expect(MIN_NODE).toBe('22.12.0');
    expect(MIN_MSW).toBe('2.11.0');
    expect(runtimeProblem('22.12.0', '2.11.0')).toBeNull();
    expect(runtimeProblem('v24.1.0', '3.0.5')).toBeNull();
    expect(runtimeProblem('23.0.0', '2.15.0')).toBeNull();
    // An msw whose version cannot be read is not refused.
    expect(runtimeProblem('24.0.0', undefined)).toBeNull();
  });

  it('refuses a Node older than 22.12 first', () => {
    expect(runtimeProblem('v22.11.9', '3.0.5')).toBe('voxsim/msw needs Node 22.12.0 or newer (this is Node 22.11.9); upgrade Node to run it.');
    expect(runtimeProblem('20.19.0', '2.10.0')).toBe('voxsim/msw needs Node 22.12.0 or newer (this is Node 20.19.0); upgrade Node to run it.');
  });

  it('refuses an msw older than 2.11', () => {
    expect(runtimeProblem('24.0.0', '2.10.5')).toBe(
      'voxsim/msw needs msw 2.11.0 or newer, 2.x or 3.x (installed: msw 2.10.5); run npm install -D msw@latest.',
    );
    expect(runtimeProblem('24.0.0', '1.3.2')).toMatch(/installed: msw 1\.3\.2/);
    expect(runtimeProblem('24.0.0', '2.11.0-beta.1')).toBeNull();
  });
});
