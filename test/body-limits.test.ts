/**
 * Every client reads the answer to a request over a limit (issue 26; docs: Requests and
 * errors, Limits of a request): a body over its limit is answered 413 in the route
 * family's shape to Node's fetch (undici), Node's `http`, curl (with and without
 * `Expect: 100-continue`) and Python's requests, with no `EPIPE` and no reset, and the
 * server answers the next request at once. A client waiting for `100 Continue` gets the
 * 413 instead and sends no body; any other client's body is read and dropped, within
 * `DISCARD_LIMIT` bytes and `DISCARD_TIMEOUT_MS`, then the connection closes. The same for
 * the request line and headers (431), and for the middleware in a host app.
 */
import { execFile, execFileSync } from 'node:child_process';
import { request } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server as HttpServer } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, createHttpServer, DISCARD_LIMIT, DISCARD_TIMEOUT_MS, middleware, type AppOptions } from '../src/adapters/express.js';
import { createSimulator } from '../src/simulator.js';
import { startServer, stop, within, type Server } from './support/processes.js';

const MB = 1024 * 1024;
const TOO_LARGE = 'The request body may not be larger than 5 MB.';
const TOO_LARGE_UPLOAD = 'The request body may not be larger than 21 MB.';
const TOO_LARGE_HEADERS = { message: 'The request URL and headers may not be larger than 16 KB.' };

interface Answer {
  status: number;
  body: unknown;
}

/** What a client sends: a path under the base URL, a content type and a body file of `size` bytes. */
interface Sent {
  path: string;
  type: string;
  file: string;
  body: Buffer<ArrayBuffer>;
  headers?: Record<string, string>;
}

const work = mkdtempSync(join(tmpdir(), 'voxsim-limits-'));
const bodies = new Map<number, { file: string; body: Buffer<ArrayBuffer> }>();
/** A body of `size` bytes, in memory and in a file (curl and Python read it from there). */
function bodyOf(size: number): { file: string; body: Buffer<ArrayBuffer> } {
  let made = bodies.get(size);
  if (!made) {
    const body = Buffer.alloc(size, 'x');
    const file = join(work, `body-${size}.bin`);
    writeFileSync(file, body);
    made = { file, body };
    bodies.set(size, made);
  }
  return made;
}

const has = (command: string, args: string[]) => {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const CURL = has('curl', ['--version']);
const PYTHON_REQUESTS = has('python3', ['-c', 'import requests']);

/** Runs a command and answers its stdout, failing with its stderr. */
function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(command, args, { maxBuffer: 4 * MB, timeout: 30_000 }, (error, stdout, stderr) => (error ? reject(new Error(`${command} failed: ${stderr || error.message}`)) : resolve(stdout))),
  );
}

/** The body of an answer as JSON, or its text when it is none. */
const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

type Client = (url: string, sent: Sent) => Promise<Answer>;

/** Each client as integrators use it, sending the whole body and then reading the answer. */
const CLIENTS: Array<[name: string, client: Client, skip: string | false]> = [
  [
    'Node fetch (undici)',
    async (url, { type, body, headers }) => {
      const res = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer sim_test_key', 'content-type': type, ...headers }, body });
      return { status: res.status, body: parse(await res.text()) };
    },
    false,
  ],
  [
    'Node http',
    (url, { type, body, headers }) =>
      new Promise((resolve, reject) => {
        const req = request(url, { method: 'POST', headers: { authorization: 'Bearer sim_test_key', 'content-type': type, 'content-length': body.length, ...headers } }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, body: parse(text) }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
      }),
    false,
  ],
  ...(['100-continue', ''] as const).map((expect): [string, Client, string | false] => [
    expect ? 'curl with Expect: 100-continue' : 'curl without Expect',
    async (url, { type, file, headers }) => {
      const extra = Object.entries(headers ?? {}).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
      const out = await run('curl', ['-sS', '-H', 'authorization: Bearer sim_test_key', '-H', `content-type: ${type}`, '-H', `Expect: ${expect}`, ...extra, '--data-binary', `@${file}`, '-w', '\n%{http_code}', url]);
      const at = out.lastIndexOf('\n');
      return { status: Number(out.slice(at + 1)), body: parse(out.slice(0, at)) };
    },
    CURL ? false : 'curl is not installed',
  ]),
  [
    'Python requests',
    async (url, { type, file, headers }) => {
      const script = 'import json, sys, requests\nr = requests.post(sys.argv[1], data=open(sys.argv[2], "rb"), headers=json.loads(sys.argv[3]))\nprint(r.status_code)\nprint(r.text, end="")';
      const out = await run('python3', ['-c', script, url, file, JSON.stringify({ authorization: 'Bearer sim_test_key', 'content-type': type, ...headers })]);
      const at = out.indexOf('\n');
      return { status: Number(out.slice(0, at)), body: parse(out.slice(at + 1)) };
    },
    PYTHON_REQUESTS ? false : 'python3 with requests is not installed',
  ],
];

