// Executes one assistant message's tool calls: validate, de-duplicate, batch (reads together, writes one at
// a time), run, and append exactly one tool message per call, in the model's order — also for calls that
// were refused, denied, skipped or cancelled, so call/result pairing stays valid.
import { ActivityCancellationType, isCancellation } from '@temporalio/workflow';
import type { ToolCall, ToolCallResult } from '../shared/wire';
import type { ToolSpec } from '../tools/spec';
import { approvalVerdict, DELEGATE_TASK, toolSpec } from '../tools/registry';
import { onceToolOptions, retryingToolOptions, toolActs } from './activities';
import { shortArgs, toolMessageContent } from './context-ops';
import { delegate, delegationUnavailable, type DelegateArgs } from './delegate';
import { describeFailure } from './failures';
import { MAX_INVALID_STREAK } from './limits';
import { redacted } from './model-step';
import { approvalGate, askClarify } from './human';
import { STOPPED } from './outcomes';
import { cancelledBeforeStart, cancelledRunning, duplicateResult, loopWarning, unknownOutcome } from './prompts';
import { fingerprint, recordStep } from './repetition';
import type { Conversation } from './state';
import { applyTodo, formatTodo } from './todo';
import { catalogToolSpec } from './tool-list';
import { batchCalls, canonicalJson, planToolCalls, type PlannedCall } from './tool-calls';

type RunCall = Extract<PlannedCall, { kind: 'run' }>;

export interface ToolRoundVerdict {
  /** Set when the run must stop: the model keeps repeating itself, or keeps making calls that cannot run. */
  stop?: { why: 'repeating' | 'invalid'; detail: string };
}

export async function runToolCalls(c: Conversation, calls: ToolCall[]): Promise<ToolRoundVerdict> {
  const plan = planToolCalls(calls, c.tools, (name) => toolSpec(name) ?? catalogSpec(c, name));
  const results = new Map<string, string>();
  const cut = new Set<string>();
  for (const p of plan) {
    if (p.kind !== 'invalid') continue;
    // A sub-agent at the depth limit is not offered delegate_task; if it calls it anyway, it hears why.
    const refusedDelegation = p.call.function?.name === DELEGATE_TASK && !c.tools.includes(DELEGATE_TASK);
    results.set(p.call.id, refusedDelegation ? delegationUnavailable(c) : p.content);
  }

  const runs = plan.filter((p): p is RunCall => p.kind === 'run');
  for (const batch of batchCalls(runs)) {
    if (c.stopRequested()) {
      for (const r of batch) {
        results.set(r.call.id, cancelledBeforeStart(c.stopCause()));
        cut.add(r.call.id);
      }
      continue;
    }
    // Runs in the turn's stoppable stretch: a stop cuts these calls short and each reports it as its result.
    if (batch.length === 1) results.set(batch[0]!.call.id, await executeTool(c, batch[0]!, cut));
    else await Promise.all(batch.map(async (r) => results.set(r.call.id, await executeTool(c, r, cut))));
  }

  for (const p of plan) {
    const content = p.kind === 'duplicate' ? `${duplicateResult(p.of)}\n${results.get(p.of) ?? ''}` : results.get(p.call.id)!;
    c.messages.push({ role: 'tool', tool_call_id: p.call.id, content });
    if (p.kind !== 'run') {
      c.record({ kind: 'tool', name: p.call.function.name, summary: content.split('\n')[0]!, ok: p.kind === 'duplicate' });
    }
  }

  for (const p of plan) c.invalidStreak = p.kind === 'invalid' ? c.invalidStreak + 1 : 0;
  if (c.invalidStreak >= MAX_INVALID_STREAK) {
    const last = plan[plan.length - 1]!.call.function.name;
    return { stop: { why: 'invalid', detail: `${c.invalidStreak} tool calls in a row could not run, the last one "${last}"` } };
  }

  let warned: string | undefined;
  for (const r of runs) {
    if (cut.has(r.call.id)) continue;
    const sig = `${r.name}:${canonicalJson(r.args)}:${fingerprint(results.get(r.call.id)!)}`;
    const verdict = recordStep(c.repeat, sig);
    if (verdict === 'stop') return { stop: { why: 'repeating', detail: `${r.name} ${shortArgs(r.args)}` } };
    if (verdict === 'warn') warned = r.name;
  }
  if (warned) {
    c.messages.push({ role: 'user', content: loopWarning(warned) });
    c.note('repetition', `warned the model that it is looping on ${warned}`);
  }
  return {};
}

