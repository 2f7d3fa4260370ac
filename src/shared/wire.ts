// Internal wire types between the workflow and its activities, and the state continue-as-new carries. Not
// part of the public contract (src/shared/contract.ts): only this code produces and reads them. Plain JSON.
import { z } from 'zod';
import type { AnswerFormat, ClientTool, ClientToolChoice } from './client-tools';
import type { ConversationInput, PendingApproval, Usage } from './contract';

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

export interface RepeatState {
  /** Signatures of the last tool steps, newest last (bounded). */
  recent: string[];
  warned: boolean;
}

/** Reference to the context a model call must see: the workflow stays the single source of truth. */
export interface ContextRef {
  version: number;
  /** Number of messages, from the start, that make up the context. */
  count: number;
  /** extendDigest of messages[0..count): lets the activity verify a context it rebuilt itself. */
  digest?: string;
  /**
   * messages[0..count) themselves, on a run's first model call when they are small: no worker has cached any of
   * this run's context yet, so without them the call would begin with a `context` query (a round trip through the
   * server). A few KB once per run: the request and the composed system prompt (its per-conversation parts are
   * recorded at the start already).
   */
  messages?: ChatMessage[];
}

export interface ModelCallInput {
  context: ContextRef;
  profile?: string;
  /** Tool names offered to the model; empty = no tools (e.g. the grace call). */
  tools: string[];
  step: number;
  /** Asks the worker for the profile's context window (the result's `contextWindow`): set until the workflow knows it. */
  window?: true;
  /** What the call is for when it is not a step of the loop: `summary` = the context compression's summarising call. */
  purpose?: 'summary';
  /** ToolList.digest when the conversation offers tools from the worker's catalog (modules, HTTP, MCP). */
  toolList?: string;
  /** The client's tools this turn offers (src/shared/client-tools.ts), offered beside `tools`; their calls go to the client. */
  clientTools?: ClientTool[];
  /** Asked of the endpoint where its protocol can say it (native tool calls). */
  toolChoice?: ClientToolChoice;
  /** The answer's format: asked of the endpoint where it can, and checked (the result's `formatError`). */
  answerFormat?: AnswerFormat;
}

/** A tool from the worker's catalog as the workflow records it (src/tools/external.ts builds it). */
export interface ExternalToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments (type: object). */
  parameters: Record<string, unknown>;
  readOnly: boolean;
  timeoutMs?: number;
  toolset: string;
  /** Identifies this exact definition; the tool activity runs only the version with this hash. */
  hash: string;
}

/** The catalog tools one conversation offers: fetched at its start, recorded, carried by continue-as-new. */
export interface ToolList {
  tools: ExternalToolSpec[];
  /** How the requested names that are config toolsets (or catalog toolsets) expand. */
  toolsets?: Record<string, string[]>;
  /** Of the hashes: the model activity finds the list by it (or asks the workflow with the `tools` query). */
  digest: string;
}

export interface ModelCallResult {
  message: { content: string | null; tool_calls?: ToolCall[] };
  usage: Usage;
  model: string;
  /** Secrets the redactor replaced in the reply. */
  redactions?: number;
  /** The reply had no native tool_calls; message.tool_calls were recovered from its text (content then null). */
  fromText?: true;
  /** No calls, but the text looks like an attempted tool call that could not be recovered: why (content kept). */
  unparsedToolCall?: string;
  /**
   * No calls: the reply only repeats, in the results' tag, a tool result the request holds. The workflow asks for
   * it once more (REPEATED_RESULT_NUDGE); repeated right after that nudge, the activity takes it as the answer.
   */
  repeatedResult?: true;
  /**
   * The call was made in text tool-call mode (no `tools` sent; src/llm/text-mode.ts) or as a constrained step (one
   * JSON object the endpoint constrained to a call or the answer; src/llm/constrained.ts). Absent: native.
   */
  toolMode?: 'text' | 'constrained';
  /** This worker changed the profile's tool-call mode at this call, and why (the workflow notes it once). */
  modeNote?: string;
  /**
   * What a reasoning model thought before it replied (src/llm/reasoning.ts): never in message.content, never sent
   * back. `text` is an excerpt (head and tail, REASONING_KEEP_CHARS) for `hermes inspect`; `chars` the full length.
   */
  reasoning?: { text: string; chars: number };
  /** Tool calls past MAX_TOOL_CALLS_PER_REPLY that the reply held and message.tool_calls does not. */
  droppedToolCalls?: number;
  /** A reply without calls that does not have the input's `answerFormat`: why (the workflow asks once more). */
  formatError?: string;
  /** The profile's context window in tokens, when the input asked for it (`window`). */
  contextWindow?: number;
  /** Set when the call succeeded on a retry: the attempt that did, and what the earlier ones failed with. */
  attempt?: number;
  failures?: ModelAttemptFailure[];
}

