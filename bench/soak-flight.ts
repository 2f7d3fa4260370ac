// Keeps N conversations in flight until a deadline: N lanes, each starting a conversation, waiting for its result
// and starting the next. A start or a result that meets the server down (the soak restarts it) is retried: a start
// whose reply was lost finds the workflow already started and carries on with it.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { Hermes, isServerUnreachable, type ConversationResult } from '../src/client';
import { clusterPrompt, type ClusterModel } from './cluster-model';

export interface Flown {
  id: string;
  result?: ConversationResult;
  error?: string;
  startRetries: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function startRetrying(hermes: Hermes, id: string, steps: number, f: Flown): Promise<void> {
  const give = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      await hermes.start({ id, prompt: clusterPrompt(id, steps, 50, 'mark'), tools: ['terminal'] });
      return;
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return; // an earlier attempt got through
      if (!isServerUnreachable(err) || Date.now() > give) throw err;
      f.startRetries++;
      await sleep(1_000);
    }
  }
}

/** Runs lanes until `o.until`, then lets each finish its conversation; every conversation goes into `flown` as it starts. */
export async function fly(o: { hermes: Hermes; model: ClusterModel; inFlight: number; steps: number; until: number }, flown: Flown[]): Promise<void> {
  let seq = 0;
  const lane = async () => {
    while (Date.now() < o.until) {
      const f: Flown = { id: `soak-${++seq}-${o.hermes.taskQueue}`, startRetries: 0 };
      flown.push(f);
      o.model.allow(o.steps + 8); // the steps, the answer, and room for retried calls and checks
      try {
        await startRetrying(o.hermes, f.id, o.steps, f);
        f.result = await o.hermes.get(f.id).result({ onUnreachable: () => undefined });
      } catch (err) {
        f.error = (err as Error).message;
      }
    }
  };
  await Promise.all(Array.from({ length: o.inFlight }, lane));
}