/** Runs one call; adds its id to `cut` when a stop request cut it short. */
async function executeTool(c: Conversation, r: RunCall, cut: Set<string>): Promise<string> {
  c.toolCalls++;
  if (r.spec.internal) return runInternal(c, r, cut);
  // Most calls need no approval: skip the async gate (and its promise) for them.
  const gate = approvalVerdict(r.name, r.args).verdict === 'allow' ? undefined : await approvalGate(c, r.call.id, r.name, r.args);
  if (gate === STOPPED) {
    cut.add(r.call.id);
    return cancelledBeforeStart(c.stopCause());
  }
  if (gate !== undefined) {
    c.record({ kind: 'tool', name: r.name, summary: `${shortArgs(r.args)} → ${gate.split('\n')[0]}`, ok: false });
    return gate;
  }
  const { limits } = c;
  const catalog = toolSpec(r.name) ? undefined : c.catalogTool(r.name);
  const options = r.spec.idempotent ? retryingToolOptions(limits.toolHeartbeatSec) : onceToolOptions(limits.toolHeartbeatSec);
  if (catalog?.timeoutMs) options.startToCloseTimeout = catalog.timeoutMs;
  let res: ToolCallResult;
  try {
    const call = toolActs.runTool.executeWithOptions(
      {
        ...options,
        summary: `${r.name} ${shortArgs(r.args, 100)}`,
        // Wait until the tool has really stopped (its process group killed) before the loop moves on.
        cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
      },
      [
        {
          callId: r.call.id,
          name: r.name,
          args: r.args,
          workspace: c.input.workspace,
          outputLimit: limits.toolOutputLimit,
          terminalTimeoutSec: limits.terminalTimeoutSec,
          ...(r.spec.cluster ? { conversation: c.input } : {}),
          ...(catalog ? { hash: catalog.hash } : {}),
          ...(r.name === 'terminal' && (c.input.sandbox || c.input.network !== undefined)
            ? {
                sandbox: {
                  ...(c.input.sandbox ? { mode: c.input.sandbox } : {}),
                  ...(c.input.network !== undefined ? { network: c.input.network } : {}),
                },
              }
            : {}),
        },
      ],
    );
    res = await c.calling(`${r.name} ${shortArgs(r.args)}`, call);
  } catch (err) {
    if (isCancellation(err) && c.stopRequested()) {
      c.record({ kind: 'tool', name: r.name, summary: `${shortArgs(r.args)} → cancelled`, ok: false });
      cut.add(r.call.id);
      return cancelledRunning(c.stopCause());
    }
    if (isCancellation(err)) throw err;
    const f = describeFailure(err);
    const content =
      f.timedOut && !r.spec.idempotent
        ? unknownOutcome(r.name, 'the worker running it stopped responding')
        : `Error: ${r.name} could not run: ${f.message}`;
    c.record({ kind: 'tool', name: r.name, summary: content.split('\n')[0]!, ok: false });
    return content;
  }
  const size = `${res.size} chars${res.truncated ? ' (truncated)' : ''}`;
  const summary = `${shortArgs(r.args)} → ${res.ok ? 'ok' : 'error'}, ${size}${res.redactions ? `, ${res.redactions} secret(s) redacted` : ''}`;
  c.record({ kind: 'tool', name: r.name, summary, ok: res.ok, ...redacted(c, res.redactions) });
  return toolMessageContent(res.content, r.name, r.repairedFrom, limits.toolOutputLimit);
}

/** Planner specs of catalog tools, built once per conversation and tool. */
const catalogSpecs = new WeakMap<Conversation, Map<string, ToolSpec>>();
function catalogSpec(c: Conversation, name: string): ToolSpec | undefined {
  let specs = catalogSpecs.get(c);
  if (!specs) catalogSpecs.set(c, (specs = new Map<string, ToolSpec>()));
  if (!specs.has(name)) {
    const t = c.catalogTool(name);
    if (!t) return undefined;
    specs.set(name, catalogToolSpec(t));
  }
  return specs.get(name);
}

async function runInternal(c: Conversation, r: RunCall, cut: Set<string>): Promise<string> {
  switch (r.name) {
    case 'todo': {
      const args = r.args as { todos: Array<{ id: string; content?: string; status?: never }>; merge?: boolean };
      const { list, error } = applyTodo(c.todo, args.todos, Boolean(args.merge));
      if (error) return `Error: ${error}`;
      c.todo = list;
      c.record({ kind: 'tool', name: 'todo', summary: `${list.length} item(s)`, ok: true });
      return formatTodo(list);
    }
    case 'clarify': {
      const args = r.args as { question: string; choices?: string[] };
      c.record({ kind: 'tool', name: 'clarify', summary: args.question.slice(0, 80), ok: true });
      const answer = await askClarify(c, r.call.id, args.question, args.choices);
      if (answer !== STOPPED) return answer;
      cut.add(r.call.id);
      return cancelledRunning(c.stopCause());
    }
    case DELEGATE_TASK: {
      const { content, cut: stopped } = await delegate(c, r.call.id, r.args as DelegateArgs);
      if (stopped) cut.add(r.call.id);
      c.record({ kind: 'tool', name: DELEGATE_TASK, summary: content.split('\n')[0]!, ok: !content.startsWith('Error') });
      return content;
    }
    default:
      return `Error: ${r.name} is not available here.`;
  }
}
