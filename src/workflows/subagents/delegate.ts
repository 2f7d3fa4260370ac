// delegate_task: sub-agents as child conversation workflows. Each task is a child `conversationWorkflow` on the
// parent's task queue, with an id derived from the parent's id, the model step and the call id, so a replayed
// or retried parent finds the child it started instead of starting a second one. At most
// delegation.maxConcurrent run at once; the rest wait their turn. Children report their totals after every
// model call (childProgress signal), which the parent counts in its budgets at once; when the parent's token
// or cost budget runs out, its children are cancelled. An interrupt of the parent interrupts its children (they
// end as `interrupted`, their tools cut short the usual way); a cancel of the parent cancels them.
import {
  CancellationScope,
  ChildWorkflowFailure,
  condition,
  isCancellation,
  ParentClosePolicy,
  startChild,
  workflowInfo,
  type ChildWorkflowHandle,
} from '@temporalio/workflow';
import type { ConversationInput, ConversationResult, ConversationWorkflow } from '../../shared/contract';
import { resultOfFailure } from '../../shared/failed-result';
import { DEFAULT_DELEGATION } from '../../shared/defaults';
import { interruptSignal } from '../../shared/messages';
import { DELEGATE_TASK, resolveTools } from '../../tools/registry';
import { SCHEDULE_TOOLS } from '../../tools/schedules/spec';
import { dropChildApprovals } from './approvals';
import { describeFailure } from '../engine/failures';
import { delegationRefused, subAgentSystem } from '../../shared/texts';
import type { Conversation } from '../state/conversation-state';
import type { StopControl } from '../state/stop-control';
import { ZERO_USAGE } from '../rules/usage';
import { childLimits, resultText, type ChildOutcome } from './child-results';

/** Never offered to a sub-agent: nobody answers its questions, and what is remembered is the parent's call. */
const NOT_FOR_SUB_AGENTS = ['clarify', 'memory'];

export interface DelegateArgs {
  goal?: string;
  context?: string;
  tasks?: Array<{ goal: string; context?: string; tools?: string[]; model?: string }>;
  tools?: string[];
}

export function delegation(input: ConversationInput): Required<NonNullable<ConversationInput['delegation']>> {
  return { ...DEFAULT_DELEGATION, ...input.delegation };
}

/** The tool result for a delegate_task call where it is not offered. */
export function delegationUnavailable(c: Pick<Conversation, 'depth' | 'input'>): string {
  return delegationRefused(c.depth, delegation(c.input).maxDepth);
}

