// Worker Deployment Versioning, the workflow's side (docs/versioning.md). A conversation is pinned to the build
// it started on (the worker's default behaviour), so a deploy never replays it on other code. When the
// deployment's current build changes, Temporal says so in the next workflow task
// (`targetWorkerDeploymentVersionChanged`), and the conversation moves at its next boundary: an idle chat at
// once, any run at its next continue-as-new, which then starts on the current build (`AUTO_UPGRADE`).
import { allHandlersFinished, condition, setHandler, workflowInfo, type ContinueAsNewOptions } from '@temporalio/workflow';
import { upgradeSignal } from '../../shared/messages';

/** A newer build is the deployment's current (or ramping) one: this pinned run should move at its next boundary. */
export function upgradeDue(): boolean {
  return workflowInfo().targetWorkerDeploymentVersionChanged === true;
}

/** Continue-as-new options: a run whose build is no longer the target starts its next run on the target. */
export function continueAsNewOptions(): ContinueAsNewOptions {
  return upgradeDue() ? { initialVersioningBehavior: 'AUTO_UPGRADE' } : {};
}

/**
 * The chat's wait for its next message (a durable timer of `timeoutMs`), which also ends when a newer build
 * becomes current: the worker that made it current signals idle conversations pinned to older builds
 * (`upgrade`), so they see the change in a workflow task; then `moveOn` (continue-as-new) runs and this never
 * returns. Else as `condition`: true when `until` held, false on the timeout.
 */
export async function idleUntil(until: () => boolean, timeoutMs: number, moveOn: () => Promise<never>): Promise<boolean> {
  setHandler(upgradeSignal, () => undefined, {
    description: 'Internal: a newer build became current; an idle conversation moves to it (continue-as-new)',
  });
  const move = () => upgradeDue() && allHandlersFinished();
  const got = move() || (await condition(() => until() || move(), timeoutMs, { summary: 'waiting for the next message' }));
  if (got && !until()) return moveOn();
  return got;
}
