// One tool call: through the approval gate, then the tool activity (or, for the tools that live in the workflow —
// todo, clarify, delegate_task — their code here). The outcome is data: its content for the model and what kind of
// outcome it was, never judged from the text.
import { ActivityCancellationType, CancellationScope, isCancellation } from '@temporalio/workflow';
import type { ToolCallResult } from '../../shared/wire';
import { approvalVerdict, DELEGATE_TASK, TOOL_SEARCH, toolSpec } from '../../tools/registry';
import { onceToolOptions, retryingToolOptions, toolActivities } from '../engine/activity-options';
import { shortArgs, toolMessageContent } from '../rules/context-ops';
import type { Conversation } from '../state/conversation-state';
import { describeFailure } from '../engine/failures';
import { approvalGate, askClarify } from './human-waits';
import { STOPPED } from './turn-outcome';
import { cancelledBeforeStart, cancelledRunning, unknownOutcome } from '../../shared/texts';
import { delegate, type DelegateArgs } from '../subagents/delegate';
import type { TodoUpdate } from '../state/todo';
import type { PlannedCall } from '../rules/tool-plan';

export type RunCall = Extract<PlannedCall, { kind: 'run' }>;

/**
 * ok: the tool did its job; error: it ran and failed (or could not run); refused: the approval gate or a policy kept
 * it from running; cut: a stop request cut it short or kept it from starting; invalid: it named no offered tool or
 * its arguments did not validate.
 */
export type ToolOutcomeKind = 'ok' | 'error' | 'refused' | 'cut' | 'invalid';
export interface ToolOutcome {
  content: string;
  kind: ToolOutcomeKind;
  /** tool_search: the tools it found (its recorded result), shown from the next step on. */
  found?: string[];
}

/** A tool call between its two live events (started; finished with its outcome and duration). */
export function executeTool(c: Conversation, r: RunCall): Promise<ToolOutcome> {
  const started = Date.now();
  const base = { callId: r.call.id, name: r.name };
  c.publish({ type: 'tool.started', ...base, summary: shortArgs(r.args) });
  const finished = (out: ToolOutcome): ToolOutcome => {
    const summary = out.content.split('\n')[0]!.slice(0, 200);
    c.publish({ type: 'tool.finished', ...base, summary, outcome: out.kind, durationMs: Date.now() - started });
    return out;
  };
  c.meter.toolCalled();
  if (r.spec.internal) return runInternal(c, r).then(finished);
  // Most calls need no approval: no async gate (and its promises) for them. Classified once, here.
  const verdict = approvalVerdict(r.name, r.args);
  if (verdict.verdict !== 'allow') return gated(c, r, verdict).then(finished);
  return runActivity(c, r, finished);
}

/**
 * The tool activity, its outcome mapped by `after` in calling()'s one `then`. Not an async function: each promise the
 * workflow makes costs a stack trace (the SDK's promise hook), and this runs for every tool call.
 */
function runActivity(c: Conversation, r: RunCall, after: (out: ToolOutcome) => ToolOutcome = (out) => out): Promise<ToolOutcome> {
  let call: Promise<ToolCallResult>;
  try {
    call = scheduleTool(c, r);
  } catch (err) {
    return new Promise((resolve) => resolve(after(toolFailed(c, r, err))));
  }
  return c.calling(
    `${r.name} ${shortArgs(r.args)}`,
    call,
    (res) => after(toolDone(c, r, res)),
    (err) => after(toolFailed(c, r, err)),
  );
}

/** A call the approval gate decides on: refused, cut while waiting, or approved and run. */
async function gated(c: Conversation, r: RunCall, verdict: ReturnType<typeof approvalVerdict>): Promise<ToolOutcome> {
  const gate = await approvalGate(c, r.call.id, r.name, r.args, verdict);
  if (gate === STOPPED) return { content: cancelledBeforeStart(c.stop.cause()), kind: 'cut' };
  if (gate !== undefined) {
    c.record({ kind: 'tool', name: r.name, summary: `${shortArgs(r.args)} → ${gate.split('\n')[0]}`, ok: false });
    return { content: gate, kind: 'refused' };
  }
  return runActivity(c, r);
}

