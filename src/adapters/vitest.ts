/**
 * `voxsim/vitest`: a vitest fixture giving each test a fresh simulator, the MSW server
 * answering from it, and a typed `api` client of the simulated platform.
 * @example
 * import { test } from 'voxsim/vitest'
 * test('creates a campaign', async ({ sim, api }) => { ... })
 */
import { setupServer } from 'msw/node';
import { test as base, type TestAPI } from 'vitest';
import { createSimulator, type Simulator, type SimulatorOptions } from '../simulator.js';
import { DEFAULT_API_KEY } from '../domain/accounts/schema.js';
import { handlers } from './msw.js';

/** The base URL the fixture's handlers answer under, unless `baseUrl` is overridden. */
export const DEFAULT_BASE_URL = 'https://api.voxsim.test/api';

/** One answer of the simulated API: status, headers and the parsed JSON body. */
export interface ApiResult<T> {
  status: number;
  headers: Headers;
  body: T;
}

export interface ApiCallOptions {
  /** The API key; `null` sends no Authorization header. Default the default account's (`sim_test_key`). */
  key?: string | null;
  /** Query parameters, appended to the path. */
  query?: Record<string, string | number | boolean>;
  headers?: Record<string, string>;
}

/** A client of the simulated platform through `fetch` (so it goes through MSW as the code under test does). */
export interface VoxsimApi {
  readonly baseUrl: string;
  request<T = unknown>(method: string, path: string, body?: unknown, options?: ApiCallOptions): Promise<ApiResult<T>>;
  get<T = unknown>(path: string, options?: ApiCallOptions): Promise<ApiResult<T>>;
  post<T = unknown, B = unknown>(path: string, body?: B, options?: ApiCallOptions): Promise<ApiResult<T>>;
  put<T = unknown, B = unknown>(path: string, body?: B, options?: ApiCallOptions): Promise<ApiResult<T>>;
  patch<T = unknown, B = unknown>(path: string, body?: B, options?: ApiCallOptions): Promise<ApiResult<T>>;
  delete<T = unknown>(path: string, options?: ApiCallOptions): Promise<ApiResult<T>>;
}

/** The MSW server of `msw/node` (msw 2's `SetupServerApi`, msw 3's `SetupServer`). */
export type MswServer = ReturnType<typeof setupServer>;

export interface VoxsimFixtures {
  /** Options of each test's simulator; default `{ seed: 1 }`. Override with `test.override({ simulatorOptions })` or `test.scoped`. */
  simulatorOptions: SimulatorOptions;
  /** The base URL the handlers answer under. */
  baseUrl: string;
  /** A fresh simulator for this test, disposed after it. */
  sim: Simulator;
  /** The MSW server answering from `sim`, listening during this test; add your own handlers with `server.use()`. */
  server: MswServer;
  /** A client of the simulated API with the default key. */
  api: VoxsimApi;
}

/** A `VoxsimApi` over `fetch` against `baseUrl`. */
export function apiClient(baseUrl: string): VoxsimApi {
  const request = async <T>(method: string, path: string, body?: unknown, options: ApiCallOptions = {}): Promise<ApiResult<T>> => {
    const key = options.key === undefined ? DEFAULT_API_KEY : options.key;
    const headers: Record<string, string> = { accept: 'application/json', ...(key !== null && { authorization: `Bearer ${key}` }), ...options.headers };
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const query = options.query ? `?${new URLSearchParams(Object.entries(options.query).map(([k, v]) => [k, String(v)]))}` : '';
    const res = await fetch(`${baseUrl}${path}${query}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text === '' ? undefined : JSON.parse(text)) as T };
  };
  return {
    baseUrl,
    request,
    get: (path, options) => request('GET', path, undefined, options),
    post: (path, body, options) => request('POST', path, body, options),
    put: (path, body, options) => request('PUT', path, body, options),
    patch: (path, body, options) => request('PATCH', path, body, options),
    delete: (path, options) => request('DELETE', path, undefined, options),
  };
}

/**
 * vitest's `test` with the voxsim fixtures. Each test that names `sim`, `server` or `api`
 * gets its own simulator and MSW server, closed after it.
 * @example
 * test('starts at the seed state', async ({ api }) => {
 *   expect((await api.get('/user/me')).status).toBe(200)
 * })
 */
export const test: TestAPI<VoxsimFixtures> = base.extend<VoxsimFixtures>({
  simulatorOptions: [{ seed: 1 }, { injected: false }],
  baseUrl: DEFAULT_BASE_URL,
  sim: async ({ simulatorOptions }, use) => {
    const sim = createSimulator(simulatorOptions);
    await use(sim);
    sim.dispose();
  },
  server: async ({ sim, baseUrl }, use) => {
    const server = setupServer(...handlers(sim, { baseUrl }));
    // msw's default for requests no handler answers (a warning), under msw 2 and 3 alike.
    server.listen();
    await use(server);
    server.close();
  },
  api: async ({ server: _server, baseUrl }, use) => {
    await use(apiClient(baseUrl));
  },
}) as TestAPI<VoxsimFixtures>;

export { test as it };
