// The step follower of `hermes run` and `hermes chat`: shows every step of a conversation once, in order,
// until a result arrives, and asks pending questions and approvals inline.
import type readline from 'node:readline/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ConversationHandle, Hermes } from '../client';
import { modelStepNumbers } from '../inspect';
import type { ConversationState } from '../shared/contract';
import { formatStep } from './common';
import { watchWorker } from './pollers';
import { promptPending } from './prompts';

export interface FollowOptions {
  /** Where step lines go; without it no step is shown (pending questions are still asked). */
  log?: (line: string) => void;
  /** Asks pending questions and approvals on it; without it, says once what the conversation is waiting for. */
  rl?: readline.Interface;
  /** Step cursor: only steps numbered above it are shown. Default 0 (all). */
  after?: number;
  /** Milliseconds between two looks at the state query. Default 300. */
  intervalMs?: number;
  /**
   * The model-step numbers of the completed model calls (ConversationHandle.modelSteps): model step lines then
   * carry the number `inspect --step` takes. Without it they carry none.
   */
  modelSteps?: () => Promise<number[]>;
  /** How many model calls had completed before the cursor (default 0; counted from the cursor on). */
  modelStepsBefore?: number;
  /** Looks for a worker when the conversation has not started within 5 s, and says when there is none. */
  worker?: { hermes: Hermes; onMissing?: () => void };
}

/**
 * Shows the steps of `handle` until `finished` settles, then returns (or throws) what it settled with.
 *
 * The state query is asked for the steps after a cursor (`stepsAfter`), not for the latest few, so a burst of
 * steps between two looks (a batch of parallel tool calls, a fast run's last steps) is shown in full. Steps
 * the workflow no longer keeps (more than it keeps happened between two looks) are counted in one line.
 */
export async function follow<T>(handle: ConversationHandle, finished: Promise<T>, opts: FollowOptions = {}): Promise<T> {
  const { log, intervalMs = 300 } = opts;
  let rl = opts.rl;
  let cursor = opts.after ?? 0;
  const asked = new Set<string>();
  const done = new AbortController();
  let started = false;
  // Index into the completed model calls of the next model record (undefined: unknown; align on the latest).
  let modelIndex: number | undefined = opts.modelStepsBefore ?? 0;

  /** The model-step number of each of `steps` (undefined for tool and note steps, or when unknown). */
  const modelNumbers = async (s: ConversationState): Promise<Array<number | undefined>> => {
    const calls = s.steps.filter((x) => x.kind === 'model' && x.name !== 'empty').length;
    if (!opts.modelSteps || !calls) return [];
    if (s.stepsMissed > 0) modelIndex = undefined;
    try {
      const completed = await opts.modelSteps();
      return modelStepNumbers(s.steps, completed, modelIndex);
    } catch {
      return [];
    } finally {
      if (modelIndex !== undefined) modelIndex += calls;
    }
  };

  const showNewSteps = async (): Promise<ConversationState | undefined> => {
    let s: ConversationState;
    try {
      s = await handle.state({ stepsAfter: cursor });
    } catch {
      return undefined; // The workflow may not have run its first task yet, or just finished.
    }
    started = true;
    s = { ...s, steps: s.steps.filter((step) => step.step > cursor) };
    if (s.stepsMissed > 0) {
      log?.(`  (${s.stepsMissed} step(s) not shown; hermes inspect ${handle.id} has them all)`);
    }
    const numbers = log ? await modelNumbers(s) : [];
    s.steps.forEach((step, i) => {
      log?.(formatStep(step, numbers[i]));
      cursor = step.step;
    });
    return s;
  };

  const poll = async () => {
    while (!done.signal.aborted) {
      const s = await showNewSteps();
      if (s && rl) {
        try {
          await promptPending(handle, s, rl, asked, done.signal);
        } catch (e) {
          if (done.signal.aborted) break; // the question on the screen is moot: the result is in
          process.stderr.write(`(cannot ask inline: ${(e as Error).message})\n`);
          rl = undefined;
        }
      } else if (s?.waitingFor && !asked.has(`${s.waitingFor}:${cursor}`)) {
        asked.add(`${s.waitingFor}:${cursor}`);
        process.stderr.write(`waiting for ${s.waitingFor}: see hermes status ${handle.id}\n`);
      }
      await sleep(intervalMs, undefined, { signal: done.signal }).catch(() => undefined);
    }
  };

  const poller = poll();
  const watcher = opts.worker
    ? watchWorker(opts.worker.hermes, { started: () => started, signal: done.signal, onMissing: opts.worker.onMissing })
    : undefined;
  try {
    return await finished;
  } finally {
    done.abort();
    await poller;
    await watcher;
    // A fast run ends between two looks: show the steps not shown yet (a closed workflow still answers
    // queries while a worker polls its task queue; bounded in case none does).
    if (log) await Promise.race([showNewSteps(), sleep(3_000, undefined, { ref: false })]);
  }
}
