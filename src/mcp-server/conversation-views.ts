// What the tools say about a conversation: the parts of its live state a client acts on, its result once it
// has ended, and the next call that helps (answer_question, approve, task_result again).
import type { ConversationResult, ConversationState, TurnResult } from '../shared/contract';

export function stateView(id: string, s: ConversationState): Record<string, unknown> {
  return {
    id,
    status: s.status,
    mode: s.mode,
    turn: s.turn,
    iteration: s.iteration,
    maxIterations: s.maxIterations,
    waitingFor: s.waitingFor,
    pendingQuestion: s.pendingQuestion,
    pendingApprovals: s.pendingApprovals,
    usage: s.usage,
    toolCalls: s.toolCalls,
    ...(s.lastStep ? { lastStep: `${s.lastStep.kind} ${s.lastStep.name}: ${s.lastStep.summary}` } : {}),
    ...(s.todo.length ? { todo: s.todo } : {}),
    ...(s.reason ? { reason: s.reason } : {}),
    ...(s.error ? { error: s.error } : {}),
    next: nextStep(id, s),
  };
}

export function resultView(id: string, r: ConversationResult): Record<string, unknown> {
  return {
    id,
    finished: true,
    status: r.status,
    answer: r.answer,
    iterations: r.iterations,
    usage: r.usage,
    modelCalls: r.modelCalls,
    toolCalls: r.toolCalls,
    ...(r.reason ? { reason: r.reason } : {}),
    ...(r.error ? { error: r.error } : {}),
  };
}

/** A chat between turns: its latest finished turn's answer. */
export function turnView(id: string, s: ConversationState, last: TurnResult | null): Record<string, unknown> {
  return {
    ...stateView(id, s),
    finished: false,
    answer: last?.answer ?? '',
    ...(last ? { lastTurn: { turn: last.turn, status: last.status, iterations: last.iterations, usage: last.usage } } : {}),
  };
}

function nextStep(id: string, s: ConversationState): string {
  if (s.pendingQuestion) return `answer_question { "id": ${JSON.stringify(id)}, "text": "…" } answers: ${s.pendingQuestion.question}`;
  if (s.pendingApprovals.length) {
    const a = s.pendingApprovals[0]!;
    return `approve { "id": ${JSON.stringify(id)}, "callId": ${JSON.stringify(a.callId)}, "decision": "approve" | "deny" } decides: ${a.tool} ${a.command}`;
  }
  if (s.mode === 'chat' && s.status === 'idle') return 'send_message sends the next message';
  return 'task_result with waitSec waits for the answer';
}
