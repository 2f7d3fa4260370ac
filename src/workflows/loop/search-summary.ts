// Session search's index: at the end of each turn a conversation files a bounded, redacted summary of its turns in
// the HermesSummary search attribute (src/shared/session-summary.ts), under its scope (HermesScope), so the
// visibility store's full-text index finds it (src/sessions/search.ts). No activity, no event of its own beyond
// the upsert: the text comes from the transcript and the turn's outcome, both already in the workflow.
import { workflowInfo } from '@temporalio/workflow';
import { HermesEncryption, HermesSummary } from '../../shared/search-attributes';
import { searchScopeOf, turnSummary } from '../../shared/session-summary';
import type { Conversation } from '../state/conversation-state';
import type { TurnOutcome } from './turn-outcome';

export function fileTurnSummary(c: Conversation, outcome: TurnOutcome): void {
  // A sub-agent's work is its parent's turn. Search attributes are stored in clear (no codec): a conversation whose
  // client encrypts payloads (HermesEncryption, set at start) keeps its text out of them.
  if (c.input.parent) return;
  const sa = workflowInfo().typedSearchAttributes;
  if (sa.get(HermesEncryption)) return;
  c.board.publishSummary(turnSummary(sa.get(HermesSummary), turnPrompt(c), outcome.answer), searchScopeOf(c.input));
}

/** The turn's request: its first user message (a task's prompt, a chat turn's message). */
function turnPrompt(c: Conversation): string {
  const m = c.transcript.messages;
  for (let i = c.transcript.turnStart; i < m.length; i++) {
    const msg = m[i]!;
    if (msg.role === 'user') return msg.content;
  }
  return '';
}
