// Recalled memory in the system prompt: the prompt built at a conversation's start holds a snapshot of its memory
// scope (system-prompt-step.ts). A chat turn that follows a turn with a successful memory write takes a fresh snapshot
// first (a local activity, recorded in history as one marker, so a replay builds the same prompt).
import { memoryBlock, memoryScopeOf } from '../../shared/memory';
import type { ChatMessage } from '../../shared/wire';
import { localActivities, localActivityOptions } from '../engine/activity-options';
import { isCancellation } from '@temporalio/workflow';
import type { Conversation } from '../state/conversation-state';
import { describeFailure } from '../engine/failures';
import { CONVERSATION_HEADING } from '../../shared/texts';
import { emptyMemoryBlock } from '../../shared/system-prompt';

const BLOCK_START = '\n\n<memory-context ';
const BLOCK_END = '</memory-context>';
const BUILT_BLOCK_START = `\n\n${CONVERSATION_HEADING}\n<memory-context `;

/** Before a chat turn: when the previous turn wrote memory, the system prompt gets the new snapshot. */
export async function refreshMemoryAfterWrite(c: Conversation): Promise<void> {
  if (!c.chat.takeMemoryChange()) return;
  const block = await snapshot(c);
  const next = c.transcript.messages.slice();
  if (setMemoryBlock(next, block, memoryScopeOf(c.input))) {
    // An earlier message changed: a new context version (workers drop the context they cached), and the old one
    // stays answerable to the `context` query, so `hermes inspect` shows earlier steps as the model saw them.
    c.transcript.rewrite(next);
    c.note('memory', 'the system prompt has the memory written in the last turn');
  }
}

async function snapshot(c: Pick<Conversation, 'input' | 'note'>): Promise<string> {
  const scope = memoryScopeOf(c.input);
  try {
    const view = await localActivities.recallMemory.executeWithOptions({ ...localActivityOptions, summary: `recall memory (scope ${scope})` }, [
      scope,
    ]);
    return view ? memoryBlock(view) : '';
  } catch (err) {
    if (isCancellation(err)) throw err;
    // Memory is an aid: a conversation goes on without it (the failure is in the history).
    c.note('memory', `memory of scope ${scope} could not be recalled (${describeFailure(err).message}); going on without it`);
    return '';
  }
}

/**
 * Puts the block into the system prompt in place of the earlier one: the built prompt (system-prompt.ts) has it
 * right after CONVERSATION_HEADING (the empty-scope block when memory is now empty), so the caller's text stays
 * last. Returns whether anything changed.
 */
export function setMemoryBlock(messages: ChatMessage[], block: string, scope: string): boolean {
  const system = messages[0];
  if (system?.role !== 'system') return false;
  const text = system.content;
  const built = text.indexOf(BUILT_BLOCK_START);
  if (built < 0) return false;
  const from = built + BUILT_BLOCK_START.length - BLOCK_START.trimStart().length;
  const end = text.indexOf(BLOCK_END, from);
  if (end < 0) return false;
  const next = text.slice(0, from) + (block || emptyMemoryBlock(scope)) + text.slice(end + BLOCK_END.length);
  if (next === text) return false;
  messages[0] = { role: 'system', content: next };
  return true;
}
