/**
 * A server process of the HTTP bench: `sim` serves the simulator (the Express adapter)
 * over an account of 15 calls and one lead; `bare` serves, with bare Express 5, the very
 * bytes the simulator answered (given in BENCH_BYTES), GET as a static body and PUT
 * through `express.json()`. Both answer `GET /__bench/cpu` with the CPU time the
 * process has used (µs), outside the app. Prints its port on the first line of stdout.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createApp } from '../src/adapters/express.js';
import { seededCalls } from './fixture.js';

const mode = process.argv[2];
let app: (req: IncomingMessage, res: ServerResponse) => void;
if (mode === 'sim') {
  const { sim } = await seededCalls(15, 1);
  app = createApp(sim, { basePath: '/api' });
} else {
  const bytes = JSON.parse(process.env.BENCH_BYTES ?? '{}') as { get: string; put: string };
  const bare = express();
  bare.disable('x-powered-by');
  app = bare;
  bare.get('/api/user/calls', (_req, res) => void res.type('application/json').send(bytes.get));
  bare.put('/api/user/leads/:id', express.json(), (req, res) => {
    if (typeof req.body !== 'object') throw new Error('no body');
    res.type('application/json').send(bytes.put);
  });
}
const server = createServer((req, res) => {
  if (req.url !== '/__bench/cpu') return void app(req, res);
  const { user, system } = process.cpuUsage();
  res.end(String(user + system));
});
// Stopped by the bench with SIGTERM: exiting normally lets `--cpu-prof` write the server's profile.
process.once('SIGTERM', () => process.exit(0));
server.listen(0, '127.0.0.1', () => console.log(String((server.address() as AddressInfo).port)));
