/**
 * The server's upload limit (docs/requests-and-errors.md): a multipart/form-data body
 * may hold 21 MiB, room for a 20 MiB document file and its form, so a file one byte
 * over the document limit still reaches the core for its 422; a larger body is 413
 * before it reaches any route. Other bodies keep their own 5 MB limit. Express only:
 * under MSW there is no size limit.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, DEFAULT_UPLOAD_LIMIT } from '../../src/adapters/express.js';
import { createSimulator, type Simulator } from '../../src/simulator.js';

let server: Server | undefined;
let sim: Simulator | undefined;

async function open(options: Parameters<typeof createApp>[1] = {}): Promise<string> {
  const opened = createSimulator({ seed: 1, startAt: '2026-03-02T09:00:00Z' });
  sim = opened;
  return new Promise((resolve) => {
    server = createApp(opened, { basePath: '/api', ...options }).listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server!.address() as AddressInfo).port}/api`));
  });
}

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server?.closeAllConnections();
  server = undefined;
  sim?.dispose();
});

/** A form of a pdf document whose whole body is exactly `total` bytes. */
function formOf(total: number): Buffer {
  const head = '--B\r\nContent-Disposition: form-data; name="name"\r\n\r\nManual\r\n--B\r\nContent-Disposition: form-data; name="type"\r\n\r\npdf\r\n--B\r\nContent-Disposition: form-data; name="file"; filename="m.pdf"\r\n\r\n';
  const tail = '\r\n--B--\r\n';
  const body = Buffer.alloc(total, 0x61);
  body.write(head, 0);
  body.write(tail, total - tail.length);
  return body;
}

const upload = (base: string, body: Buffer) =>
  fetch(`${base}/user/knowledgebases/1/documents`, { method: 'POST', headers: { authorization: 'Bearer sim_test_key', 'content-type': 'multipart/form-data; boundary=B' }, body: new Uint8Array(body) });

describe('express: the upload limit', () => {
  it('is 21 MiB by default', () => {
    expect(DEFAULT_UPLOAD_LIMIT).toBe(22_020_096);
  });

  it('reads a form of exactly 21 MiB, whose file the core then refuses as over 20 MB', async () => {
    const base = await open();
    const res = await upload(base, formOf(DEFAULT_UPLOAD_LIMIT));
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ message: 'The file may not be greater than 20480 kilobytes.', errors: { file: ['The file may not be greater than 20480 kilobytes.'] } });
  });

  it('answers a form one byte over with 413 shape A and changes nothing', async () => {
    const base = await open();
    const before = JSON.stringify(sim!.snapshot());
    const res = await upload(base, formOf(DEFAULT_UPLOAD_LIMIT + 1));
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ message: 'The request body may not be larger than 21 MB.' });
    expect(JSON.stringify(sim!.snapshot())).toBe(before);
  });

  it('follows the uploadLimit option, and leaves JSON bodies to bodyLimit', async () => {
    const base = await open({ uploadLimit: 1024, bodyLimit: 4096 });
    expect((await upload(base, formOf(1024))).status).toBe(201);
    expect((await upload(base, formOf(1025))).status).toBe(413);
    const json = await fetch(`${base}/user/knowledgebases`, { method: 'POST', headers: { authorization: 'Bearer sim_test_key', 'content-type': 'application/json' }, body: JSON.stringify({ name: 'x'.repeat(200), description: 'y'.repeat(2000) }) });
    expect(json.status).toBe(422);
  });
});
