// The contract between client, worker and workflow. Plain JSON only: everything here crosses a Temporal
// boundary (activity input/result, continue-as-new, queries) and must survive JSON round trips.

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  costUsd: number;
}

export type RunStatus =
  | 'running'
  | 'waiting'
  | 'idle'
  | 'completed'
  | 'budget_exhausted'
  | 'interrupted'
  | 'stopped_repeating'
  | 'failed'
  | 'cancelled';

/** Limits of one conversation. All optional on input; defaults live in src/shared/defaults.ts. */
export interface Limits {
  maxIterations: number;
  /** Characters of one tool result that enter the history; the rest is saved to the workspace. */
  toolOutputLimit: number;
  /** Default timeout of the terminal tool, in seconds. */
  terminalTimeoutSec: number;
  /** Backstops for continue-as-new when the server does not suggest it: history events and bytes. */
  maxHistoryEvents: number;
  maxHistoryBytes: number;
  /** Heartbeat timeout of tool activities: how fast a dead worker is noticed. */
  toolHeartbeatSec: number;
  /** Heartbeat timeout of model calls (they heartbeat every 0.5 s while waiting for the endpoint). */
  modelHeartbeatSec: number;
  /** Attempts per model call before the failure counts (then: fallback profile, or the run fails). */
  modelMaxAttempts: number;
  /** Total tokens for the conversation; 0 = no limit. */
  maxTokens: number;
  /** Total cost in USD (prices per model profile); 0 = no limit. */
  maxCostUsd: number;
  /** Wall-clock time for the conversation, seconds (a durable timer); 0 = no limit. */
  maxDurationSec: number;
  /** How long a clarify question waits for an answer. */
  clarifyTimeoutSec: number;
  /** How long a dangerous command waits for approval before it is denied. */
  approvalTimeoutSec: number;
  /** Chat mode: the conversation ends after this long without a message. */
  idleTimeoutSec: number;
}

export type ApprovalMode = 'ask' | 'deny' | 'allow';
export type BusyPolicy = 'queue' | 'reject' | 'interrupt';

export interface TodoItem {
  id: string;
  content: string;
  status: 'pending' | 'in_progress' | 'completed' | 'cancelled';
}

export interface PendingQuestion {
  callId: string;
  question: string;
  choices?: string[];
}

export interface PendingApproval {
  callId: string;
  tool: string;
  command: string;
  reason: string;
  pattern: string;
}

export interface InterruptArgs {
  reason?: string;
  /** When present, becomes the next user message and the loop goes on ("redirect"). */
  message?: string;
}

export interface AnswerArgs {
  text: string;
}

export interface ApproveArgs {
  callId: string;
  decision: 'approve' | 'deny';
  /** Approve the same command pattern for the rest of the conversation. */
  remember?: boolean;
}

export interface SendArgs {
  text: string;
}

export interface TurnResult {
  turn: number;
  status: RunStatus;
  answer: string;
  reason?: string;
  iterations: number;
  usage: Usage;
}

export interface BudgetView {
  used: number;
  limit: number;
  left: number;
}

export interface ConversationInput {
  prompt: string;
  /** Model profile name (see src/llm/profiles.ts); default: the worker's default profile. */
  model?: string;
  /** Profile to switch to when the model stays unavailable after its retries. */
  fallbackModel?: string;
  /** Workspace directory for file and terminal tools; default: the worker's HERMES_WORKSPACE. */
  workspace?: string;
  /** Toolsets offered to the model; default: all registered tools. */
  tools?: string[];
  /** Extra system prompt text. */
  system?: string;
  limits?: Partial<Limits>;
  /** 'task' (default) ends after the answer; 'chat' stays open for `send` updates. */
  mode?: 'task' | 'chat';
  /** Started by a schedule: nobody can answer questions or approve, so clarify is off and approvals deny. */
  scheduled?: boolean;
  /** What happens when a tool needs approval: ask a human (default), deny, or allow. */
  approvalMode?: ApprovalMode;
  /** Chat mode: what a `send` does while a turn runs. */
  busyPolicy?: BusyPolicy;
  /** Upsert HermesStatus/HermesWaitingFor (needs them registered; the worker and dev server do). */
  searchAttributes?: boolean;
  /** Internal: state carried over by continue-as-new. */
  carried?: CarriedState;
}

