// Rebuilds an older context version for `hermes inspect --step N`. The workflow keeps only its current context;
// a prune (context overflow, or shedding size before continue-as-new) replaced old tool outputs with stubs and
// bumped the version. Everything needed to undo that is in the history: each tool activity's result, each model
// step's reference {version, count, digest}, and the calls themselves (for what the workflow wrote). The stubs
// are filled back in, the prunes are replayed with the workflow's own pure function at the point that
// reproduces the next version's digest, and the answer is returned only if it matches the target step's
// digest — exact, or nothing.
import { extendDigest } from './shared/digest';
import type { ChatMessage, ModelCallInput, TodoItem, ToolCallInput, ToolCallResult } from './shared/types';
import { toolSpec } from './tools/registry';
import { PRUNED_STUB, pruneToolOutputs, toolMessageContent } from './workflows/context-ops';
import { duplicateResult } from './workflows/prompts';
import { applyTodo, formatTodo } from './workflows/todo';
import { planToolCalls } from './workflows/tool-calls';

/** The keepTail the workflow prunes with (Conversation.pruneOldToolOutputs). */
const KEEP_TAIL = 6;

export interface RebuildStep {
  context: ModelCallInput['context'];
  /** Tools offered at the step (the conversation's tools; none for a grace call). */
  tools: string[];
}

export interface ToolRun {
  input: ToolCallInput;
  result?: ToolCallResult;
}

const digestOf = (messages: ChatMessage[]) => extendDigest('', messages);

/**
 * Current messages with every stub replaced by the tool message the model originally read. Tool activities'
 * results come from the history; what the workflow wrote itself is derived the way it did: invalid calls and
 * duplicates from the tool-call plan, `todo` results by replaying the list. (A `clarify` answer is not
 * rebuilt: the digest check then reports the step as not rebuildable.)
 */
export function restoreStubs(current: ChatMessage[], tools: ToolRun[], offered: string[]): ChatMessage[] {
  // Everything in order, per call id: some providers reuse ids across messages ("call_0" every time).
  const runs = new Map<string, ToolRun[]>();
  for (const t of tools) runs.set(t.input.callId, [...(runs.get(t.input.callId) ?? []), t]);
  const contents = new Map<string, Array<string | undefined>>();
  let todo: TodoItem[] = [];
  for (const m of current) {
    if (m.role !== 'assistant' || !m.tool_calls?.length) continue;
    const plan = planToolCalls(m.tool_calls, offered, toolSpec);
    const mine = new Map<string, string | undefined>(); // ids are unique within a message
    for (const p of plan) {
      if (p.kind === 'invalid') mine.set(p.call.id, p.content);
      if (p.kind !== 'run') continue;
      const run = p.spec.internal ? undefined : runs.get(p.call.id)?.shift();
      if (run?.result) {
        mine.set(p.call.id, toolMessageContent(run.result.content, run.input.name, p.repairedFrom, run.input.outputLimit));
      } else if (p.name === 'todo') {
        const args = p.args as { todos: Parameters<typeof applyTodo>[1]; merge?: boolean };
        const { list, error } = applyTodo(todo, args.todos, Boolean(args.merge));
        todo = list;
        mine.set(p.call.id, error ? `Error: ${error}` : formatTodo(list));
      }
    }
    for (const p of plan) {
      if (p.kind === 'duplicate') mine.set(p.call.id, `${duplicateResult(p.of)}\n${mine.get(p.of) ?? ''}`);
    }
    for (const p of plan) contents.set(p.call.id, [...(contents.get(p.call.id) ?? []), mine.get(p.call.id)]);
  }
  return current.map((m) => {
    if (m.role !== 'tool') return m;
    const content = contents.get(m.tool_call_id)?.shift(); // consumed by every tool message, to stay aligned
    return PRUNED_STUB.test(m.content) && content !== undefined ? { ...m, content } : m;
  });
}

/**
 * The messages model step `steps[target]` received, or undefined when they cannot be rebuilt exactly.
 * `current` is the conversation's present context, at least `steps[target].context.count` messages long.
 */
export function rebuildContext(current: ChatMessage[], tools: ToolRun[], steps: RebuildStep[], target: number): ChatMessage[] | undefined {
  const want = steps[target]!.context;
  const offered = steps.find((s) => s.tools.length)?.tools ?? [];
  let msgs = restoreStubs(current.slice(0, want.count), tools, offered);
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
