// The step follower of `hermes run` and `hermes chat`: shows every step of a conversation once, in order,
// until a result arrives, and asks pending questions and approvals inline.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ConversationHandle, Hermes } from '../client';
import { isPayloadKeyMismatch } from '../codec/explain';
import { inFlightLine, retryLine, type InFlightCall } from '../inspect/in-flight';
import { modelStepNumbers } from '../inspect/step-context';
import type { ConversationState } from '../shared/contract';
import { formatStep } from './common';
import { watchWorker } from './pollers';
import { promptPending } from './ask-pending';
import type { LineSource } from './line-queue';
import { stopSignal } from './signals';

export interface FollowOptions {
  /** Where step lines go; without it no step is shown (pending questions are still asked). */
  log?: (line: string) => void;
  /** Asks pending questions and approvals on it; without it, says once what the conversation is waiting for. */
  rl?: LineSource;
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
  /**
   * The call in flight (model calls, long tool calls), shown when no step has come for `afterMs` (default 5 s):
   * then the server is asked every `everyMs` (default 2 s) for the pending calls (ConversationHandle.inFlight),
   * so a quick run costs nothing extra. Each retry is a line (reason and wait); the running call is a status line
   * redrawn in place with `redraw` (default: when stderr is a terminal), else a line at 10 s and every 30 s after.
   * Only with `log`; false turns it off.
   */
  inFlight?: false | { afterMs?: number; everyMs?: number; redraw?: ((text: string) => void) | false };
  /** While true (the reply is being written on the screen, cli/live-text.ts), the call in flight is not shown. */
  quietWhile?: () => boolean;
}

/** In lines mode, a running call is reported once it has run this long, then every REPEAT_SEC. */
const FIRST_SEC = 10;
const REPEAT_SEC = 30;

/**
 * Shows the steps of `handle` until `finished` settles, then returns (or throws) what it settled with.
 *
 * The state query is asked for the steps after a cursor (`stepsAfter`), not for the latest few, so a burst of
 * steps between two looks (a batch of parallel tool calls, a fast run's last steps) is shown in full. Steps
 * the workflow no longer keeps (more than it keeps happened between two looks) are counted in one line.
 */
export async function follow<T>(handle: ConversationHandle, finished: Promise<T>, opts: FollowOptions = {}): Promise<T> {
  const { intervalMs = 300 } = opts;
  let rl = opts.rl;
  let cursor = opts.after ?? 0;
  const asked = new Set<string>();
  const done = new AbortController();
  // A stop signal (SIGTERM) ends the looks at once: no call of ours is left running while the CLI shuts down.
  const onStop = () => done.abort();
  stopSignal.addEventListener('abort', onStop, { once: true });
  let unreadable!: (err: Error) => void;
  const cannotRead = new Promise<never>((_, reject) => (unreadable = reject));
  cannotRead.catch(() => undefined); // raced below; unhandled only when the result came first
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

  // What the calls-in-flight display knows: the latest state, and when a step last came (or the wait changed).
  let latest: ConversationState | undefined;
  let quietSince = Date.now();
  const live = opts.inFlight === false || !opts.log ? undefined : inFlightDisplay(opts.log, opts.inFlight ?? {});
  const log = live?.log ?? opts.log;

  const showNewSteps = async (): Promise<ConversationState | undefined> => {
    let s: ConversationState;
    try {
      s = await handle.state({ stepsAfter: cursor });
    } catch (err) {
      // Encrypted with a key this client lacks: no later look will read it, so say so now, not at the end.
      if (isPayloadKeyMismatch(err)) unreadable(err);
      return undefined; // The workflow may not have run its first task yet, or just finished.
    }
    started = true;
    s = { ...s, steps: s.steps.filter((step) => step.step > cursor) };
    if (s.steps.length || s.status !== latest?.status || s.waitingFor !== latest?.waitingFor) quietSince = Date.now();
    latest = s;
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
          live?.clear();
          process.stderr.write(`(cannot ask inline: ${(e as Error).message})\n`);
          rl = undefined;
        }
      } else if (s?.waitingFor && !asked.has(`${s.waitingFor}:${cursor}`)) {
        asked.add(`${s.waitingFor}:${cursor}`);
        live?.clear();
        process.stderr.write(`${waitingLine(handle.id, s)}\n`);
      }
      await sleep(intervalMs, undefined, { signal: done.signal }).catch(() => undefined);
    }
  };

  // While a running conversation has shown no step for a while, the call in flight is looked at.
  const watchInFlight = async () => {
    if (!live) return;
    while (!done.signal.aborted) {
      await sleep(live.everyMs, undefined, { signal: done.signal }).catch(() => undefined);
      if (done.signal.aborted) break;
      const s = latest;
      if (!s || s.status !== 'running' || s.waitingFor || Date.now() - quietSince < live.afterMs || opts.quietWhile?.()) {
        live.clear();
        continue;
      }
      const calls = await handle.inFlight().catch(() => undefined);
      if (calls && !done.signal.aborted) live.show(calls);
    }
  };

  const poller = poll();
  const inFlightWatcher = watchInFlight();
  const watcher = opts.worker
    ? watchWorker(opts.worker.hermes, { started: () => started, signal: done.signal, onMissing: opts.worker.onMissing })
    : undefined;
  try {
    return await Promise.race([finished, cannotRead]);
  } finally {
    done.abort();
    stopSignal.removeEventListener('abort', onStop);
    await poller;
    await inFlightWatcher;
    live?.clear();
    await watcher;
    // A fast run ends between two looks: show the steps not shown yet (a closed workflow still answers
    // queries while a worker polls its task queue; bounded in case none does). The worker answers such a query
    // by replaying the history, which on a loaded machine took over 3 s and lost the answer's own step line.
    if (log && !stopSignal.aborted) await Promise.race([showNewSteps(), sleep(10_000, undefined, { ref: false })]);
  }
}

