// The snapshot of a conversation's memory scope that enters its system prompt. A local activity: its result is
// recorded in the conversation's history (one marker), so a replay sees the same prompt whatever the memory
// holds by then.
import { Context } from '@temporalio/activity';
import { MemoryClient, redactMemoryView } from '../memory/client';
import type { Redactor } from '../security/redact';
import type { MemoryView } from '../shared/memory';

export function createMemoryActivities(deps: { redactor?: Redactor } = {}) {
  /** The scope's stores (redacted), or null when nothing is stored (or the scope has no memory yet). */
  async function recallMemory(scope: string): Promise<MemoryView | null> {
    const ctx = Context.current();
    const view = await new MemoryClient(ctx.client, scope, { taskQueue: ctx.info.taskQueue }).read();
    if (!view.notes.entries.length && !view.user.entries.length) return null;
    return deps.redactor ? redactMemoryView(view, deps.redactor) : view;
  }
  return { recallMemory };
}
