/**
 * The baseline of bench/start.ts: a bare Express 5 app answering the health route the
 * bench asks voxsim for, started as `voxsim serve` is (a fresh `node` on a file), printing
 * its URL as `voxsim serve` does once it listens.
 */
import express from 'express';

const app = express();
app.get('/api/__sim/health', (_req, res) => {
  res.json({ ok: true });
});
const server = app.listen(0, '127.0.0.1', () => {
  console.log(`bare express listening on http://127.0.0.1:${server.address().port}/api`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