/** The body routes of each family, with the 413 each answers a 20 MB body (22 MB for the upload) with. */
const ROUTES: Array<[what: string, path: string, type: string, size: number, answer: unknown]> = [
  ['a control route (shape A)', '/__sim/accounts', 'application/json', 20 * MB, { message: TOO_LARGE }],
  ['a management route (shape A)', '/user/assistant', 'application/json', 20 * MB, { message: TOO_LARGE }],
  ['a chat route (shape E)', '/conversations', 'application/json', 20 * MB, { status: false, error: TOO_LARGE }],
  ['a messaging send (shape D)', '/user/msgapp/send', 'application/json', 20 * MB, { success: false, error: TOO_LARGE, error_code: 'PAYLOAD_TOO_LARGE' }],
  ['a live messaging send (shape D)', '/user/whatsapp/send-freeform', 'application/json', 20 * MB, { success: false, error: TOO_LARGE, error_code: 'PAYLOAD_TOO_LARGE' }],
  ['an upload', '/user/knowledgebases/1/documents', 'multipart/form-data; boundary=x', 22 * MB, { message: TOO_LARGE_UPLOAD }],
];

/** GET /__sim/health, which must be answered within a second. */
async function health(base: string): Promise<Answer> {
  const res = await fetch(`${base}/__sim/health`, { signal: AbortSignal.timeout(1000) });
  return { status: res.status, body: await res.json() };
}

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('voxsim serve: every client reads the 413 of a body over the limit', () => {
  let server: Server;
  beforeAll(async () => {
    server = await startServer(['--quiet', '--start', '2026-03-02T09:00:00Z'], { shared: true });
  });
  afterAll(async () => {
    expect(await stop(server)).toEqual({ code: 0, signal: null });
  });

  for (const [name, client, skip] of CLIENTS) {
    describe.skipIf(skip !== false)(`${name}${skip ? ` (skipped: ${skip})` : ''}`, () => {
      it.each(ROUTES)('gets the 413 of %s, and the next request is answered at once', async (_what, path, type, size, answer) => {
        expect(await client(`${server.url}${path}`, { path, type, ...bodyOf(size) })).toEqual({ status: 413, body: answer });
        expect(await health(server.url)).toEqual({ status: 200, body: { ok: true, version: expect.any(String), now: '2026-03-02T09:00:00Z' } });
      });

      it('gets the 431 of a 64 KB header sent with a 20 MB body, and the next request is answered at once', async () => {
        const answer = await client(`${server.url}/__sim/accounts`, { path: '/__sim/accounts', type: 'application/json', headers: { 'x-pad': 'a'.repeat(64 * 1024) }, ...bodyOf(20 * MB) });
        expect(answer).toEqual({ status: 431, body: TOO_LARGE_HEADERS });
        expect((await health(server.url)).status).toBe(200);
      });
    });
  }

  it('changed nothing: one account, no assistant, no conversation', async () => {
    const accounts = (await (await fetch(`${server.url}/__sim/accounts`)).json()) as { data: unknown[] };
    expect(accounts.data).toHaveLength(1);
    const assistants = await fetch(`${server.url}/user/assistants/get`, { headers: { authorization: 'Bearer sim_test_key' } });
    expect(await assistants.json()).toMatchObject({ data: [], total: 0 });
  });
});

