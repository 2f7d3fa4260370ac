// Rebuilds an older context version for `hermes inspect --step N`. The workflow keeps only its current context;
// a prune (context overflow, or shedding size before continue-as-new) replaced old tool outputs with stubs and
// bumped the version. Everything needed to undo that is in the history: each tool activity's result, and each
// model step's reference {version, count, digest}. The stubs are filled back in from the results, the prunes are
// replayed with the workflow's own pure function at the point that reproduces the next version's digest, and the
// answer is returned only if it matches the target step's digest — exact, or nothing.
import { extendDigest } from './shared/digest';
import type { ChatMessage, ModelCallInput, ToolCallInput, ToolCallResult } from './shared/types';
import { PRUNED_STUB, pruneToolOutputs, toolMessageContent } from './workflows/context-ops';

/** The keepTail the workflow prunes with (Conversation.pruneOldToolOutputs). */
const KEEP_TAIL = 6;

export interface RebuildStep {
  context: ModelCallInput['context'];
}

export interface ToolRun {
  input: ToolCallInput;
  result?: ToolCallResult;
}

const digestOf = (messages: ChatMessage[]) => extendDigest('', messages);

/** Current messages with every stub replaced by the tool message the model originally read. */
export function restoreStubs(current: ChatMessage[], tools: ToolRun[]): ChatMessage[] {
  const byCall = new Map(tools.filter((t) => t.result).map((t) => [t.input.callId, t]));
  const calledAs = new Map<string, string>();
  for (const m of current) {
    if (m.role === 'assistant') for (const tc of m.tool_calls ?? []) calledAs.set(tc.id, tc.function.name);
  }
  return current.map((m) => {
    if (m.role !== 'tool' || !PRUNED_STUB.test(m.content)) return m;
    const run = byCall.get(m.tool_call_id);
    if (!run?.result) return m;
    const asked = calledAs.get(m.tool_call_id);
    const content = toolMessageContent(run.result.content, run.input.name, asked !== run.input.name ? asked : undefined, run.input.outputLimit);
    return { ...m, content };
  });
}

/**
 * The messages model step `steps[target]` received, or undefined when they cannot be rebuilt exactly.
 * `current` is the conversation's present context, at least `steps[target].context.count` messages long.
 */
export function rebuildContext(current: ChatMessage[], tools: ToolRun[], steps: RebuildStep[], target: number): ChatMessage[] | undefined {
  const want = steps[target]!.context;
  let msgs = restoreStubs(current.slice(0, want.count), tools);
  let version = steps[0]!.context.version;
  for (let i = 1; i <= target; i++) {
    const s = steps[i]!.context;
    if (s.version === version) continue;
    // A prune happened between step i-1 and step i, when the context had between their counts of messages.
    const from = Math.min(steps[i - 1]!.context.count, s.count);
    let next: ChatMessage[] | undefined;
    for (let at = s.count; at >= from && !next; at--) {
      const candidate = msgs.slice();
      const head = candidate.slice(0, at);
      pruneToolOutputs(head, KEEP_TAIL);
      candidate.splice(0, at, ...head);
      if (digestOf(candidate.slice(0, s.count)) === s.digest) next = candidate;
    }
    if (!next) return undefined;
    msgs = next;
    version = s.version;
  }
  const out = msgs.slice(0, want.count);
  return digestOf(out) === want.digest ? out : undefined;
}
