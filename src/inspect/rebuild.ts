// Rebuilds an older context version for `hermes inspect --step N`. The workflow keeps only its current context;
// a prune (context overflow, or shedding size before continue-as-new) replaced old tool outputs with stubs and
// bumped the version. Everything needed to undo that is in the history: each tool activity's result, each model
// step's reference {version, count, digest}, and the calls themselves (for what the workflow wrote). The stubs
// are filled back in, the prunes are replayed with the workflow's own pure function at the point that
// reproduces the next version's digest, and the answer is returned only if it matches the target step's
// digest — exact, or nothing.
import { canonicalJson, extendDigest } from '../shared/digest';
import type { TodoItem } from '../shared/contract';
import type { ChatMessage, ModelCallInput, ToolCallInput, ToolCallResult } from '../shared/wire';
import { toolSpec } from '../tools/registry';
import { isPrunedStub, PRUNE_KEEP_TAIL, pruneToolOutputs, toolMessageContent } from '../workflows/rules/context-ops';
import { duplicateResult } from '../shared/texts';
import { applyTodo, formatTodo } from '../workflows/state/todo';
import { planToolCalls } from '../workflows/rules/tool-plan';

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

/** What the history holds besides the model steps. */
export interface HistoryFacts {
  tools: ToolRun[];
  /** Texts of accepted clarify answers, in order. */
  answers: string[];
}

/**
 * Current messages with every stub replaced by the tool message the model originally read. Tool activities'
 * results come from the history; what the workflow wrote itself is derived the way it did: invalid calls and
 * duplicates from the tool-call plan, `todo` results by replaying the list, `clarify` results from the
 * accepted answers.
 */
export function restoreStubs(current: ChatMessage[], facts: HistoryFacts, offered: string[]): ChatMessage[] {
  const { tools } = facts;
  const answers = facts.answers.slice();
  // Activities by call id, in history order. Some providers reuse ids across messages ("call_0" every time),
  // so a call takes the first unused run with its id, tool and arguments — a call that never ran takes none.
  const runs = new Map<string, ToolRun[]>();
  for (const t of tools) {
    const list = runs.get(t.input.callId);
    if (list) list.push(t);
    else runs.set(t.input.callId, [t]);
  }
  const takeRun = (id: string, name: string, args: Record<string, unknown>) => {
    const list = runs.get(id) ?? [];
    const i = list.findIndex((t) => t.input.name === name && canonicalJson(t.input.args) === canonicalJson(args));
    return i < 0 ? undefined : list.splice(i, 1)[0];
  };
  const out = current.slice();
  let todo: TodoItem[] = [];
  current.forEach((m, at) => {
    if (m.role !== 'assistant' || !m.tool_calls?.length) return;
    const plan = planToolCalls(m.tool_calls, offered, toolSpec);
    // The workflow appends one tool message per call right after the assistant message, in plan order.
    const shown = (k: number) => {
      const t = current[at + 1 + k];
      return t?.role === 'tool' && !isPrunedStub(t.content) ? t.content : undefined;
    };
    const mine = new Map<string, string | undefined>(); // ids are unique within a message
    plan.forEach((p, k) => {
      if (p.kind === 'invalid') mine.set(p.call.id, p.content);
      if (p.kind !== 'run') return;
      const run = p.spec.internal ? undefined : takeRun(p.call.id, p.name, p.args);
      if (run?.result) {
        mine.set(p.call.id, toolMessageContent(run.result.content, run.input.name, p.repairedFrom, run.input.outputLimit));
      } else if (p.name === 'todo') {
        const args = p.args as { todos: Parameters<typeof applyTodo>[1]; merge?: boolean };
        const { list, error } = applyTodo(todo, args.todos, Boolean(args.merge));
        const content = error ? `Error: ${error}` : formatTodo(list);
        // A todo call cut before it ran (an interrupt) shows something else and left the list as it was.
        const visible = shown(k);
        if (visible !== undefined && visible !== content) return;
        todo = list;
        mine.set(p.call.id, content);
      } else if (p.name === 'clarify') {
        // The result is the answer, in order; a visible result that is not the next answer (a timeout, a
        // cut wait) took none.
        const visible = shown(k);
        if (visible !== undefined && visible !== answers[0]) return;
        mine.set(p.call.id, answers.shift());
      }
    });
    for (const p of plan) {
      if (p.kind === 'duplicate') mine.set(p.call.id, `${duplicateResult(p.of)}\n${mine.get(p.of) ?? ''}`);
    }
    plan.forEach((p, k) => {
      const t = current[at + 1 + k];
      const content = mine.get(p.call.id);
      if (t?.role === 'tool' && t.tool_call_id === p.call.id && isPrunedStub(t.content) && content !== undefined) {
        out[at + 1 + k] = { ...t, content };
      }
    });
  });
  return out;
}

/**
 * The messages model step `steps[target]` received, or undefined when they cannot be rebuilt exactly.
 * `current` is the conversation's present context, at least `steps[target].context.count` messages long.
 */
export function rebuildContext(current: ChatMessage[], facts: HistoryFacts, steps: RebuildStep[], target: number): ChatMessage[] | undefined {
  const want = steps[target]!.context;
  const offered = steps.find((s) => s.tools.length)?.tools ?? [];
  let msgs = restoreStubs(current.slice(0, want.count), facts, offered);
  let version = steps[0]!.context.version;
  for (let i = 1; i <= target; i++) {
    const s = steps[i]!.context;
    if (s.version === version) continue;
    // A prune happened between step i-1 and step i, when the context had between their counts of messages.
    const from = Math.min(steps[i - 1]!.context.count, s.count);
    let next: ChatMessage[] | undefined;
    for (let at = s.count; at >= from && !next; at--) {
      const head = msgs.slice(0, at);
      pruneToolOutputs(head, PRUNE_KEEP_TAIL);
      const candidate = [...head, ...msgs.slice(at)];
      if (digestOf(candidate.slice(0, s.count)) === s.digest) next = candidate;
    }
    if (!next) return undefined;
    msgs = next;
    version = s.version;
  }
  const out = msgs.slice(0, want.count);
  return digestOf(out) === want.digest ? out : undefined;
}
