// `task_result`'s wait: until the conversation ends, waits for a person (a clarify question, an approval), or —
// a chat — has no turn under way; at most `waitSec`. The end is waited for by the client's `result()`, a long
// poll on the workflow's history that the server answers when the run closes (durable: it spans continue-as-new
// and rides out a server outage); the other two are seen in the live state, which a query reads without adding
// to the history, once a second. The long poll is cancelled when the wait ends.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ConversationHandle, TemporalStatus } from '../client';
import { lastTurn } from '../http-api/session-view';
import type { ConversationResult, ConversationState } from '../shared/contract';
import type { McpContext } from './context';
import { resultView, stateView, turnView } from './conversation-views';

export const MAX_WAIT_SEC = 600;
const TICK_MS = 1_000;
/** How long a state query may go unanswered (no worker) before this look gives up on it. */
const STATE_MS = 5_000;
/** Progress notifications at most this often while nothing changes. */
const PROGRESS_MS = 10_000;

export interface WaitOptions {
  signal: AbortSignal;
  /** Hears how it stands while the wait goes on (an MCP progress notification). */
  progress?: (elapsedSec: number, message: string) => Promise<void>;
}

/** The live state, or undefined when no worker answers within STATE_MS. */
export async function stateWithin(ctx: McpContext, handle: ConversationHandle): Promise<ConversationState | undefined> {
  return ctx.hermes.client.connection.withDeadline(Date.now() + STATE_MS, () => handle.state()).catch(() => undefined);
}

export async function waitForOutcome(
  ctx: McpContext,
  handle: ConversationHandle,
  status: TemporalStatus,
  waitSec: number,
  o: WaitOptions,
): Promise<Record<string, unknown>> {
  const id = handle.id;
  if (status !== 'RUNNING') return resultView(id, await handle.result({ onUnreachable: () => undefined }));
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  o.signal.addEventListener('abort', onAbort, { once: true });
  const ended = ctx.hermes.client
    .withAbortSignal(stop.signal, () => handle.result({ onUnreachable: (e) => ctx.log(`${id}: waiting out a server outage: ${e.message}`) }))
    .then(
      (r: ConversationResult) => ({ r }),
      (err: unknown) => ({ err }),
    );
  const t0 = Date.now();
  const deadline = t0 + waitSec * 1000;
  let said = { key: '', at: t0 };
  try {
    for (;;) {
      const s = await stateWithin(ctx, handle);
      if (s?.waitingFor === 'clarify' || s?.waitingFor === 'approval') return { ...stateView(id, s), finished: false };
      if (s?.mode === 'chat' && s.status === 'idle' && !ctx.turns.has(id)) return turnView(id, s, await lastTurn(handle));
      const left = deadline - Date.now();
      if (left <= 0 || stop.signal.aborted) {
        return s
          ? { ...stateView(id, s), finished: false }
          : { id, status: 'running', finished: false, note: `no worker answered the state query within ${STATE_MS / 1000} s` };
      }
      const key = s ? `${s.status} ${s.lastStep?.step ?? ''}` : 'no state';
      if (o.progress && (key !== said.key || Date.now() - said.at >= PROGRESS_MS)) {
        said = { key, at: Date.now() };
        await o.progress(Math.round((Date.now() - t0) / 1000), s?.lastStep ? `${s.status}: ${s.lastStep.summary}` : (s?.status ?? 'running'));
      }
      const done = await Promise.race([ended, sleep(Math.min(TICK_MS, left), undefined)]);
      if (done && 'r' in done) return resultView(id, done.r);
      if (done && !stop.signal.aborted) throw done.err;
    }
  } finally {
    o.signal.removeEventListener('abort', onAbort);
    stop.abort();
  }
}
