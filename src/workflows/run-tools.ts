// Executes one assistant message's tool calls: validate, de-duplicate, batch (reads together, writes one at
// a time), run as activities, and append exactly one tool message per call, in the model's order.
import { isCancellation } from '@temporalio/workflow';
import type { ToolCallResult } from '../shared/types';
import { toolSpec } from '../tools/registry';
import { acts, onceToolOptions, retryingToolOptions } from './activities';
import { clip, shortArgs } from './context-ops';
import type { Conversation } from './conversation';
import { describeFailure } from './failures';
import { duplicateResult, loopWarning, unknownOutcome } from './prompts';
import { fingerprint, recordStep } from './repetition';
import { batchCalls, canonicalJson, planToolCalls, type PlannedCall } from './tool-calls';

type RunCall = Extract<PlannedCall, { kind: 'run' }>;

export interface ToolRoundVerdict {
  /** Set when the run must stop because the model keeps repeating itself. */
  stop?: string;
}

export async function runToolCalls(
  convo: Conversation,
  calls: import('../shared/types').ToolCall[],
): Promise<ToolRoundVerdict> {
  const plan = planToolCalls(calls, convo.tools, toolSpec);
  const results = new Map<string, string>();
  for (const p of plan) if (p.kind === 'invalid') results.set(p.call.id, p.content);

  const runs = plan.filter((p): p is RunCall => p.kind === 'run');
  for (const batch of batchCalls(runs)) {
    await Promise.all(batch.map(async (r) => results.set(r.call.id, await executeTool(convo, r))));
  }

  for (const p of plan) {
    const content =
      p.kind === 'duplicate' ? `${duplicateResult(p.of)}\n${results.get(p.of) ?? ''}` : results.get(p.call.id)!;
    convo.messages.push({ role: 'tool', tool_call_id: p.call.id, content });
    if (p.kind !== 'run') {
      convo.record({ kind: 'tool', name: p.call.function.name, summary: content.split('\n')[0]!, ok: p.kind === 'duplicate' });
    }
  }

  let warned: string | undefined;
  for (const r of runs) {
    const sig = `${r.name}:${canonicalJson(r.args)}:${fingerprint(results.get(r.call.id)!)}`;
    const verdict = recordStep(convo.repeat, sig);
    if (verdict === 'stop') return { stop: `${r.name} ${shortArgs(r.args)}` };
    if (verdict === 'warn') warned = r.name;
  }
  if (warned) {
    convo.messages.push({ role: 'user', content: loopWarning(warned) });
    convo.note('repetition', `warned the model that it is looping on ${warned}`);
  }
  return {};
}

async function executeTool(convo: Conversation, r: RunCall): Promise<string> {
  const { limits } = convo;
  const options = r.spec.idempotent
    ? retryingToolOptions(limits.toolHeartbeatSec)
    : onceToolOptions(limits.toolHeartbeatSec);
  convo.toolCalls++;
  let res: ToolCallResult;
  try {
    res = await acts.runTool.executeWithOptions({ ...options, summary: `${r.name} ${shortArgs(r.args)}` }, [
      {
        callId: r.call.id,
        name: r.name,
        args: r.args,
        workspace: convo.input.workspace,
        outputLimit: limits.toolOutputLimit,
        terminalTimeoutSec: limits.terminalTimeoutSec,
      },
    ]);
  } catch (err) {
    if (isCancellation(err)) throw err;
    const f = describeFailure(err);
    const content =
      f.timedOut && !r.spec.idempotent
        ? unknownOutcome(r.name, 'the worker running it stopped responding')
        : `Error: ${r.name} could not run: ${f.message}`;
    convo.record({ kind: 'tool', name: r.name, summary: content.split('\n')[0]!, ok: false });
    return content;
  }
  const note = r.repairedFrom ? `(called as "${r.repairedFrom}", ran ${r.name})\n` : '';
  convo.record({
    kind: 'tool',
    name: r.name,
    summary: `${shortArgs(r.args)} → ${res.ok ? 'ok' : 'error'}, ${res.size} chars${res.truncated ? ' (truncated)' : ''}`,
    ok: res.ok,
  });
  // The activity already truncated; this backstop keeps history bounded whatever the worker returns.
  return clip(note + res.content, limits.toolOutputLimit + 1_000);
}
