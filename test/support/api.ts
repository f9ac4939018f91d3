/**
 * The contract harness: every case runs through the MSW handlers and through the
 * Express server (STYLE 10), against a fresh simulator per test. Every answer, and every
 * request the server accepted, is checked against the OpenAPI document (openapi-check.ts).
 */
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { setupServer } from 'msw/node';
import mswPackage from 'msw/package.json' with { type: 'json' };
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect } from 'vitest';
import { createApp } from '../../src/adapters/express.js';
import { handlers } from '../../src/adapters/msw.js';
import { watchEventSchemas } from './events-check.js';
import { checkAgainstOpenApi, checkRequestAgainstOpenApi } from './openapi-check.js';
import { createSimulator, type Simulator, type SimulatorOptions } from '../../src/simulator.js';

export const START = '2026-03-02T09:00:00Z';
export const KEY = 'sim_test_key';
export const MSW_BASE = 'http://api.voxsim.test/api';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  /** API key; `null` sends no Authorization header. Default: the default account's key. */
  key?: string | null;
  headers?: Record<string, string>;
  /** Sent as-is instead of JSON-encoding `body`. */
  raw?: string;
  /** Sent as multipart/form-data (fetch writes the boundary) instead of `body`. */
  form?: FormData;
  query?: Record<string, string | number>;
  /**
   * Why the request is one the OpenAPI document does not allow, on purpose (a body sent to
   * an operation that reads none, to see it ignored): its acceptance is not held to the
   * document. The answer still is.
   */
  offDocument?: string;
}

export interface Api {
  sim: Simulator;
  transport: string;
  call<T = any>(method: string, path: string, body?: unknown, options?: CallOptions): Promise<ApiResponse<T>>;
  get<T = any>(path: string, options?: CallOptions): Promise<ApiResponse<T>>;
  post<T = any>(path: string, body?: unknown, options?: CallOptions): Promise<ApiResponse<T>>;
  put<T = any>(path: string, body?: unknown, options?: CallOptions): Promise<ApiResponse<T>>;
  patch<T = any>(path: string, body?: unknown, options?: CallOptions): Promise<ApiResponse<T>>;
  del<T = any>(path: string, options?: CallOptions): Promise<ApiResponse<T>>;
}

interface Transport {
  name: 'msw' | 'express';
  /** Shown in the suite's name: which msw (test/contract/msw2-part*.test.ts run the suites through msw 2). */
  label: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Serves `sim`; returns the base URL. */
  open(sim: Simulator): Promise<string>;
  close(): Promise<void>;
}

function mswTransport(): Transport {
  const server = setupServer();
  return {
    name: 'msw',
    label: `msw ${mswPackage.version}`,
    start: async () => server.listen({ onUnhandledFrame: 'bypass' }),
    stop: async () => server.close(),
    open: async (sim) => {
      server.use(...handlers(sim, { baseUrl: MSW_BASE }));
      return MSW_BASE;
    },
    close: async () => server.resetHandlers(),
  };
}

function expressTransport(): Transport {
  // One listening server per test file; each test's simulator gets its own app, swapped in
  // per test, so a test pays neither a listen nor a new connection.
  let server: Server | undefined;
  let base = '';
  let app: ReturnType<typeof createApp> | undefined;
  return {
    name: 'express',
    label: 'express',
    start: () =>
      new Promise((resolve) => {
        server = createServer((req, res) => {
          if (app) return app(req, res);
          res.statusCode = 503;
          res.end();
        }).listen(0, '127.0.0.1', () => {
          base = `http://127.0.0.1:${(server!.address() as AddressInfo).port}/api`;
          resolve();
        });
      }),
    stop: () =>
      new Promise((resolve) => {
        if (!server) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
        server = undefined;
      }),
    open: async (sim) => {
      app = createApp(sim, { basePath: '/api' });
      // live-platform H.7: file links name the server's own URL, as `voxsim serve` sets it.
      sim.setBaseUrl(base);
      return base;
    },
    close: async () => {
      app = undefined;
    },
  };
}

export const TRANSPORTS = [mswTransport(), expressTransport()];

/** Set by a file that runs contract suites through one transport only (the msw 2 runners, support/msw2.ts). */
const only: { transport?: Transport['name'] } = {};

/** Suites declared after this run through `name` alone (only in files of the isolated project, whose modules are fresh per file: vitest.config.ts). */
export function onlyTransport(name: Transport['name']): void {
  only.transport = name;
}

function client(sim: Simulator, transport: string, base: string): Api {
  const call = async (method: string, path: string, body?: unknown, options: CallOptions = {}) => {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    const key = options.key === undefined ? KEY : options.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let payload: string | FormData | undefined;
    if (options.form !== undefined) payload = options.form;
    else if (options.raw !== undefined) payload = options.raw;
    else if (body !== undefined) payload = JSON.stringify(body);
    if (typeof payload === 'string') headers['content-type'] ??= 'application/json';
    const qs = options.query ? `?${new URLSearchParams(Object.entries(options.query).map(([k, v]) => [k, String(v)]))}` : '';
    const res = await fetch(`${base}${path}${qs}`, { method, headers, body: payload });
    const text = await res.text();
    const parsed = text ? JSON.parse(text) : undefined;
    checkAgainstOpenApi(method, path.split('?')[0]!, res.status, parsed);
    if (options.offDocument === undefined) checkRequestAgainstOpenApi({ method, target: `${path}${qs}`, headers, body: payload }, res.status, sim.wire);
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
  return {
    sim,
    transport,
    call,
    get: (path, options) => call('GET', path, undefined, options),
    post: (path, body, options) => call('POST', path, body, options),
    put: (path, body, options) => call('PUT', path, body, options),
    patch: (path, body, options) => call('PATCH', path, body, options),
    del: (path, options) => call('DELETE', path, undefined, options),
  };
}

/**
 * Declares a contract suite run once per transport; `api()` is a client of a fresh
 * simulator (seed 1, clock at START) for each test.
 */
export function contract(name: string, body: (api: () => Api) => void, options: SimulatorOptions = {}): void {
  const transports = TRANSPORTS.filter((transport) => only.transport === undefined || transport.name === only.transport);
  describe.each(transports)(`${name} [$label]`, (transport) => {
    let current: Api | undefined;
    let eventProblems: () => string[] = () => [];
    beforeAll(() => transport.start());
    afterAll(() => transport.stop());
    beforeEach(async () => {
      const sim = createSimulator({ seed: 1, startAt: START, ...options });
      eventProblems = watchEventSchemas(sim);
      current = client(sim, transport.name, await transport.open(sim));
    });
    afterEach(async () => {
      current?.sim.dispose();
      await transport.close();
      // Every event the test's simulator emitted matches its schema (src/domain/sim-events.ts), and every
      // webhook it queued matches the document's Delivery, its body one of the document's `webhooks`.
      expect(eventProblems()).toEqual([]);
      if (current) checkAgainstOpenApi('GET', '/__sim/webhooks/deliveries', 200, current.sim.control.webhooks.deliveries());
    });
    body(() => current!);
  });
}
