import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSimulator } from 'voxsim';
import { middleware } from 'voxsim/express';

const sim = createSimulator({ seed: 1, startAt: '2026-03-02T09:00:00Z' });
const app = express();
app.use(express.json()); // your own parsers may come first: the middleware uses what they parsed
app.get('/health', (_req, res) => { res.send('ok'); }); // your routes before it ...
app.use('/platform', middleware(sim, { basePath: '/api' })); // the platform API at /platform/api
app.get('/platform/status', (_req, res) => { res.json({ up: true }); }); // ... and after it (outside /api)

let server: Server;
let origin = '';
beforeAll(async () => {
  server = app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

it('serves the platform API under its prefix and leaves the app its own routes', async () => {
  sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' });
  const created = await fetch(`${origin}/platform/api/user/assistant`, {
    method: 'POST',
    headers: { authorization: 'Bearer sim_test_key', 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Sales', voice_id: 1, language_id: 1, type: 'outbound', mode: 'pipeline', timezone: 'Europe/Berlin',
      initial_message: 'Hello!', system_prompt: 'You sell.', llm_model_id: 1, phone_number_id: 1,
    }),
  });
  expect(created.status).toBe(201); // express.json() read the body first; the simulator got it all
  expect((await created.json()).data.name).toBe('Sales');

  expect(await (await fetch(`${origin}/health`)).text()).toBe('ok');
  expect(await (await fetch(`${origin}/platform/status`)).json()).toEqual({ up: true });
});
