// The tool activity's side of checkpoints: before a file-changing call, the step's before-checkpoint (made once per
// step, reused by its other calls and by retries: store.ts); after it, the step's after-checkpoint. The before id
// goes back in the activity's result, so the workflow records it (the step record, `hermes inspect`) and a replay
// reads it from the history instead of computing anything. A checkpoint that cannot be made (no git, a full disk)
// is logged and the call runs without one: checkpoints are a way back, not a condition of working.
import type { Context } from '@temporalio/activity';
import { changesFiles } from './changes-files';
import type { CheckpointKey, CheckpointStore } from './store';

export interface CallCheckpoints {
  /** The step's before-checkpoint id, or undefined when none could be made. */
  before(): Promise<string | undefined>;
  after(): Promise<void>;
}

/** Undefined when the call changes no files, or the workflow sent no step (a build from before checkpoints). */
export function callCheckpoints(
  store: CheckpointStore | undefined,
  ctx: Context,
  call: { name: string; args: Record<string, unknown>; step?: number; workspace: string },
): CallCheckpoints | undefined {
  const exec = ctx.info.workflowExecution;
  if (!store || call.step === undefined || !exec || !changesFiles(call.name, call.args)) return undefined;
  const key: CheckpointKey = { workspace: call.workspace, conversation: exec.workflowId, run: exec.runId, step: call.step };
  const guarded = async <T>(what: string, fn: () => Promise<T>): Promise<T | undefined> => {
    // A first snapshot of a large workspace can outlast a heartbeat timeout.
    const beat = setInterval(() => ctx.heartbeat(), 1000);
    try {
      return await fn();
    } catch (err) {
      ctx.log.warn(`no ${what} checkpoint of step ${call.step}: ${(err as Error).message}`, { workspace: call.workspace });
      return undefined;
    } finally {
      clearInterval(beat);
    }
  };
  return {
    before: () => guarded('before', () => store.before(key, ctx.cancellationSignal)),
    // Also when the call was cancelled: what it did until then is the agent's.
    after: async () => void (await guarded('after', () => store.after(key))),
  };
}
