// Executes one assistant message's tool calls: validate, de-duplicate, batch (reads together, writes one at
// a time), run, and return exactly one tool message per call, in the model's order — also for calls that
// were refused, denied, skipped or cancelled, so call/result pairing stays valid. The turn appends them.
import type { ToolCall } from '../../shared/wire';
import type { ToolSpec } from '../../tools/spec';
import { DELEGATE_TASK, toolSpec } from '../../tools/registry';
import { shortArgs } from '../rules/context-ops';
import type { Conversation } from '../state/conversation-state';
import { delegationUnavailable } from '../subagents/delegate';
import { cancelledBeforeStart, duplicateResult } from '../../shared/texts';
import type { ToolRound } from './step-result';
import { catalogToolSpec } from './tool-list';
import { batchCalls, canonicalJson, planToolCalls } from '../rules/tool-plan';
import { executeTool, type RunCall, type ToolOutcome } from './execute-tool';

const MEMORY_WRITES = new Set(['add', 'replace', 'remove']);

export async function runToolCalls(c: Conversation, calls: ToolCall[]): Promise<ToolRound> {
  const plan = planToolCalls(calls, c.callableTools, (name) => toolSpec(name) ?? catalogSpec(c, name));
  const outcomes = new Map<string, ToolOutcome>();
  for (const p of plan) {
    if (p.kind !== 'invalid') continue;
    // A sub-agent at the depth limit is not offered delegate_task; if it calls it anyway, it hears why.
    const refusedDelegation = p.call.function?.name === DELEGATE_TASK && !c.tools.includes(DELEGATE_TASK);
    outcomes.set(p.call.id, { content: refusedDelegation ? delegationUnavailable(c) : p.content, kind: 'invalid' });
  }

  const runs = plan.filter((p): p is RunCall => p.kind === 'run');
  for (const batch of batchCalls(runs)) {
    if (c.stop.reason) {
      for (const r of batch) outcomes.set(r.call.id, { content: cancelledBeforeStart(c.stop.cause()), kind: 'cut' });
      continue;
    }
    // Runs in the turn's stoppable stretch: a stop cuts these calls short and each reports it as its result.
    if (batch.length === 1) outcomes.set(batch[0]!.call.id, await watchedTool(c, batch[0]!));
    else await Promise.all(batch.map(async (r) => outcomes.set(r.call.id, await watchedTool(c, r))));
  }

  const messages = plan.map((p) => {
    const content = p.kind === 'duplicate' ? `${duplicateResult(p.of)}\n${outcomes.get(p.of)?.content ?? ''}` : outcomes.get(p.call.id)!.content;
    if (p.kind !== 'run') c.record({ kind: 'tool', name: p.call.function.name, summary: content.split('\n')[0]!, ok: p.kind === 'duplicate' });
    return { role: 'tool' as const, tool_call_id: p.call.id, content };
  });
  const ran = runs.filter((r) => outcomes.get(r.call.id)!.kind !== 'cut');
  return {
    messages,
    valid: plan.map((p) => p.kind !== 'invalid'),
    ran: ran.map((r) => ({
      name: r.name,
      argsKey: canonicalJson(r.args),
      content: outcomes.get(r.call.id)!.content,
      label: `${r.name} ${shortArgs(r.args)}`,
    })),
    lastName: plan[plan.length - 1]!.call.function.name,
    found: ran.flatMap((r) => outcomes.get(r.call.id)!.found ?? []),
    wroteMemory: ran.some((r) => r.name === 'memory' && MEMORY_WRITES.has(String(r.args.action)) && outcomes.get(r.call.id)!.kind === 'ok'),
  };
}

/** A tool call between its two live events (started; finished with its outcome and duration). */
function watchedTool(c: Conversation, r: RunCall): Promise<ToolOutcome> {
  const started = Date.now();
  const base = { callId: r.call.id, name: r.name };
  c.publish({ type: 'tool.started', ...base, summary: shortArgs(r.args) });
  // A `then`, not an async function: every call pays for each promise the workflow makes (the SDK's promise hook).
  return executeTool(c, r).then((out) => {
    const summary = out.content.split('\n')[0]!.slice(0, 200);
    c.publish({ type: 'tool.finished', ...base, summary, outcome: out.kind, durationMs: Date.now() - started });
    return out;
  });
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
