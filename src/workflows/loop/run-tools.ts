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
import { batchCalls, canonicalJson, planToolCalls, type PlannedCall } from '../rules/tool-plan';
import { executeTool, type RunCall, type ToolOutcome } from './execute-tool';

const MEMORY_WRITES = new Set(['add', 'replace', 'remove']);

export function runToolCalls(c: Conversation, calls: ToolCall[]): Promise<ToolRound> {
  const plan = planToolCalls(calls, c.callableTools, (name) => toolSpec(name) ?? catalogSpec(c, name));
  const outcomes = new Map<string, ToolOutcome>();
  for (const p of plan) {
    if (p.kind !== 'invalid') continue;
    // A sub-agent at the depth limit is not offered delegate_task; if it calls it anyway, it hears why.
    const refusedDelegation = p.call.function?.name === DELEGATE_TASK && !c.tools.includes(DELEGATE_TASK);
    outcomes.set(p.call.id, { content: refusedDelegation ? delegationUnavailable(c) : p.content, kind: 'invalid' });
  }
  const runs = plan.filter((p): p is RunCall => p.kind === 'run');
  // The usual step, one call to run: its `then` makes the round (an async function awaiting it would make two
  // promises more, each with a stack trace from the SDK's promise hook).
  if (runs.length === 1 && !c.stop.reason) {
    const only = runs[0]!;
    return executeTool(c, only).then((out) => {
      outcomes.set(only.call.id, out);
      return round(c, plan, runs, outcomes);
    });
  }
  return runBatches(c, runs, outcomes).then(() => round(c, plan, runs, outcomes));
}

/** Reads together, writes one at a time; once a stop came, the rest are cut before they start. */
async function runBatches(c: Conversation, runs: RunCall[], outcomes: Map<string, ToolOutcome>): Promise<void> {
  for (const batch of batchCalls(runs)) {
    if (c.stop.reason) {
      for (const r of batch) outcomes.set(r.call.id, { content: cancelledBeforeStart(c.stop.cause()), kind: 'cut' });
      continue;
    }
    // Runs in the turn's stoppable stretch: a stop cuts these calls short and each reports it as its result.
    if (batch.length === 1) outcomes.set(batch[0]!.call.id, await executeTool(c, batch[0]!));
    else await Promise.all(batch.map(async (r) => outcomes.set(r.call.id, await executeTool(c, r))));
  }
}

/** One tool message per call in the model's order, and what the stop conditions need of the round. */
function round(c: Conversation, plan: PlannedCall[], runs: RunCall[], outcomes: Map<string, ToolOutcome>): ToolRound {
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
