// Polling helpers shared by the scenario tests.
import type { ConversationHandle } from '../../src/client';
import type { ConversationState } from '../../src/shared/types';

/** Polls fn until it returns something other than undefined/false; fails after timeoutMs. */
export async function waitFor<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Polls the `state` query until pred holds. */
export function stateWhen(handle: ConversationHandle, pred: (s: ConversationState) => boolean, timeoutMs = 20_000): Promise<ConversationState> {
  return waitFor(
    'the conversation state',
    async () => {
      const s = await handle.state().catch(() => undefined);
      return s && pred(s) ? s : undefined;
    },
    timeoutMs,
  );
}

/** True while a process (or, with a negative pid, a process group) exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
