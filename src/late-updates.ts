// An update (approve, answer, send) that reaches a conversation as it ends. The server aborts an update it admitted
// but the workflow never saw with "workflow update was aborted by closing workflow" (NotFound), refuses one for a
// closed run with "workflow execution already completed" (NotFound), and fails one the workflow accepted but did
// not finish with an AcceptedUpdateCompletedWorkflow failure. Which of these, or the validator's own refusal, a
// late decision gets depends on a race with the run's last workflow task; the caller should get one answer: the
// validator's (NOTHING_PENDING), as an update failure like any other rejection.
import { ApplicationFailure, WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { NOTHING_PENDING } from './shared/messages';

/** The failure type of a refusal made here (the validator's rejections have none). */
const CLOSED_REFUSAL = 'ConversationClosed';

/**
 * The outcome of `update()`, with an engine error that means "the conversation closed under it" turned into the
 * refusal of `kind`, and an update the server dropped unseen (UnprocessedUpdate) sent again.
 */
export async function refusedWhenClosed<T>(workflow: WorkflowHandle, kind: keyof typeof NOTHING_PENDING, update: () => Promise<T>): Promise<T> {
  try {
    return await resentWhenUnprocessed(update);
  } catch (err) {
    if (!(await closedUnder(workflow, err))) throw err;
    const refusal = ApplicationFailure.create({ message: NOTHING_PENDING[kind], type: CLOSED_REFUSAL, nonRetryable: true, cause: err as Error });
    throw new WorkflowUpdateFailedError('Workflow Update failed', refusal);
  }
}

async function closedUnder(workflow: WorkflowHandle, err: unknown): Promise<boolean> {
  if (err instanceof WorkflowUpdateFailedError) return (err.cause as ApplicationFailure | undefined)?.type === 'AcceptedUpdateCompletedWorkflow';
  if (!(err instanceof WorkflowNotFoundError)) return false;
  // NotFound also means "no such conversation", which stays what it is: only a run that exists and has closed
  // makes this a late update. (An update admitted while the run continued as new is retried on the next run by
  // the server itself.)
  const d = await workflow.describe().catch(() => undefined);
  return d !== undefined && d.status.name !== 'RUNNING';
}

/** How often an update the server dropped unseen is sent again, and the pause before each resend. */
const RESENDS = [100, 400, 1_600];

/**
 * The server rejects an update it delivered in a workflow task that the worker completed without a word on it
 * (failure type UnprocessedUpdate: seen when the results of a client tool reach a conversation whose worker was
 * just replaced, its first task a replay from history). Such an update never reached the history or a handler,
 * so sending it again (the same update id, when the caller gave one) is safe; the caller should not see it.
 */
async function resentWhenUnprocessed<T>(update: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await update();
    } catch (err) {
      const unprocessed = err instanceof WorkflowUpdateFailedError && (err.cause as ApplicationFailure | undefined)?.type === UNPROCESSED;
      if (!unprocessed || i >= RESENDS.length) throw err;
      await new Promise((r) => setTimeout(r, RESENDS[i]));
    }
  }
}

/** The server's failure type for an update a completed workflow task did not process. */
const UNPROCESSED = 'UnprocessedUpdate';
