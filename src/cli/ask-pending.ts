// A pending clarify question or approval asked inline on the terminal (by the step follower of run and chat).
import type { ConversationHandle } from '../client';
import type { ConversationState } from '../shared/contract';
import type { LineSource } from './line-queue';

/**
 * Asks a pending question or approval, once per call id (`asked`). Returns when nothing more is pending or
 * the user has answered; rejects with an AbortError when `signal` aborts a question still on the screen.
 */
export async function promptPending(
  handle: ConversationHandle,
  s: ConversationState,
  rl: LineSource,
  asked: Set<string>,
  signal?: AbortSignal,
): Promise<void> {
  const q = s.pendingQuestion;
  if (q && !asked.has(q.callId)) {
    asked.add(q.callId);
    const choices = q.choices?.length ? `\n  ${q.choices.map((c, i) => `${i + 1}) ${c}`).join('\n  ')}` : '';
    const text = (await ask(rl, `\n? ${q.question}${choices}\n> `, signal)).trim();
    const picked = q.choices && /^\d+$/.test(text) ? (q.choices[Number(text) - 1] ?? text) : text;
    await handle.answer(picked || '(no answer)').then(
      (r) => r.redaction && process.stderr.write(`hermes: ${r.redaction.notice}\n`),
      (e: Error) => process.stderr.write(`answer rejected: ${e.message}\n`),
    );
  }
  for (const a of s.pendingApprovals) {
    // A sub-agent's call (listed here when the run lets children ask) may share its id with another's.
    const key = a.child ? `${a.child.workflowId}/${a.callId}` : a.callId;
    if (asked.has(key)) continue;
    asked.add(key);
    const who = a.child ? `sub-agent ${a.child.workflowId} (${a.child.goal.split('\n')[0]!.slice(0, 80)}): ` : '';
    const reply = (await ask(rl, `\n! ${who}${a.tool} wants to run: ${a.command}\n  (${a.reason}) approve? [y]es / [N]o / [a]lways: `, signal))
      .trim()
      .toLowerCase();
    const decision = reply === 'y' || reply === 'yes' || reply === 'a' || reply === 'always' ? 'approve' : 'deny';
    await handle
      .approve(a.callId, decision, reply.startsWith('a'), a.child?.workflowId)
      .catch((e: Error) => process.stderr.write(`decision rejected: ${e.message}\n`));
  }
}

function ask(rl: LineSource, query: string, signal?: AbortSignal): Promise<string> {
  return signal ? rl.question(query, { signal }) : rl.question(query);
}