export interface ModelAttemptFailure {
  type: string;
  message: string;
}

export interface ToolCallInput {
  callId: string;
  name: string;
  args: Record<string, unknown>;
  workspace?: string;
  outputLimit: number;
  terminalTimeoutSec: number;
  /** Only for tools that act on the cluster (schedules): the conversation's run config, which a task inherits. */
  conversation?: ConversationInput;
  /** The run's sandbox choice for `terminal`, when it makes one (else the worker's default). */
  sandbox?: { mode?: 'bwrap' | 'none'; network?: boolean };
  /** A catalog tool: the hash of the version the conversation recorded. */
  hash?: string;
  /** The model step that asked for the call (state-changing built-ins): a file-changing call's checkpoint is per step. */
  step?: number;
  /** tool_search: the names of the offered tools the model is not shown, which it searches. */
  searchable?: string[];
  /** The conversation's skills store, when it names one (else the worker's). */
  skillsStore?: string;
}

export interface ToolCallResult {
  ok: boolean;
  content: string;
  /** Characters of the untruncated output. */
  size: number;
  truncated: boolean;
  /** Secrets the redactor replaced before the result left the activity. */
  redactions?: number;
  /** The checkpoint of the workspace from before this call's step (src/checkpoints/): `hermes rollback --step`. */
  checkpoint?: string;
  /** tool_search: the tools it found; the workflow shows them from the next step on. */
  found?: string[];
}

export interface ContextQueryArgs {
  version: number;
  from: number;
  to: number;
}

export function contextQueryArgsSchema() {
  const n = z.number().int().min(0);
  return z.object({ version: n, from: n, to: n });
}

export interface ContextSlice {
  version: number;
  messages: ChatMessage[];
  /** Only without query arguments: how many messages there are, and where the returned tail starts. */
  count?: number;
  from?: number;
  /** The version asked for has since been rewritten (a compression): the slice is the run's copy of it. */
  archived?: true;
}

/**
 * Replaces tool-call arguments too large to record in history (the model activity caps them); the workflow
 * answers such a call with an error instead of running it.
 */
export const TOO_LARGE_MARKER = '\u0000hermes:too-large:';

/**
 * The tool calls one reply may make. Each runs as an activity, and the server fails every workflow task that
 * would leave more than 2,000 pending (the conversation wedged); the model activity keeps the first this many and
 * says how many it dropped (ModelCallResult.droppedToolCalls), and the model hears it with the results.
 */
export const MAX_TOOL_CALLS_PER_REPLY = 64;

/**
 * What a sub-agent tells its parent after every model call (the `childProgress` signal): its totals so far, so
 * the parent counts them in its budgets as they are spent. Totals, not deltas: a lost or reordered signal
 * costs nothing, and the child's result settles the account.
 */
export interface ChildProgress {
  workflowId: string;
  status: string;
  iteration: number;
  modelCalls: number;
  /** Orders reports sent after the same model call (signals may arrive out of order). */
  seq?: number;
  usage: Usage;
}

export function childProgressSchema() {
  return z.object({
    workflowId: z.string(),
    status: z.string(),
    iteration: z.number().int().min(0),
    modelCalls: z.number().int().min(0),
    seq: z.number().int().min(0).optional(),
    usage: z.object({ promptTokens: z.number(), completionTokens: z.number(), totalTokens: z.number(), costUsd: z.number() }),
  });
}

/**
 * What a sub-agent tells its parent whenever the approvals waiting in its subtree change (the `childApprovals`
 * signal): the whole list (its own, marked with its id and goal, and those its own sub-agents reported), so a
 * lost or reordered report is repaired by the next one. `runs` and `seq` order the reports.
 */
export interface ChildApprovals {
  from: string;
  runs: number;
  seq: number;
  approvals: PendingApproval[];
}

export function childApprovalsSchema() {
  const s = z.string().max(100_000);
  const approval = z.object({
    ...{ callId: s, tool: s, command: s, reason: s, pattern: s },
    child: z.object({ workflowId: s, goal: s }),
  });
  return z.object({ from: z.string(), runs: z.number().int().min(0), seq: z.number().int().min(0), approvals: z.array(approval).max(1_000) });
}
