// Tool calls that wait for a human: clarify questions and approvals of dangerous commands. Both wait on a
// durable timer, so a worker restart or a week-long wait changes nothing.
import { condition, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { ApprovalVerdict } from '../../tools/spec';
import { reportApprovals, reportToParent } from '../subagents/reporter';
import { STOPPED, type Stopped } from './turn-outcome';
import { approvalDenied, clarifyTimedOut, refused } from '../../shared/texts';
import type { Conversation } from '../state/conversation-state';
import { traceOutcome } from '../engine/trace';

export async function askClarify(c: Conversation, callId: string, question: string, choices?: string[]): Promise<string | Stopped> {
  c.human.ask({ callId, question, ...(choices?.length ? { choices } : {}) });
  c.setStatus('waiting', 'clarify');
  c.publish({ type: 'waiting', for: 'clarify', callId, question, answerWith: `hermes answer ${workflowInfo().workflowId} "<your answer>"` });
  try {
    const answered = await condition(() => c.human.answered(), c.limits.clarifyTimeoutSec * 1000, {
      summary: `waiting for an answer: ${question.slice(0, 100)}`,
    });
    if (!answered) {
      c.note('clarify', 'no answer before the timeout');
      return clarifyTimedOut(c.limits.clarifyTimeoutSec);
    }
    return c.human.takeAnswer();
  } catch (err) {
    if (isCancellation(err)) return STOPPED;
    throw err;
  } finally {
    c.human.closeQuestion();
    c.setStatus('running');
  }
}

/** Decides whether a call may run: undefined = run it; a string = the tool result instead. */
export async function approvalGate(
  c: Conversation,
  callId: string,
  tool: string,
  args: Record<string, unknown>,
  v: ApprovalVerdict,
): Promise<string | undefined | Stopped> {
  if (v.verdict === 'allow') return undefined;
  const reason = v.reason ?? 'dangerous command';
  const pattern = v.pattern ?? reason;
  const command = typeof args.command === 'string' ? args.command : JSON.stringify(args);
  const what = `${tool} \`${command.slice(0, 120)}\``;
  if (v.verdict === 'refuse') {
    c.note('approval', `refused ${tool}: ${reason}`);
    await traceOutcome(c.board, `refused (${reason}): ${what} did not run`);
    return refused(reason);
  }
  if (c.human.isRemembered(pattern)) return undefined;
  const mode = c.input.approvalMode ?? (c.input.scheduled ? 'deny' : 'ask');
  if (mode === 'allow') return undefined;
  if (mode === 'deny') {
    await traceOutcome(c.board, `denied by the approval policy (${reason}): ${what} did not run`);
    return approvalDenied('policy', reason);
  }

  c.human.awaitApproval({ callId, tool, command, reason, pattern });
  let remembered: string | undefined;
  c.setStatus('waiting', 'approval');
  const id = workflowInfo().workflowId;
  c.publish({
    type: 'waiting',
    for: 'approval',
    callId,
    question: `${what} (${reason})`,
    answerWith: `hermes approve ${id} ${callId} --approve (or --deny)`,
  });
  // A sub-agent allowed to ask (delegation.childApprovals): its parent's state shows it waiting, and lists the
  // call among its pending approvals (child-approvals.ts).
  reportToParent(c);
  reportApprovals(c);
  try {
    const decided = await condition(() => c.human.decision(callId) !== undefined, c.limits.approvalTimeoutSec * 1000, {
      summary: `waiting for approval of ${what} (${reason})`,
    });
    const d = c.human.decision(callId);
    if (!decided || !d) {
      c.note('approval', `${tool}: no decision before the timeout, denied`);
      await traceOutcome(c.board, `approval timed out after ${c.limits.approvalTimeoutSec} s: ${what} was denied and did not run`);
      return approvalDenied('timeout', reason, c.limits.approvalTimeoutSec);
    }
    c.note('approval', `${tool}: ${d.decision}${d.remember ? ' (remembered)' : ''}`);
    if (d.decision === 'deny') {
      await traceOutcome(c.board, `approval denied: ${what} did not run`);
      return approvalDenied('user', reason);
    }
    if (d.remember) remembered = pattern;
    return undefined;
  } catch (err) {
    if (isCancellation(err)) return STOPPED;
    throw err;
  } finally {
    c.human.settle(callId, remembered);
    if (!c.human.approvals.length) c.setStatus('running');
    // Settled (decided, timed out, interrupted): the parent stops listing it, and no longer shows this child waiting.
    reportApprovals(c);
    reportToParent(c);
  }
}
