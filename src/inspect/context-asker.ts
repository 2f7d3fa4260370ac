// The `context` query of a conversation's runs, for `hermes inspect --step` and `hermes export`: a running run's
// from the server; a finished one's (every run before the last continue-as-new, or the last when closed) from a
// worker replaying it, and when none answers, from a replay of its history in this process (once per run).
import { closedRunQuery } from './closed-query';
import type { ConversationReader } from './reader';
import type { ContextAsker } from './step-context';
import { replayRun, type ReplayedRun } from './replay-query';
import { contextQuery } from '../shared/messages';

/** `say` hears, once, that a query was answered by replaying here (and why no worker did). */
export async function contextAsker(hermes: ConversationReader, id: string, say?: (line: string) => void): Promise<ContextAsker> {
  const handle = hermes.get(id);
  const d = await handle.workflow.describe();
  const replays = new Map<string, Promise<{ run?: ReplayedRun; why: string }>>();
  let said = false;
  return async (runId, args) => {
    const server = () => hermes.client.workflow.getHandle(id, runId).query(contextQuery, args);
    if (runId === undefined && d.status.name === 'RUNNING') return server();
    let missing: Error;
    try {
      return await closedRunQuery(hermes.client, handle, d.taskQueue, server);
    } catch (e) {
      missing = e as Error;
    }
    const key = runId ?? '';
    if (!replays.has(key)) {
      let why = '';
      replays.set(
        key,
        replayRun(hermes.client, id, runId, (w) => (why = w)).then((run) => ({ ...(run ? { run } : {}), why })),
      );
    }
    const { run, why } = await replays.get(key)!;
    if (!run) throw new Error(`${missing.message} to replay ${id}, and it cannot be replayed here: ${why}`);
    if (!said) say?.(`(${missing.message}: answered by replaying the history here)`);
    said = true;
    return run.context(args);
  };
}
