// An update the server dropped unseen (UnprocessedUpdate: the worker completed the workflow task that carried it
// without a word on it) is sent again by refusedWhenClosed; every other outcome reaches the caller as it came.
import { ApplicationFailure, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { refusedWhenClosed } from '../src/late-updates';

const failed = (type: string, message = 'x') =>
  new WorkflowUpdateFailedError('Workflow Update failed', ApplicationFailure.create({ message, type, nonRetryable: true }));
const unprocessed = () => failed('UnprocessedUpdate', "Workflow Update is rejected because it wasn't processed by worker.");
// Only a NotFound or an AcceptedUpdateCompletedWorkflow failure makes refusedWhenClosed look at the run.
const workflow = {} as WorkflowHandle;

/** An update that fails with each of `errors` in turn, then resolves with the number of calls. */
function scripted(errors: Error[]) {
  let calls = 0;
  const update = () => {
    calls++;
    const err = errors.shift();
    return err ? Promise.reject(err) : Promise.resolve(calls);
  };
  return { update, calls: () => calls };
}

describe('an update the server did not hand to the workflow', () => {
  it('is sent again until it is processed', async () => {
    const u = scripted([unprocessed(), unprocessed()]);
    await expect(refusedWhenClosed(workflow, 'send', u.update)).resolves.toBe(3);
  });

  it('reaches the caller after three resends', async () => {
    const u = scripted([unprocessed(), unprocessed(), unprocessed(), unprocessed()]);
    await expect(refusedWhenClosed(workflow, 'send', u.update)).rejects.toMatchObject({ cause: { type: 'UnprocessedUpdate' } });
    expect(u.calls()).toBe(4);
  });

  it("is not confused with the validator's refusal, which is not resent", async () => {
    const u = scripted([failed('', 'no approval is pending')]);
    await expect(refusedWhenClosed(workflow, 'approve', u.update)).rejects.toMatchObject({ cause: { message: 'no approval is pending' } });
    expect(u.calls()).toBe(1);
  });
});
