/**
 * A server process of the state-file bench (bench/persist.ts), so that the stalls it
 * measures are the server's own, not the load generator's, and each server starts on a
 * fresh heap. `state FILE`: `serve()` on the state file FILE (its start timed to the
 * first answer). `bare FILE`: `serve()` without a state file, then the snapshot FILE
 * restored into it (the same rows, not persisted).
 *
 * Talks to the bench over the IPC channel: it sends `{ ready, url, startMs }` once it
 * answers; on `{ do: 'measure' }` it starts measuring its event-loop stalls (and, with a
 * state file, a compaction) and answers `{ measuring }`; on `{ do: 'report' }` it stops
 * measuring and answers the stalls, the compaction's duration and the CPU time
 * spent, once the compaction (if any) is done; `{ do: 'compacted' }` answers once the
 * compaction is done, `{ do: 'close' }` closes the server and exits.
 */
import { openSync, readFileSync, readSync } from 'node:fs';
import { serve } from '../src/cli.js';
import type { SimulatorSnapshot } from '../src/simulator.js';

const [mode, file] = process.argv.slice(2) as ['state' | 'bare', string];
const START = '2026-03-02T00:00:00Z';

const t = performance.now();
const running = await serve({ port: 0, host: '127.0.0.1', seed: 1, basePath: '/api', start: START, quiet: true, ...(mode === 'state' && { stateFile: file }) });
await (await fetch(`${running.url}/__sim/health`)).text();
const startMs = performance.now() - t;
if (mode === 'bare') running.sim.restore(JSON.parse(readFileSync(file, 'utf8')) as SimulatorSnapshot, { owned: true });

/**
 * Event-loop stalls, from a 1 ms timer: how late each tick came (wall time), and the
 * same less the time the main thread waited for a CPU meanwhile (`own`: the server's
 * own work, GC pauses and synchronous writes included, without the time other processes
 * of a shared machine held both cores). The wait is the run-queue time Linux keeps per
 * thread (`/proc/thread-self/schedstat`); where that file is missing, `own` is the wall time.
 */
class Stalls {
  private readonly wall: number[] = [];
  private readonly own: number[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly schedstat = openOrUndefined('/proc/thread-self/schedstat');
  private readonly buffer = Buffer.alloc(128);

  /** Nanoseconds this thread has waited on a run queue so far (the second field). */
  private waitedNs(): number {
    if (this.schedstat === undefined) return 0;
    const n = readSync(this.schedstat, this.buffer, 0, this.buffer.length, 0);
    return Number(this.buffer.toString('latin1', 0, n).split(' ')[1]);
  }

  start(): void {
    let at = performance.now();
    let waited = this.waitedNs();
    this.timer = setInterval(() => {
      const now = performance.now();
      const nowWaited = this.waitedNs();
      const late = Math.max(0, now - at - 1);
      this.wall.push(late);
      this.own.push(Math.max(0, late - (nowWaited - waited) / 1e6));
      at = now;
      waited = nowWaited;
    }, 1);
  }

  stop(): { maxStallMs: number; p99StallMs: number; maxOwnMs: number; p99OwnMs: number } {
    clearInterval(this.timer);
    const max = (samples: number[]) => samples.reduce((a, b) => Math.max(a, b), 0);
    const p99 = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length * 0.99)] ?? 0;
    return { maxStallMs: max(this.wall), p99StallMs: p99(this.wall), maxOwnMs: max(this.own), p99OwnMs: p99(this.own) };
  }
}

function openOrUndefined(path: string): number | undefined {
  try {
    return openSync(path, 'r');
  } catch {
    return undefined;
  }
}

const stalls = new Stalls();
let compaction: Promise<number> | undefined;
let cpuAt = process.cpuUsage();

process.on('message', (message: { do: string }) => {
  if (message.do === 'measure') {
    stalls.start();
    cpuAt = process.cpuUsage();
    if (mode === 'state') {
      const at = performance.now();
      compaction = running.compact().then(() => performance.now() - at);
    }
    process.send!({ measuring: true });
  } else if (message.do === 'report') {
    void (async () => {
      const compactMs = (await compaction) ?? 0;
      const cpu = process.cpuUsage(cpuAt);
      process.send!({
        ...stalls.stop(),
        compactMs,
        cpuMs: (cpu.user + cpu.system) / 1000,
      });
    })();
  } else if (message.do === 'compacted') {
    void (async () => process.send!({ compacted: (await compaction) ?? 0 }))();
  } else if (message.do === 'close') {
    void running.close().then(() => process.exit(0));
  }
});
process.send!({ ready: true, url: running.url, startMs });
