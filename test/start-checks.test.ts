// The start checks (workspace, sandbox, catalog tools) run before any step; a cancel that arrives during them ends
// the conversation as cancelled, not as a failed check.
import { WorkflowFailedError } from '@temporalio/client';
import { afterEach, describe, expect, it } from 'vitest';
import { answer, createHarness, type Harness } from './helpers/harness';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
});

describe('start checks', () => {
  it('a cancel during the workspace and sandbox checks ends the conversation as cancelled', async () => {
    h = await createHarness([answer('never')]);
    // No worker yet: the cancel request is in the history before the first workflow task, so the checks' local
    // activities start in a cancelled scope.
    const handle = await h.hermes.start({ prompt: 'x', workspace: h.workspace, sandbox: 'bwrap' });
    await handle.workflow.cancel();
    const err = await h.run(() =>
      handle.workflow.result().then(
        () => undefined,
        (e: unknown) => e,
      ),
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause?.name).toBe('CancelledFailure');
    const described = await handle.workflow.describe();
    expect(described.status.name).toBe('CANCELLED');
    expect(described.searchAttributes.HermesStatus).toEqual(['cancelled']);
    expect(h.mock.requests).toHaveLength(0);
  });
});
