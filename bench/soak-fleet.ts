// The soak's worker processes: W lineages (slots), each a `hermes worker` process that is replaced in its slot when
// the killer SIGKILLs it. Lineage 0 is never killed, so one process lives the whole soak and its RSS says whether
// a worker's memory stays flat; the others are the kill pool. RSS of every live worker is sampled every 10 s.
import { rssOf } from './meter';
import { startBenchWorker, stopBenchWorker, type BenchWorker, type WorkerSetting } from './cluster-workers';

export interface RssSample {
  lineage: number;
  pid: number;
  /** Seconds since the soak started, and since this process started. */
  atSec: number;
  ageSec: number;
  mb: number;
}

export interface Kill {
  atSec: number;
  lineage: number;
  pid: number;
  /** The replacement's pid and how long it took to say it polls. */
  replacement: number;
  readyMs: number;
}

export class Fleet {
  readonly workers: BenchWorker[] = [];
  readonly samples: RssSample[] = [];
  readonly kills: Kill[] = [];
  /** When every first worker polled: the soak's own clock starts then too, so their times line up. */
  private t0 = Date.now();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly setting: WorkerSetting,
    private readonly size: number,
  ) {}

  async start(): Promise<void> {
    for (let i = 0; i < this.size; i++) this.workers.push(startBenchWorker(this.setting));
    await Promise.all(this.workers.map((w) => w.ready));
    this.t0 = Date.now();
    this.sample();
    this.timer = setInterval(() => this.sample(), 10_000);
  }

  private sample(): void {
    const now = Date.now();
    this.workers.forEach((w, lineage) => {
      const mb = rssOf(w.pid) / 1024 / 1024;
      if (mb > 0) this.samples.push({ lineage, pid: w.pid, atSec: (now - this.t0) / 1000, ageSec: (now - w.startedAt) / 1000, mb });
    });
  }

  /** SIGKILLs a random worker of the kill pool (lineages 1..W-1) and starts its replacement in the same slot. */
  async killOne(log: (s: string) => void): Promise<void> {
    const lineage = 1 + Math.floor(Math.random() * (this.size - 1));
    const dead = this.workers[lineage]!;
    this.sample();
    dead.child.kill('SIGKILL');
    await dead.exited;
    const atSec = (Date.now() - this.t0) / 1000;
    const next = startBenchWorker(this.setting);
    this.workers[lineage] = next;
    await next.ready;
    const readyMs = Date.now() - next.startedAt;
    this.kills.push({ atSec, lineage, pid: dead.pid, replacement: next.pid, readyMs });
    log(`SIGKILL worker ${dead.pid} (lineage ${lineage}) at ${(atSec / 60).toFixed(1)} min; replacement ${next.pid} polling after ${readyMs} ms`);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.sample();
    await Promise.all(this.workers.map((w) => stopBenchWorker(w)));
  }
}