/**
 * The calls-in-flight display: one line per retry (the failure and the wait), and the running call either as a
 * status line redrawn in place (a terminal) or as a line at 10 s and every 30 s after. `log` clears the status
 * line before a step line is written.
 */
function inFlightDisplay(stepLog: (line: string) => void, o: { afterMs?: number; everyMs?: number; redraw?: ((text: string) => void) | false }) {
  const redraw =
    o.redraw === undefined ? (process.stderr.isTTY ? (t: string) => void process.stderr.write(`\r\x1b[2K${t}`) : undefined) : o.redraw || undefined;
  // Per call: the attempt whose failure was reported, and (lines mode) when its running time is next reported.
  const seen = new Map<string, { attempt: number; nextSec: number }>();
  let drawn = false;
  const clear = () => {
    if (drawn) redraw?.('');
    drawn = false;
  };
  const log = (line: string) => {
    clear();
    stepLog(line);
  };
  const show = (calls: InFlightCall[]) => {
    for (const c of calls) {
      let shown = seen.get(c.activityId);
      if (!shown || c.attempt > shown.attempt) {
        // A new attempt (or a call first seen after retries): its predecessor's failure, once.
        shown = { attempt: c.attempt, nextSec: FIRST_SEC };
        seen.set(c.activityId, shown);
        const retry = retryLine(c);
        if (retry) log(retry);
      }
      // A retry's backoff was said with the retry; a call no worker takes is said like a running one.
      if (!redraw && !(c.state === 'waiting' && c.nextTryInSec) && c.runningSec >= shown.nextSec) {
        log(inFlightLine(c));
        while (shown.nextSec <= c.runningSec) shown.nextSec += REPEAT_SEC;
      }
    }
    for (const id of seen.keys()) if (!calls.some((c) => c.activityId === id)) seen.delete(id);
    if (redraw) {
      const text = calls.map((c) => inFlightLine(c).trim()).join(' · ');
      if (text) {
        redraw(`  ${text}`);
        drawn = true;
      } else clear();
    }
  };
  return { log, show, clear, afterMs: o.afterMs ?? 5_000, everyMs: o.everyMs ?? 2_000 };
}

/** Without a terminal to ask on: what the conversation waits for and the command that answers it. */
export function waitingLine(id: string, s: ConversationState): string {
  const q = s.pendingQuestion;
  if (s.waitingFor === 'clarify' && q) return `waiting for an answer: ${q.question}\n  answer it: hermes answer ${id} "…"`;
  const a = s.pendingApprovals[0];
  if (s.waitingFor === 'approval' && a) {
    return `waiting for approval (${a.reason}): ${a.tool} ${a.command.slice(0, 200)}\n  decide: hermes approve ${id} ${a.callId} [--deny]`;
  }
  return `waiting for ${s.waitingFor}: see hermes status ${id}`;
}
