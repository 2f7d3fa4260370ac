// The step follower of `hermes run` and `hermes chat`: shows every step of a conversation once, in order,
// until a result arrives, and asks pending questions and approvals inline.
import type readline from 'node:readline/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ConversationHandle } from '../client';
import type { ConversationState } from '../shared/contract';
import { formatStep } from './common';
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

  const showNewSteps = async (): Promise<ConversationState | undefined> => {
    let s: ConversationState;
    try {
      s = await handle.state({ stepsAfter: cursor });
    } catch {
      return undefined; // The workflow may not have run its first task yet, or just finished.
    }
    if (s.stepsMissed > 0) {
      log?.(`  (${s.stepsMissed} step(s) not shown; hermes inspect ${handle.id} has them all)`);
    }
    for (const step of s.steps) {
      if (step.step <= cursor) continue;
      log?.(formatStep(step));
      cursor = step.step;
    }
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
  try {
    return await finished;
  } finally {
    done.abort();
    await poller;
    // A fast run ends between two looks: show the steps not shown yet (a closed workflow still answers
    // queries while a worker polls its task queue; bounded in case none does).
    if (log) await Promise.race([showNewSteps(), sleep(3_000, undefined, { ref: false })]);
  }
}
