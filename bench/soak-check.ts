// What the soak checks at the end: every conversation completed its steps, every marker file exists with exactly one
// line (two lines: a run-once tool ran twice; none: a step lost) and there are no others, visibility has none of
// them "Running" and lists them all completed, and the server log has no tsvector error.
import type { Client } from '@temporalio/client';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { markerPath } from './cluster-model';
import type { Flown } from './soak-flight';

export interface SoakCheck {
  conversations: number;
  completed: number;
  notCompleted: string[];
  markersExpected: number;
  markersOnce: number;
  markersMissing: string[];
  markersTwice: string[];
  markersExtra: string[];
  visibilityRunning: number;
  visibilityCompleted: number;
  /** Seconds until visibility had none running (or the wait gave up). */
  visibilitySettleSec: number;
  tsvectorErrors: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function checkSoak(o: {
  flown: Flown[];
  steps: number;
  workspace: string;
  client: Client;
  taskQueue: string;
  log: string;
}): Promise<SoakCheck> {
  const { flown, steps } = o;
  const notCompleted = flown
    .filter((f) => f.result?.status !== 'completed' || f.result.toolCalls < steps)
    .map((f) => `${f.id}: ${f.error ?? `${f.result?.status} after ${f.result?.toolCalls} tool calls ${f.result?.error ?? ''}`}`);
  const expected = new Set(flown.flatMap((f) => Array.from({ length: steps }, (_, k) => path.basename(markerPath(f.id, k + 1)))));
  const dir = path.join(o.workspace, 'markers');
  const lines = (f: string) => readFileSync(path.join(dir, f), 'utf8').split('\n').filter(Boolean).length;
  const present = existsSync(dir) ? readdirSync(dir) : [];
  const missing = [...expected].filter((f) => !existsSync(path.join(dir, f)) || lines(f) === 0);
  const twice = present.filter((f) => expected.has(f) && lines(f) > 1);
  const extra = present.filter((f) => !expected.has(f));

  const count = async (status: string) => (await o.client.workflow.count(`TaskQueue = "${o.taskQueue}" AND ExecutionStatus = "${status}"`)).count;
  const t0 = Date.now();
  let running = await count('Running');
  while (running > 0 && Date.now() - t0 < 120_000) {
    await sleep(2_000);
    running = await count('Running');
  }
  const settle = (Date.now() - t0) / 1000;
  // grep, not a read: the server logs at info level, and a 30-minute log is large.
  const tsvector = spawnSync('grep', ['-c', 'syntax error in tsvector', o.log], { encoding: 'utf8' });
  return {
    conversations: flown.length,
    completed: flown.length - notCompleted.length,
    notCompleted,
    markersExpected: expected.size,
    markersOnce: expected.size - missing.length - twice.length,
    markersMissing: missing,
    markersTwice: twice,
    markersExtra: extra,
    visibilityRunning: running,
    visibilityCompleted: await count('Completed'),
    visibilitySettleSec: settle,
    tsvectorErrors: Number(tsvector.stdout.trim()) || 0,
  };
}
