// Approvals a sub-agent waits for surface in its parent (delegation.childApprovals): the child tells its parent
// the approvals waiting in its subtree with a signal whenever they change (forwarded up a level at a time, so a
// grandchild's reach the top), and a decision sent to the parent is passed down the same way. A workflow
// cannot send an update, so the parent passes it on as the `approveFromParent` signal, which is checked like
// the update: same schema, and a call id that is not pending there is ignored.
import { ApplicationFailure, CancellationScope, getExternalWorkflowHandle, log, workflowInfo } from '@temporalio/workflow';
import { approveSchema, type ApproveArgs, type PendingApproval } from '../shared/contract';
import { approveFromParentSignal, childApprovalsSignal } from '../shared/messages';
import { childApprovalsSchema } from '../shared/wire';
import type { Conversation } from './state';

/** Characters of a command a report carries (the child's own state has all of it). */
const COMMAND_CAP = 20_000;

/** Where a decision goes: this conversation's own pending call, or down to the sub-agent that reported it. */
export type ApprovalTarget = { own: true } | { own: false; via: string; workflowId: string };

/** Approvals waiting in this conversation's sub-agents (their own and their sub-agents'), as they last reported them. */
export function forwardedApprovals(c: Conversation): PendingApproval[] {
  return [...c.childApprovals.values()].flatMap((r) => r.approvals);
}

/** What the `state` query lists: this conversation's own pending approvals, then its sub-agents'. */
export function allPendingApprovals(c: Conversation): PendingApproval[] {
  return c.childApprovals.size ? [...c.pendingApprovals, ...forwardedApprovals(c)] : c.pendingApprovals;
}

/** A sub-agent tells its parent what waits for approval in its subtree now (after every change). */
export function reportApprovals(c: Conversation): void {
  const parent = c.input.parent;
  if (!parent) return;
  const me = workflowInfo().workflowId;
  const goal = (c.input.prompt ?? '').trim().split('\n')[0]!.slice(0, 200);
  // A command longer than the report's schema allows would make the parent drop the whole report: cut it.
  const own = c.pendingApprovals.map((a) => ({ ...a, command: cut(a.command), child: { workflowId: me, goal } }));
  const approvals = [...own, ...forwardedApprovals(c)];
  const report = { from: me, runs: c.runs, seq: ++c.approvalReportsSent, approvals };
  // Not cancellable: an interrupt that settles the approval must not drop the report that says so.
  CancellationScope.nonCancellable(() => getExternalWorkflowHandle(parent.workflowId).signal(childApprovalsSignal, report)).catch(() => undefined);
}

/** The `childApprovals` signal: a running sub-agent's latest list replaces its previous one. */
export function onChildApprovals(c: Conversation, raw: unknown): void {
  const r = childApprovalsSchema().safeParse(raw);
  if (!r.success) return log.warn('childApprovals signal with unreadable arguments: ignored', { error: r.error.message });
  const { from, runs, seq, approvals } = r.data;
  // From a child this run no longer waits for (or never started), or older than what it already said.
  if (!c.childRunning(from)) return;
  const prev = c.childApprovals.get(from);
  if (prev && (runs < prev.runs || (runs === prev.runs && seq <= prev.seq))) return;
  const before = new Set(prev?.approvals.map(key));
  const now = new Set(approvals.map(key));
  c.childApprovals.set(from, { runs, seq, approvals });
  const me = workflowInfo().workflowId;
  const added = approvals.filter((a) => !before.has(key(a)));
  for (const a of added) {
    c.note(
      'agent',
      `↳ ${a.child!.workflowId} waits for approval (${a.reason}): ${a.tool} ${a.command.slice(0, 100)} — hermes approve ${me} ${a.callId}`,
    );
  }
  const removed = [...before].some((k) => !now.has(k));
  if (removed) c.setStatus(c.status, c.waitingFor); // refreshes the Web UI's details
  if (added.length || removed) reportApprovals(c);
}

