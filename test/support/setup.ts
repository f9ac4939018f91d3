/**
 * Runs before every test file (vitest `setupFiles`), also where files share their
 * worker's module graph: hooks registered at the top of a shared module would be
 * registered once per worker, for its first file only. Every file kills the processes
 * it started: each test's own after it, the file's shared servers after the file.
 */
import { afterAll, afterEach } from 'vitest';
import { killAll } from './processes.js';

afterEach(() => killAll());
afterAll(() => killAll(true));
