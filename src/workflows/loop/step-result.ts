// What one step of the loop returns to the turn (turn.ts), which alone appends to the transcript and decides
// whether to stop (stop-conditions.ts). A leaf module: types only.
import type { ChatMessage, ToolCall } from '../../shared/wire';

/** What the model's reply asks for (model-step.ts). The messages are for the turn to append. */
export type ModelReply =
  | { kind: 'answer'; message: ChatMessage; text: string }
  /** `dropped`: calls past MAX_TOOL_CALLS_PER_REPLY, not run (the model hears it with the results). */
  | { kind: 'tools'; message: ChatMessage; calls: ToolCall[]; dropped?: number }
  /** No text and no tool calls. */
  | { kind: 'empty' }
  /** A tool call written as text that could not be read: never an answer; the correction goes back to the model. */
  /**
   * `why`: a reply without calls that repeats the runtime's instructions, or that holds a tool result though no
   * tool has run (echo-check.ts).
   */
  | { kind: 'unreadable'; message: ChatMessage; correction: string; why?: 'echo' | 'made-up result' }
  /**
   * Asked once more (`nudge`), the reply kept in the context, not counted as an invalid call: a small model's answer
   * before any tool ran, a reply that only repeats a tool result the conversation holds, or one that announces an
   * action without taking it (`why`).
   */
  | { kind: 'recheck'; message: ChatMessage; nudge: string; why: 'untooled answer' | 'repeated result' | 'announced action' | 'answer format' }
  | { kind: 'fail'; reason: string; error: string };

/** A tool call that ran to its end (not cut short): what the repetition check compares. */
export interface RanCall {
  name: string;
  /** Canonical JSON of the arguments. */
  argsKey: string;
  content: string;
  /** The call as the stop reason names it: tool and short arguments. */
  label: string;
}

/** One tool round's results (run-tools.ts): one tool message per call, in the model's order. */
export interface ToolRound {
  messages: ChatMessage[];
  /** Per call in the model's order: whether it named an offered tool with valid arguments. */
  valid: boolean[];
  ran: RanCall[];
  lastName: string;
  /** What tool_search calls found: shown to the model from the next step on. */
  found: string[];
  /** A memory call that changed memory succeeded: the next chat turn's system prompt recalls it. */
  wroteMemory: boolean;
}

/** A step as the stop conditions count it. */
export type StepResult =
  { kind: 'none' } | { kind: 'empty' } | { kind: 'unreadable' } | ({ kind: 'tools' } & Pick<ToolRound, 'valid' | 'ran' | 'lastName'>);
