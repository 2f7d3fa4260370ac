// Session search's index: at the end of each turn a conversation files a bounded, redacted summary of its turns —
// readable in its memo, as normalized words in the HermesSummary search attribute (src/shared/session-summary.ts) —
// under its scope (HermesScope), so the visibility store's full-text index finds it (src/sessions/search.ts). No activity, no event of its own beyond
// the upsert: the text comes from the transcript and the turn's outcome, both already in the workflow.
import { workflowInfo } from '@temporalio/workflow';
import { HermesEncryption, HermesSummary } from '../../shared/search-attributes';
import { searchScopeOf, SUMMARY_MEMO, turnSummary } from '../../shared/session-summary';
import type { Conversation } from '../state/conversation-state';
import type { Transcript } from '../state/transcript';
import type { TurnOutcome } from './turn-outcome';

export function fileTurnSummary(c: Pick<Conversation, 'input' | 'board' | 'transcript'>, outcome: TurnOutcome): void {
  // A sub-agent's work is its parent's turn. Search attributes are stored in clear (no codec): a conversation whose
  // client encrypts payloads (HermesEncryption, set at start) keeps its text out of them.
  if (c.input.parent) return;
  const info = workflowInfo();
  const sa = info.typedSearchAttributes;
  if (sa.get(HermesEncryption)) return;
  // An empty answer is said, so the summary of a stop that gave none does not read like a finished turn.
  const answer = outcome.answer.trim() ? outcome.answer : `(no answer: ${outcome.status})`;
  c.board.publishSummary(turnSummary(previousSummary(info), turnPrompt(c.transcript), answer), searchScopeOf(c.input));
}

/**
 * The readable summary so far: the memo's (continue-as-new carries the memo over, as it does the search attributes),
 * else the attribute's, which a run filed before the memo held it (words only, or the old readable text).
 */
function previousSummary(info: ReturnType<typeof workflowInfo>): string | undefined {
  const memo = info.memo?.[SUMMARY_MEMO];
  return typeof memo === 'string' ? memo : info.typedSearchAttributes.get(HermesSummary);
}

/** The turn's request: its first user message (a task's prompt, a chat turn's message). */
function turnPrompt(t: Transcript): string {
  const m = t.messages;
  for (let i = t.turnStart; i < m.length; i++) {
    const msg = m[i]!;
    if (msg.role === 'user') return msg.content;
  }
  return '';
}
