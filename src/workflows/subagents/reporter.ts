// The child side of a sub-agent: it tells its parent its totals after each model call (the parent counts them in its
// budgets at once) and, when it may ask for approval (delegation.childApprovals), what waits for approval in its
// subtree whenever that changes (forwarded up a level at a time, so a grandchild's reach the top).
import { CancellationScope, getExternalWorkflowHandle, workflowInfo } from '@temporalio/workflow';
import { childApprovalsSignal, childProgressSignal } from '../../shared/messages';
import type { Conversation } from '../state/conversation-state';

/** Characters of a command a report carries (the child's own state has all of it). */
const COMMAND_CAP = 20_000;

/** A sub-agent tells its parent its totals after each model call (see Conversation.childReport). */
export function reportToParent(c: Pick<Conversation, 'input' | 'meter' | 'reports' | 'status'>): void {
  const parent = c.input.parent;
  if (!parent) return;
  const report = {
    ...{ workflowId: workflowInfo().workflowId, status: c.status, iteration: c.meter.iteration, modelCalls: c.meter.modelCalls },
    ...{ seq: c.reports.nextProgress(), usage: c.meter.usage },
  };
  // Not awaited (a round trip per model call), and not cancellable: a stop of this step must not drop it.
  CancellationScope.nonCancellable(() => getExternalWorkflowHandle(parent.workflowId).signal(childProgressSignal, report)).catch(() => undefined);
}

/** A sub-agent tells its parent what waits for approval in its subtree now (after every change). */
export function reportApprovals(c: Conversation): void {
  const parent = c.input.parent;
  if (!parent) return;
  const me = workflowInfo().workflowId;
  const goal = (c.input.prompt ?? '').trim().split('\n')[0]!.slice(0, 200);
  // A command longer than the report's schema allows would make the parent drop the whole report: cut it.
  const own = c.human.approvals.map((a) => ({ ...a, command: cut(a.command), child: { workflowId: me, goal } }));
  const approvals = [...own, ...c.children.forwarded()];
  const report = { from: me, runs: c.meter.runs, seq: c.reports.nextApprovals(), approvals };
  // Not cancellable: an interrupt that settles the approval must not drop the report that says so.
  CancellationScope.nonCancellable(() => getExternalWorkflowHandle(parent.workflowId).signal(childApprovalsSignal, report)).catch(() => undefined);
}

function cut(command: string): string {
  return command.length > COMMAND_CAP ? `${command.slice(0, COMMAND_CAP)}… [${command.length - COMMAND_CAP} more characters]` : command;
}