/** The tool activity, with the options its spec asks for. */
function scheduleTool(c: Conversation, r: RunCall): Promise<ToolCallResult> {
  const { limits, input } = c;
  const catalog = toolSpec(r.name) ? undefined : c.catalogTool(r.name);
  const options = r.spec.idempotent ? retryingToolOptions(limits.toolHeartbeatSec) : onceToolOptions(limits.toolHeartbeatSec);
  if (catalog?.timeoutMs) options.startToCloseTimeout = catalog.timeoutMs;
  return toolActivities.runTool.executeWithOptions(
    {
      ...options,
      summary: `${r.name} ${shortArgs(r.args, 100)}`,
      // Wait until the tool has really stopped (its process group killed) before the loop moves on.
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    },
    [
      {
        ...{ callId: r.call.id, name: r.name, args: r.args, workspace: input.workspace },
        ...{ outputLimit: limits.toolOutputLimit, terminalTimeoutSec: limits.terminalTimeoutSec },
        ...(r.spec.cluster ? { conversation: input } : {}),
        ...(input.skillsStore ? { skillsStore: input.skillsStore } : {}),
        // A built-in that changes state learns its model step: a file-changing call's checkpoint is per step.
        ...(catalog ? { hash: catalog.hash } : r.spec.concurrency === 'write' ? { step: c.meter.modelCalls } : {}),
        // tool_search searches the offered tools the model is not shown (tool-view.ts); names only, the worker has the rest.
        ...(r.name === TOOL_SEARCH ? { searchable: c.toolView.hidden(c.tools, input.tools) } : {}),
        ...(r.name === 'terminal' && (input.sandbox || input.network !== undefined)
          ? { sandbox: { ...(input.sandbox ? { mode: input.sandbox } : {}), ...(input.network !== undefined ? { network: input.network } : {}) } }
          : {}),
      },
    ],
  );
}

/** The tool activity's result as the model's tool message, and its step record. */
function toolDone(c: Conversation, r: RunCall, res: ToolCallResult): ToolOutcome {
  const size = `${res.size} chars${res.truncated ? ' (truncated)' : ''}`;
  const summary = `${shortArgs(r.args)} → ${res.ok ? 'ok' : 'error'}, ${size}${res.redactions ? `, ${res.redactions} secret(s) redacted` : ''}`;
  const checkpoint = res.checkpoint ? { checkpoint: res.checkpoint } : {};
  c.record({ kind: 'tool', name: r.name, summary, ok: res.ok, ...c.meter.redacted(res.redactions), ...checkpoint });
  const found = r.name === TOOL_SEARCH && res.found?.length ? { found: res.found } : {};
  return { content: toolMessageContent(res.content, r.name, r.repairedFrom, c.limits.toolOutputLimit), kind: res.ok ? 'ok' : 'error', ...found };
}

/** A tool activity that failed or was cancelled: the model's result says what is known; a cancellation of ours goes up. */
function toolFailed(c: Conversation, r: RunCall, err: unknown): ToolOutcome {
  if (isCancellation(err) && c.stop.reason) {
    c.record({ kind: 'tool', name: r.name, summary: `${shortArgs(r.args)} → cancelled`, ok: false });
    return { content: cancelledRunning(c.stop.cause()), kind: 'cut' };
  }
  // A cancellation this conversation asked for goes up; one it did not is the worker's: it shut down and stopped
  // the tool when its grace period ran out (a tool that reports this as its result does not get here).
  const shutDown = isCancellation(err) && !CancellationScope.current().consideredCancelled;
  if (isCancellation(err) && !shutDown) throw err;
  const f = describeFailure(err);
  const content = shutDown
    ? unknownOutcome(r.name, 'the worker running it shut down before it finished')
    : f.timedOut && !r.spec.idempotent
      ? unknownOutcome(r.name, 'the worker running it stopped responding')
      : `Error: ${r.name} could not run: ${f.message}`;
  c.record({ kind: 'tool', name: r.name, summary: content.split('\n')[0]!, ok: false });
  return { content, kind: 'error' };
}

async function runInternal(c: Conversation, r: RunCall): Promise<ToolOutcome> {
  switch (r.name) {
    case 'todo': {
      const args = r.args as { todos: TodoUpdate[]; merge?: boolean };
      const done = c.todo.update(args.todos, Boolean(args.merge));
      if (done.ok) c.record({ kind: 'tool', name: 'todo', summary: `${c.todo.items.length} item(s)`, ok: true });
      return { content: done.text, kind: done.ok ? 'ok' : 'error' };
    }
    case 'clarify': {
      const args = r.args as { question: string; choices?: string[] };
      c.record({ kind: 'tool', name: 'clarify', summary: args.question.slice(0, 80), ok: true });
      const answer = await askClarify(c, r.call.id, args.question, args.choices);
      if (answer !== STOPPED) return { content: answer, kind: 'ok' };
      return { content: cancelledRunning(c.stop.cause()), kind: 'cut' };
    }
    case DELEGATE_TASK: {
      const { content, cut, ok } = await delegate(c, r.call.id, r.args as DelegateArgs);
      c.record({ kind: 'tool', name: DELEGATE_TASK, summary: content.split('\n')[0]!, ok });
      return { content, kind: cut ? 'cut' : ok ? 'ok' : 'error' };
    }
    default:
      return { content: `Error: ${r.name} is not available here.`, kind: 'error' };
  }
}
