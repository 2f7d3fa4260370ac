// "No worker, clear word" (src/cli/pollers.ts) without a server: the watch looks at the task queue's pollers once,
// after the conversation had its time to start, and says so only when nobody polls and it has not started.
// The CLI saying it against a real cluster: cli-truthful.test.ts.
import { describe, expect, it } from 'vitest';
import type { Hermes } from '../src/client';
import { watchWorker, WORKER_CHECK_AFTER_MS } from '../src/cli/pollers';

function fakeHermes(polling: boolean | Error, embedded = false) {
  const asked: number[] = [];
  const hermes = {
    taskQueue: 'q',
    address: 'localhost:7233',
    target: { embedded },
    workerPolling: () => {
      asked.push(Date.now());
      return polling instanceof Error ? Promise.reject(polling) : Promise.resolve(polling);
    },
  } as unknown as Hermes;
  return { hermes, asked };
}

async function watch(polling: boolean | Error, o: { started?: () => boolean; embedded?: boolean; abort?: boolean } = {}) {
  const { hermes, asked } = fakeHermes(polling, o.embedded);
  const said: string[] = [];
  let missing = 0;
  const ac = new AbortController();
  if (o.abort) ac.abort();
  const t0 = Date.now();
  await watchWorker(hermes, {
    started: o.started ?? (() => false),
    say: (l) => said.push(l),
    onMissing: () => missing++,
    signal: ac.signal,
    afterMs: 50,
  });
  return { said, missing, asked: asked.map((t) => t - t0) };
}

describe('watchWorker', () => {
  it('looks once the conversation had afterMs to start, and says once what to start when nobody polls', async () => {
    const r = await watch(false);
    expect(r.asked).toHaveLength(1);
    expect(r.asked[0]).toBeGreaterThanOrEqual(49); // not before its time: a slow start is not a missing worker
    expect(r.said).toEqual(['no worker is polling task queue q on localhost:7233 — start one with `npx hermes worker`']);
    expect(r.missing).toBe(1);
  });

  it('says nothing when a worker polls, the conversation started, the pollers cannot be read, or the watch ended', async () => {
    for (const r of [
      await watch(true),
      await watch(false, { started: () => true }),
      await watch(new Error('PERMISSION_DENIED')),
      await watch(false, { abort: true }),
      await watch(false, { embedded: true }),
    ]) {
      expect(r.said).toEqual([]);
      expect(r.missing).toBe(0);
    }
  });

  it('looks after a few seconds by default: soon enough to be told while waiting, long enough for a worker to pick it up', () => {
    expect(WORKER_CHECK_AFTER_MS).toBeGreaterThanOrEqual(2_000);
    expect(WORKER_CHECK_AFTER_MS).toBeLessThanOrEqual(10_000);
  });
});
