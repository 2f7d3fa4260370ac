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

/** How long past the deadline the soak waits for a conversation: one still running then is stuck, and reported. */
const GRACE_MS = 5 * 60_000;

/** The conversation's result, or an error naming why it is still running once the grace after `until` is over. */
async function resultOrStuck(hermes: Hermes, id: string, until: number): Promise<ConversationResult> {
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        void hermes
          .get(id)
          .workflow.describe()
          .catch(() => undefined)
          .then((d) => {
            const problems = d?.raw.workflowExecutionInfo?.searchAttributes?.indexedFields?.TemporalReportedProblems?.data;
            reject(new Error(`still running ${GRACE_MS / 60_000} min after the deadline${problems ? `: ${Buffer.from(problems).toString()}` : ''}`));
          });
      },
      Math.max(0, until + GRACE_MS - Date.now()),
    );
  });
  try {
    return await Promise.race([hermes.get(id).result({ onUnreachable: () => undefined }), stuck]);
  } finally {
    clearTimeout(timer);
  }
}

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
        f.result = await resultOrStuck(o.hermes, f.id, o.until);
      } catch (err) {
        f.error = (err as Error).message;
      }
    }
  };
  await Promise.all(Array.from({ length: o.inFlight }, lane));
}