/** Runs one delegate_task call; `cut` is true when an interrupt or a cancel stopped its children, `ok` false when none could start. */
export async function delegate(c: Conversation, callId: string, args: DelegateArgs): Promise<{ content: string; cut: boolean; ok: boolean }> {
  const d = delegation(c.input);
  if (c.depth >= d.maxDepth) return { content: delegationUnavailable(c), cut: false, ok: false };
  const parentId = workflowInfo().workflowId;
  const tasks = args.tasks?.length ? args.tasks : [{ goal: args.goal!, context: undefined }];
  const plans: Array<{ workflowId: string; goal: string; input: () => ConversationInput }> = [];
  for (const [i, t] of tasks.entries()) {
    const names = ('tools' in t ? t.tools : undefined) ?? args.tools;
    const resolved = names ? resolveTools(names, c.toolList) : { tools: [...c.tools], unknown: [] };
    if (resolved.unknown.length) {
      return { content: `Error: unknown tools or toolsets: ${resolved.unknown.join(', ')}. Nothing was started.`, cut: false, ok: false };
    }
    // Never more than the parent has; never clarify (nobody answers a sub-agent), schedules nor memory (what is
    // remembered is the parent's call); delegate_task only when the child's own children would still be within
    // the depth limit.
    const tools = resolved.tools.filter(
      (n) =>
        c.tools.includes(n) && !NOT_FOR_SUB_AGENTS.includes(n) && !SCHEDULE_TOOLS.includes(n) && (n !== DELEGATE_TASK || c.depth + 2 <= d.maxDepth),
    );
    const workflowId = `${parentId}-agent${c.meter.modelCalls}-${callId}-${i + 1}`;
    const system = subAgentSystem(parentId, {
      overall: args.tasks?.length ? args.goal : undefined,
      sharedContext: args.tasks?.length ? args.context : undefined,
      context: args.tasks?.length ? t.context : args.context,
    });
    const model = ('model' in t ? t.model : undefined) ?? c.model.profile;
    // Built when the child starts, so its budgets are what the parent has left then.
    const input = (): ConversationInput => ({
      prompt: t.goal,
      system,
      tools,
      mode: 'task',
      approvalMode: d.childApprovals ? (c.input.approvalMode ?? (c.input.scheduled ? 'deny' : 'ask')) : 'deny',
      limits: childLimits(c),
      delegation: d,
      parent: { workflowId: parentId, depth: c.depth + 1 },
      ...(model ? { model } : {}),
      ...(c.input.fallbackModel ? { fallbackModel: c.input.fallbackModel } : {}),
      ...(c.input.workspace ? { workspace: c.input.workspace } : {}),
      ...(c.input.sandbox ? { sandbox: c.input.sandbox } : {}),
      ...(c.input.network !== undefined ? { network: c.input.network } : {}),
      ...(c.input.searchAttributes === false ? { searchAttributes: false } : {}),
      // A child works for the same user: its memory, skills and search scope are its parent's.
      ...(c.input.memoryScope ? { memoryScope: c.input.memoryScope } : {}),
      ...(c.input.skillsStore ? { skillsStore: c.input.skillsStore } : {}),
    });
    plans.push({ workflowId, goal: t.goal, input });
  }

  c.children.plan(plans);
  // Shielded from the turn's stretch scope: a stop of the parent reaches the children as an interrupt (they
  // end as interrupted, with a result) or, for a cancel or the budget, as a cancel of `scope` — decided below.
  return CancellationScope.nonCancellable(async () => {
    const scope = new CancellationScope();
    const outcomes: ChildOutcome[] = [];
    const running = new Map<string, ChildWorkflowHandle<ConversationWorkflow>>();
    let stopping: 'interrupt' | 'cancel' | undefined;
    let next = 0;

    const runOne = async (p: (typeof plans)[number]): Promise<ChildOutcome> => {
      const base = { workflowId: p.workflowId, goal: p.goal, answer: '', modelCalls: 0, usage: ZERO_USAGE };
      if (stopping || spentOut(c)) {
        c.children.close(p.workflowId, 'cancelled');
        return { ...base, status: 'not_started', error: stopping ? `not started: ${c.stop.cause()}` : "not started: the parent's budget is used up" };
      }
      c.children.started(p.workflowId);
      c.note('agent', `↳ started ${p.workflowId}: ${p.goal.split('\n')[0]!.slice(0, 100)}`);
      try {
        const handle = await startChild<ConversationWorkflow>('conversationWorkflow', {
          workflowId: p.workflowId,
          args: [p.input()],
          // A parent that ends (or is cancelled) takes its children with it, and a cancel lets each child stop
          // its tools cleanly (process groups killed) — TERMINATE would leave that to heartbeat timeouts.
          parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
          // The goal first: the Web UI cuts long summaries, and the parent is a link on the child's page anyway.
          staticSummary: `${p.goal.split('\n')[0]!.slice(0, 200)} (sub-agent of ${parentId})`,
        });
        running.set(p.workflowId, handle);
        if (stopping === 'interrupt') await interruptChild(handle, c.stop);
        // A failed child is a FAILED workflow whose failure carries its result (src/shared/failed-result.ts).
        const r: ConversationResult = await handle.result().catch((err: unknown) => {
          const carried = isCancellation(err) ? undefined : resultOfFailure(err);
          if (carried) return carried;
          throw err;
        });
        c.childReport({ workflowId: p.workflowId, status: r.status, iteration: r.iterations, modelCalls: r.modelCalls, usage: r.usage }, true);
        c.note('agent', `↳ ${r.status} ${p.workflowId} (${r.modelCalls} model calls, ${r.usage.totalTokens} tokens)`);
        return { ...base, status: r.status, answer: r.answer, reason: r.reason, error: r.error, modelCalls: r.modelCalls, usage: r.usage };
      } catch (err) {
        const status = isCancellation(err) ? 'cancelled' : 'failed';
        c.children.close(p.workflowId, status);
        const error = isCancellation(err)
          ? `cancelled ${c.stop.cause()}`
          : describeFailure(err instanceof ChildWorkflowFailure && err.cause ? err.cause : err).message;
        c.record({ kind: 'note', name: 'agent', summary: `↳ ${status} ${p.workflowId}: ${error}`, ok: false });
        return { ...base, status, error, usage: { ...ZERO_USAGE, totalTokens: c.children.view(p.workflowId)?.totalTokens ?? 0 } };
      } finally {
        running.delete(p.workflowId);
        // Whatever it still waited for ends with it (an interrupt or a cancel settles it this way too).
        dropChildApprovals(c, p.workflowId);
      }
    };

    const lane = async (): Promise<void> => {
      while (next < plans.length) {
        const i = next++;
        outcomes[i] = await runOne(plans[i]!);
      }
    };
    let finished = false;
    const lanes = Math.min(d.maxConcurrent, plans.length);
    const all = scope.run(() => Promise.all(Array.from({ length: lanes }, lane))).finally(() => (finished = true));

    // Watch the parent while the children run: its interrupt or time budget interrupts them; its cancel or its
    // token/cost budget (children's spending included) cancels them.
    for (;;) {
      await condition(
        () => finished || (stopping !== 'cancel' && (c.stop.cancelRequested || spentOut(c))) || (!stopping && c.stop.reason !== undefined),
      );
      if (finished) break;
      if (c.stop.cancelRequested || spentOut(c)) {
        stopping = 'cancel';
        if (!c.stop.cancelRequested) c.note('budget', 'the budget is used up: cancelling the sub-agents');
        scope.cancel();
      } else {
        stopping = 'interrupt';
        for (const h of running.values()) await interruptChild(h, c.stop);
      }
    }
    await all;
    return { content: resultText(outcomes, c.limits), cut: stopping !== undefined && !spentOut(c), ok: true };
  });
}

async function interruptChild(h: ChildWorkflowHandle<ConversationWorkflow>, stop: StopControl): Promise<void> {
  try {
    await h.signal(interruptSignal, { reason: `the parent conversation was stopped ${stop.cause()}` });
  } catch {
    // It has just ended: nothing to interrupt.
  }
}

/** The parent's token or cost budget (children's spending included) is used up. */
function spentOut(c: Pick<Conversation, 'limits' | 'meter'>): boolean {
  const { maxTokens, maxCostUsd } = c.limits;
  const { usage } = c.meter;
  return (maxTokens > 0 && usage.totalTokens >= maxTokens) || (maxCostUsd > 0 && usage.costUsd >= maxCostUsd);
}