/** What continue-as-new carries forward: everything the next run needs to behave as if nothing happened. */
export interface CarriedState {
  messages: ChatMessage[];
  contextVersion: number;
  iteration: number;
  usage: Usage;
  modelCalls: number;
  toolCalls: number;
  steps: StepRecord[];
  repeat: RepeatState;
  runs: number;
  emptyStreak: number;
  profile?: string;
  todo: TodoItem[];
  approvedPatterns: string[];
  warned: string[];
  startedAtMs: number;
  turn: number;
  turnStartIteration: number;
  inbox: string[];
  turnResults: TurnResult[];
  /** A turn was running when the run continued-as-new: the next run resumes it. */
  turnInProgress?: boolean;
  turnStartMessage?: number;
  ended?: boolean;
}

export interface RepeatState {
  /** Signatures of the last tool steps, newest last (bounded). */
  recent: string[];
  warned: boolean;
}

export interface StepRecord {
  step: number;
  kind: 'model' | 'tool' | 'grace' | 'note';
  name: string;
  summary: string;
  ok: boolean;
}

export interface ConversationResult {
  status: RunStatus;
  answer: string;
  /** Stable failure type when status is `failed` (e.g. ModelAuth). */
  reason?: string;
  error?: string;
  usage: Usage;
  iterations: number;
  modelCalls: number;
  toolCalls: number;
  runs: number;
}

export interface ConversationState {
  status: RunStatus;
  iteration: number;
  maxIterations: number;
  iterationsLeft: number;
  usage: Usage;
  modelCalls: number;
  toolCalls: number;
  messages: number;
  contextVersion: number;
  runs: number;
  mode: 'task' | 'chat';
  turn: number;
  waitingFor: 'clarify' | 'approval' | 'message' | null;
  budgets: { iterations: BudgetView; tokens: BudgetView | null; costUsd: BudgetView | null; seconds: BudgetView | null };
  todo: TodoItem[];
  pendingQuestion: PendingQuestion | null;
  pendingApprovals: PendingApproval[];
  lastStep?: StepRecord;
  recentSteps: StepRecord[];
}

/** Reference to the context a model call must see: the workflow stays the single source of truth. */
export interface ContextRef {
  version: number;
  /** Number of messages, from the start, that make up the context. */
  count: number;
  /** extendDigest of messages[0..count): lets the activity verify a context it rebuilt itself. */
  digest?: string;
}

export interface ModelCallInput {
  context: ContextRef;
  profile?: string;
  /** Tool names offered to the model; empty = no tools (e.g. the grace call). */
  tools: string[];
  step: number;
}

export interface ModelCallResult {
  message: { content: string | null; tool_calls?: ToolCall[] };
  usage: Usage;
  finishReason: string;
  model: string;
  /** True when tool calls were recovered from text (fenced JSON or <tool_call> tags). */
  parsedFromText?: boolean;
}

export interface ToolCallInput {
  callId: string;
  name: string;
  args: Record<string, unknown>;
  workspace?: string;
  outputLimit: number;
  terminalTimeoutSec: number;
}

export interface ToolCallResult {
  ok: boolean;
  content: string;
  /** Characters of the untruncated output. */
  size: number;
  truncated: boolean;
}

export interface ContextQueryArgs {
  version: number;
  from: number;
  to: number;
}

export interface ContextSlice {
  version: number;
  messages: ChatMessage[];
}

/**
 * Replaces tool-call arguments too large to record in history (the model activity caps them); the workflow
 * answers such a call with an error instead of running it.
 */
export const TOO_LARGE_MARKER = '\u0000hermes:too-large:';