/** A raw client: writes `head` (and `body`, if given), and collects what the server answers until it closes. */
class RawClient {
  readonly socket: Socket;
  text = '';
  readonly closed: Promise<void>;
  errors: string[] = [];

  constructor(base: string) {
    const { hostname, port } = new URL(base);
    this.socket = connect(Number(port), hostname);
    this.socket.on('data', (chunk: Buffer) => (this.text += chunk.toString('latin1')));
    this.socket.on('error', (error: NodeJS.ErrnoException) => this.errors.push(error.code ?? error.message));
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
  }

  /** Resolves once `count` whole answers (head and `Content-Length` body) have arrived. */
  answers(count = 1): Promise<string[]> {
    return within(
      new Promise<string[]>((resolve) => {
        const check = () => {
          const found = wholeAnswers(this.text);
          if (found.length >= count) {
            this.socket.off('data', check);
            resolve(found);
          }
        };
        this.socket.on('data', check);
        check();
      }),
      `${count} answer(s)`,
    );
  }
}

/** The whole answers in a raw stream: status line, headers and a `Content-Length` body each. */
function wholeAnswers(text: string): string[] {
  const found: string[] = [];
  let rest = text;
  for (;;) {
    const head = rest.indexOf('\r\n\r\n');
    if (head < 0) return found;
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(rest.slice(0, head))?.[1] ?? 0);
    if (rest.length < head + 4 + length) return found;
    found.push(rest.slice(0, head + 4 + length));
    rest = rest.slice(head + 4 + length);
  }
}

const statusOf = (answer: string) => answer.slice(0, answer.indexOf('\r\n'));
const headerOf = (answer: string, name: string) => new RegExp(`\\r\\n${name}: ([^\\r]*)`, 'i').exec(answer)?.[1];
const bodyOfAnswer = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as unknown;

