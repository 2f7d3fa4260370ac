// Approvals a sub-agent waits for surface in its parent (delegation.childApprovals): the child tells its parent
// the approvals waiting in its subtree with a signal whenever they change (forwarded up a level at a time, so a
// grandchild's reach the top), and a decision sent to the parent is passed down the same way. A workflow
// cannot send an update, so the parent passes it on as the `approveFromParent` signal, which is checked like
// the update: same schema, and a call id that is not pending there is ignored.
import { ApplicationFailure, getExternalWorkflowHandle, log, workflowInfo } from '@temporalio/workflow';
import { approveSchema, type ApproveArgs, type PendingApproval } from '../../shared/contract';
import { approveFromParentSignal, NOTHING_PENDING } from '../../shared/messages';
import { childApprovalsSchema } from '../../shared/wire';
import type { Conversation } from '../state/conversation-state';
import { reportApprovals } from './reporter';

/** Where a decision goes: this conversation's own pending call, or down to the sub-agent that reported it. */
export type ApprovalTarget = { own: true } | { own: false; via: string; workflowId: string };

/** The `childApprovals` signal: a running sub-agent's latest list replaces its previous one. */
export function onChildApprovals(c: Conversation, raw: unknown): void {
  const r = childApprovalsSchema().safeParse(raw);
  if (!r.success) return log.warn('childApprovals signal with unreadable arguments: ignored', { error: r.error.message });
  const { from, runs, seq, approvals } = r.data;
  // From a child this run no longer waits for (or never started), or older than what it already said.
  if (!c.children.running(from)) return;
  const prev = c.children.approvalsOf(from);
  if (prev && (runs < prev.runs || (runs === prev.runs && seq <= prev.seq))) return;
  const before = new Set(prev?.approvals.map(key));
  const now = new Set(approvals.map(key));
  c.children.setApprovals(from, { runs, seq, approvals });
  const me = workflowInfo().workflowId;
  const added = approvals.filter((a) => !before.has(key(a)));
  for (const a of added) {
    c.note(
      'agent',
      `↳ ${a.child!.workflowId} waits for approval (${a.reason}): ${a.tool} ${a.command.slice(0, 100)} — hermes approve ${me} ${a.callId}`,
    );
  }
  const removed = [...before].some((k) => !now.has(k));
  if (removed) c.board.refresh();
  if (added.length || removed) reportApprovals(c);
}

/** A sub-agent has ended: what it reported is moot (and the parent's own parent hears so). */
export function dropChildApprovals(c: Conversation, workflowId: string): void {
  if (!c.children.dropApprovals(workflowId)) return;
  c.board.refresh();
  reportApprovals(c);
}

/**
 * Which pending approval a decision is for. Throws an Error that says why there is none (the update's validator
 * rejects with it): nothing pending, no such call, or a call id that two conversations share.
 */
export function approvalTarget(
  c: Pick<Conversation, 'children' | 'human' | 'pendingApprovals'>,
  args: Pick<ApproveArgs, 'callId' | 'workflowId'>,
): ApprovalTarget {
  const me = workflowInfo().workflowId;
  const { callId, workflowId } = args;
  const all = c.pendingApprovals();
  if (!all.length) throw new Error(NOTHING_PENDING.approve);
  const matches: ApprovalTarget[] = [];
  if ((!workflowId || workflowId === me) && c.human.approvals.some((a) => a.callId === callId)) matches.push({ own: true });
  for (const [via, r] of c.children.approvalEntries()) {
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
  if (t.own) return c.human.decide(r.data);
  routeApproval(t, r.data).catch((err: Error) => log.warn(`a decision from the parent was not passed on: ${err.message}`));
}

function key(a: PendingApproval): string {
  return `${a.child?.workflowId ?? ''}/${a.callId}`;
}

function label(a: PendingApproval): string {
  return a.child ? `${a.callId} (sub-agent ${a.child.workflowId})` : a.callId;
}