/** A sub-agent has ended: what it reported is moot (and the parent's own parent hears so). */
export function dropChildApprovals(c: Conversation, workflowId: string): void {
  const had = c.childApprovals.get(workflowId)?.approvals.length;
  c.childApprovals.delete(workflowId);
  if (!had) return;
  c.setStatus(c.status, c.waitingFor);
  reportApprovals(c);
}

/**
 * Which pending approval a decision is for. Throws an Error that says why there is none (the update's validator
 * rejects with it): nothing pending, no such call, or a call id that two conversations share.
 */
export function approvalTarget(c: Conversation, args: Pick<ApproveArgs, 'callId' | 'workflowId'>): ApprovalTarget {
  const me = workflowInfo().workflowId;
  const { callId, workflowId } = args;
  const all = allPendingApprovals(c);
  if (!all.length) throw new Error('no approval is pending');
  const matches: ApprovalTarget[] = [];
  if ((!workflowId || workflowId === me) && c.pendingApprovals.some((a) => a.callId === callId)) matches.push({ own: true });
  for (const [via, r] of c.childApprovals) {
    for (const a of r.approvals) {
      if (a.callId === callId && (!workflowId || a.child?.workflowId === workflowId))
        matches.push({ own: false, via, workflowId: a.child!.workflowId });
    }
  }
  if (matches.length === 1) return matches[0]!;
  if (!matches.length) {
    const of = workflowId ? ` of ${workflowId}` : '';
    throw new Error(`no pending approval for call "${callId}"${of} (pending: ${all.map(label).join(', ')})`);
  }
  const ids = matches.map((m) => (m.own ? me : m.workflowId));
  const child = matches.find((m) => !m.own) as Extract<ApprovalTarget, { own: false }>;
  throw new Error(
    `call "${callId}" is pending in ${ids.join(' and ')}: decide it where it is pending, e.g. hermes approve ${child.workflowId} ${callId}`,
  );
}

/** Passes a decision down to the sub-agent the call came from; resolves once that child has it in its history. */
export async function routeApproval(
  t: Extract<ApprovalTarget, { own: false }>,
  args: ApproveArgs,
): Promise<{ callId: string; decision: ApproveArgs['decision']; workflowId: string }> {
  try {
    await getExternalWorkflowHandle(t.via).signal(approveFromParentSignal, { ...args, workflowId: t.workflowId });
  } catch (err) {
    throw ApplicationFailure.nonRetryable(
      `the decision could not reach the sub-agent ${t.via} (it may have just ended): ${(err as Error).message}`,
      'NotDelivered',
    );
  }
  return { callId: args.callId, decision: args.decision, workflowId: t.workflowId };
}

/** The `approveFromParent` signal: a decision for one of this conversation's calls, or one to pass further down. */
export function onApproveFromParent(c: Conversation, raw: unknown): void {
  const r = approveSchema().safeParse(raw);
  if (!r.success) return log.warn('approveFromParent signal with unreadable arguments: ignored', { error: r.error.message });
  let t: ApprovalTarget;
  try {
    t = approvalTarget(c, r.data);
  } catch (err) {
    // Settled meanwhile (a timeout, an interrupt, a decision made on this conversation directly).
    return log.warn(`a decision from the parent was not applied: ${(err as Error).message}`);
  }
  if (t.own) return decide(c, r.data);
  routeApproval(t, r.data).catch((err: Error) => log.warn(`a decision from the parent was not passed on: ${err.message}`));
}

/** Records a decision for one of this conversation's own pending calls (approvalGate waits for it). */
export function decide(c: Conversation, args: ApproveArgs): void {
  c.approvalDecisions.set(args.callId, { decision: args.decision, remember: Boolean(args.remember) });
}

function cut(command: string): string {
  return command.length > COMMAND_CAP ? `${command.slice(0, COMMAND_CAP)}… [${command.length - COMMAND_CAP} more characters]` : command;
}

function key(a: PendingApproval): string {
  return `${a.child?.workflowId ?? ''}/${a.callId}`;
}

function label(a: PendingApproval): string {
  return a.child ? `${a.callId} (sub-agent ${a.child.workflowId})` : a.callId;
}