describe('the bounds of a refused body', () => {
  const BOUNDS = { bodyLimit: 1024, discardLimit: 64 * 1024, discardTimeoutMs: 300 } satisfies AppOptions;
  let server: HttpServer;
  let base: string;
  beforeAll(async () => {
    const sim = createSimulator({ seed: 1, startAt: '2026-03-02T09:00:00Z' });
    server = createHttpServer(createApp(sim, BOUNDS), BOUNDS);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const head = (length: number, extra = '') => `POST /api/__sim/accounts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`;

  it('are 64 MB and 10 s by default', () => {
    expect(DISCARD_LIMIT).toBe(64 * MB);
    expect(DISCARD_TIMEOUT_MS).toBe(10_000);
  });

  it('answers a client waiting for 100 Continue with the 413 instead, and closes without reading a body', async () => {
    const client = new RawClient(base);
    client.socket.write(head(5000, 'Expect: 100-continue\r\n'));
    const [answer] = await client.answers();
    await within(client.closed, 'the close');
    expect(statusOf(answer!)).toBe('HTTP/1.1 413 Payload Too Large');
    expect(headerOf(answer!, 'connection')).toBe('close');
    expect(bodyOfAnswer(answer!)).toEqual({ message: 'The request body may not be larger than 1 KB.' });
    expect(client.text).not.toContain('100 Continue');
  });

  it('sends 100 Continue to a body within the limit, then reads it and answers', async () => {
    const client = new RawClient(base);
    const body = JSON.stringify({ name: 'Continued' });
    client.socket.write(head(Buffer.byteLength(body), 'Expect: 100-continue\r\n'));
    await within(new Promise<void>((resolve) => client.socket.once('data', () => resolve())), 'the 100');
    expect(client.text).toBe('HTTP/1.1 100 Continue\r\n\r\n');
    client.socket.write(body);
    const [interim, answer] = await client.answers(2);
    client.socket.destroy();
    expect(interim).toBe('HTTP/1.1 100 Continue\r\n\r\n');
    expect(statusOf(answer!)).toBe('HTTP/1.1 201 Created');
    expect(bodyOfAnswer(answer!)).toMatchObject({ id: 2, name: 'Continued' });
  });

  it('reads and drops a refused body to its end, and keeps the connection for the next request', async () => {
    const client = new RawClient(base);
    client.socket.write(head(10_000));
    client.socket.write('x'.repeat(10_000));
    client.socket.write('GET /api/__sim/health HTTP/1.1\r\nHost: x\r\n\r\n');
    const [refused, next] = await client.answers(2);
    client.socket.destroy();
    expect(statusOf(refused!)).toBe('HTTP/1.1 413 Payload Too Large');
    expect(headerOf(refused!, 'connection')).toBe('keep-alive');
    expect(statusOf(next!)).toBe('HTTP/1.1 200 OK');
    expect(bodyOfAnswer(next!)).toMatchObject({ ok: true });
  });

  it('answers at once and closes once the body stops arriving for longer than the time bound', async () => {
    const client = new RawClient(base);
    client.socket.write(head(1_000_000) + 'x'.repeat(100));
    const [answer] = await client.answers();
    expect(statusOf(answer!)).toBe('HTTP/1.1 413 Payload Too Large');
    const since = performance.now();
    await within(client.closed, 'the close after the time bound');
    expect(performance.now() - since).toBeGreaterThan(100);
  });

  it('closes once more than the byte bound of the refused body arrived, after the client could read the 413', async () => {
    const client = new RawClient(base);
    client.socket.write(head(10 * MB));
    const chunk = Buffer.alloc(64 * 1024, 'x');
    // Writes until the server closes (at 64 KB past the refusal), far short of the 10 MB declared.
    let written = 0;
    while (!client.socket.destroyed && written < 10 * MB) {
      const flushed = client.socket.write(chunk);
      written += chunk.length;
      if (!flushed) await Promise.race([new Promise((resolve) => client.socket.once('drain', resolve)), client.closed]);
    }
    await within(client.closed, 'the close after the byte bound');
    expect(written).toBeLessThan(10 * MB);
    expect(statusOf(wholeAnswers(client.text)[0]!)).toBe('HTTP/1.1 413 Payload Too Large');
  });

  it('reads and drops what follows request headers over their limit, within the same bounds', async () => {
    const client = new RawClient(base);
    client.socket.write(`POST /api/__sim/accounts HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(20 * 1024)}\r\nContent-Length: 100000\r\n\r\n`);
    client.socket.write('x'.repeat(100_000));
    const [answer] = await client.answers();
    expect(statusOf(answer!)).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(bodyOfAnswer(answer!)).toEqual(TOO_LARGE_HEADERS);
    await within(client.closed, 'the close');
    expect(client.errors).toEqual([]);
  });
});

describe('voxsim/express in a host app: fetch and http read the 413', () => {
  let server: HttpServer;
  let base: string;
  beforeAll(async () => {
    const app = express();
    app.use(middleware(createSimulator({ seed: 1, startAt: '2026-03-02T09:00:00Z' })));
    app.get('/host', (_req, res) => void res.send('host'));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it.each(CLIENTS.slice(0, 2))('%s gets the 413 of a 20 MB body, and the host answers the next request at once', async (_name, client) => {
    expect(await client(`${base}/api/user/assistant`, { path: '/user/assistant', type: 'application/json', ...bodyOf(20 * MB) })).toEqual({ status: 413, body: { message: TOO_LARGE } });
    expect(await (await fetch(`${base}/host`, { signal: AbortSignal.timeout(1000) })).text()).toBe('host');
  });
});
