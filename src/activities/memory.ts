// The snapshot of a conversation's memory scope that enters its system prompt. A local activity: its result is
// recorded in the conversation's history (one marker), so a replay sees the same prompt whatever the memory
// holds by then.
import { Context } from '@temporalio/activity';
import { MemoryClient } from '../memory/client';
import type { MemoryView } from '../shared/memory';

export function createMemoryActivities() {
  /** The scope's stores, or null when nothing is stored (or the scope has no memory yet). */
  async function recallMemory(scope: string): Promise<MemoryView | null> {
    const ctx = Context.current();
    const view = await new MemoryClient(ctx.client, scope, { taskQueue: ctx.info.taskQueue }).read();
    return view.notes.entries.length || view.user.entries.length ? view : null;
  }
  return { recallMemory };
}
