// Recalled memory in the system prompt: at the start of a conversation that offers the memory tool, a snapshot of
// its memory scope is taken by a local activity (recorded in history as one marker, so a replay builds the same
// prompt) and appended to the system prompt as a fenced block (memoryBlock). A chat turn that follows a turn
// with a successful memory write takes a fresh snapshot first.
import { memoryBlock, memoryScopeOf } from '../shared/memory';
import type { ChatMessage } from '../shared/wire';
import { localActs, localActsOptions } from './activities';
import type { Conversation } from './state';
import { since } from './release';
import { CONVERSATION_HEADING } from './prompts';
import { emptyMemoryBlock } from './system-prompt';

/** Patch id: the memory tool is in the default tools, and conversations that offer it recall their memory scope. */
export const MEMORY = 'memory';

const BLOCK_START = '\n\n<memory-context ';
const BLOCK_END = '</memory-context>';
const BUILT_BLOCK_START = `\n\n${CONVERSATION_HEADING}\n<memory-context `;

/** Start of a conversation (not a continued run: its system prompt is carried). */
export async function recallMemory(c: Conversation): Promise<void> {
  const block = await snapshot(c);
  if (block) setMemoryBlock(c.messages, block);
}

/** Before a chat turn: when the previous turn wrote memory, the system prompt gets the new snapshot. */
export async function refreshMemoryAfterWrite(c: Conversation): Promise<void> {
  if (!wroteMemory(c.messages, c.turnStartMessage) || !since(MEMORY)) return;
  const block = await snapshot(c);
  const next = c.messages.slice();
  if (setMemoryBlock(next, block, memoryScopeOf(c.input))) {
    // An earlier message changed: a new context version (workers drop the context they cached), and the old one
    // stays answerable to the `context` query, so `hermes inspect` shows earlier steps as the model saw them.
    c.rewriteContext(next);
    c.note('memory', 'the system prompt has the memory written in the last turn');
  }
}

async function snapshot(c: Conversation): Promise<string> {
  const scope = memoryScopeOf(c.input);
  try {
    const view = await localActs.recallMemory.executeWithOptions({ ...localActsOptions, summary: `recall memory (scope ${scope})` }, [scope]);
    return view ? memoryBlock(view) : '';
  } catch {
    // Memory is an aid: a conversation goes on without it (the failure is in the history).
    c.note('memory', `memory of scope ${scope} could not be recalled; going on without it`);
    return '';
  }
}

/**
 * Puts the block into the system prompt, replacing an earlier one. A built prompt (system-prompt.ts) has its block
 * right after CONVERSATION_HEADING, replaced in place (by the empty-scope block when memory is now empty), so the
 * caller's text stays last; older prompts have it at the end. Returns whether anything changed.
 */
export function setMemoryBlock(messages: ChatMessage[], block: string, scope?: string): boolean {
  const system = messages[0];
  if (system?.role !== 'system') return false;
  let text = system.content;
  const built = text.indexOf(BUILT_BLOCK_START);
  if (built >= 0 && scope !== undefined) {
    const from = built + BUILT_BLOCK_START.length - BLOCK_START.trimStart().length;
    const end = text.indexOf(BLOCK_END, from);
    if (end < 0) return false;
    text = text.slice(0, from) + (block || emptyMemoryBlock(scope)) + text.slice(end + BLOCK_END.length);
    if (text === system.content) return false;
    messages[0] = { role: 'system', content: text };
    return true;
  }
  const at = text.lastIndexOf(BLOCK_START);
  const end = at >= 0 ? text.indexOf(BLOCK_END, at) : -1;
  if (at >= 0 && end >= 0) text = text.slice(0, at) + text.slice(end + BLOCK_END.length);
  const next = block ? `${text}\n\n${block}` : text;
  if (next === system.content) return false;
  messages[0] = { role: 'system', content: next };
  return true;
}

const WRITES = new Set(['add', 'replace', 'remove']);
const FAILED = /^(\(called as [^\n]*\n)?Error:/;

/** Whether messages[from..] hold a memory tool call that wrote (add/replace/remove) and did not fail. */
export function wroteMemory(messages: ChatMessage[], from: number): boolean {
  const writes = new Set<string>();
  for (let i = Math.max(0, from); i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'assistant') {
      for (const tc of m.tool_calls ?? []) if (tc.function.name === 'memory' && WRITES.has(actionOf(tc.function.arguments))) writes.add(tc.id);
    } else if (m.role === 'tool' && writes.has(m.tool_call_id) && !FAILED.test(m.content)) {
      return true;
    }
  }
  return false;
}

function actionOf(args: string): string {
  try {
    const v = JSON.parse(args) as { action?: unknown };
    return typeof v.action === 'string' ? v.action : '';
  } catch {
    return '';
  }
}
