// The state a conversation carries across continue-as-new: restored from `input.carried` when a run starts
// (or set up fresh for a new conversation), and handed to the next run by carriedState. JSON-plain.
import type { CarriedState, ConversationInput } from '../shared/types';
import type { Conversation } from './conversation';
import { systemPrompt } from './prompts';
import { ZERO_USAGE } from './usage';

/** What a run starts from: the previous run's carried state, or a fresh conversation. */
export type RunState = Required<Omit<CarriedState, 'profile' | 'turnInProgress'>> & {
  profile: string | undefined;
  turnPending: boolean;
};

export function restoreState(input: ConversationInput, tools: string[]): RunState {
  const c = input.carried;
  const firstPrompt = input.prompt?.trim() ? [{ role: 'user' as const, content: input.prompt }] : [];
  return {
    messages: c?.messages ?? [
      { role: 'system', content: systemPrompt({ workspace: input.workspace, tools, extra: input.system }) },
      ...firstPrompt,
    ],
    contextVersion: c?.contextVersion ?? 0,
    iteration: c?.iteration ?? 0,
    usage: c?.usage ?? ZERO_USAGE,
    modelCalls: c?.modelCalls ?? 0,
    toolCalls: c?.toolCalls ?? 0,
    steps: c?.steps ?? [],
    runs: (c?.runs ?? 0) + 1,
    emptyStreak: c?.emptyStreak ?? 0,
    repeat: c?.repeat ?? { recent: [], warned: false },
    profile: c?.profile ?? input.model,
    todo: c?.todo ?? [],
    approvedPatterns: c?.approvedPatterns ?? [],
    warned: c?.warned ?? [],
    startedAtMs: c?.startedAtMs ?? Date.now(),
    turn: c?.turn ?? (firstPrompt.length ? 1 : 0),
    turnStartIteration: c?.turnStartIteration ?? 0,
    inbox: c?.inbox ?? [],
    turnResults: c?.turnResults ?? [],
    turnStartMessage: c?.turnStartMessage ?? 0,
    ended: c?.ended ?? false,
    // A fresh chat with a prompt starts with turn 1; a continued run resumes the turn it was in.
    turnPending: c ? Boolean(c.turnInProgress) : firstPrompt.length > 0,
  };
}

/** The state handed to the next run by continue-as-new. */
export function carriedState(c: Conversation): CarriedState {
  const { messages, contextVersion, iteration, usage, modelCalls, toolCalls, steps, repeat, runs, emptyStreak, profile } = c;
  const { todo, approvedPatterns, warned, startedAtMs, turn, turnStartIteration, inbox, turnResults, turnStartMessage, ended } = c;
  return {
    ...{ messages, contextVersion, iteration, usage, modelCalls, toolCalls, steps, repeat, runs, emptyStreak, profile },
    ...{ todo, approvedPatterns, warned, startedAtMs, turn, turnStartIteration, inbox, turnResults, turnStartMessage, ended },
    turnInProgress: c.turnRunning,
  };
}
