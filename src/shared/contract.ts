// The public contract of a conversation, schema first: the workflow input, the signal and update arguments,
// the `state` query and the workflow result. The TypeScript types are derived from the schemas, and the same
// schemas check every input that reaches a conversation — from our client, the stock `temporal` CLI, the
// Web UI's "Start Workflow" or a Schedule. Plain JSON only.
//
// The schemas are built by functions, not at import: the workflow bundle's modules are instantiated once per
// cached workflow, and a conversation needs its input schema once per run (docs/design-notes.md, "Worker
// memory"). Callers outside the workflow may keep what they build.
import { z } from 'zod';
import { undecodableText, type Undecodable } from './undecodable';
import { webhookForm } from './webhook-form';

const int = (min: number, max: number) => z.number().int().min(min).max(max);
const YEAR_SEC = 365 * 24 * 3600;
/** The largest step cap a conversation may ask for (`maxIterations: 0` asks for none). */
export const MAX_ITERATIONS_CAP = 1_000_000;

export function limitsSchema() {
  return z.strictObject({
    /**
     * Model calls with tools per turn, up to 1,000,000; 0 = no step cap (a long-lived agent: stop it with
     * maxTokens, maxCostUsd or maxDurationSec instead, or not at all).
     */
    maxIterations: int(0, MAX_ITERATIONS_CAP),
    /** Characters of one tool result that enter the history; the rest is saved to the workspace. */
    toolOutputLimit: int(1_000, 200_000),
    /** Default timeout of the terminal tool, in seconds. */
    terminalTimeoutSec: int(1, 3_600),
    /** Backstops for continue-as-new when the server does not suggest it: history events and bytes. */
    maxHistoryEvents: int(40, 50_000),
    maxHistoryBytes: int(64 * 1024, 50 * 1024 * 1024),
    /** Heartbeat timeout of tool activities: how fast a dead worker is noticed. */
    toolHeartbeatSec: int(1, 600),
    /** Heartbeat timeout of model calls (they heartbeat every 0.5 s while waiting for the endpoint). */
    modelHeartbeatSec: int(1, 600),
    /** Attempts per model call before the failure counts (then: fallback profile, or the run fails). */
    modelMaxAttempts: int(1, 100),
    /** Total tokens for the conversation; 0 = no limit. */
    maxTokens: int(0, Number.MAX_SAFE_INTEGER),
    /** Total cost in USD (prices per model profile); 0 = no limit. */
    maxCostUsd: z.number().min(0).max(1_000_000),
    /** Wall-clock time for the conversation, seconds (a durable timer); 0 = no limit. */
    maxDurationSec: z.number().min(0).max(YEAR_SEC),
    /** How long a clarify question waits for an answer. */
    clarifyTimeoutSec: z.number().positive().max(YEAR_SEC),
    /** How long a dangerous command waits for approval before it is denied. */
    approvalTimeoutSec: z.number().positive().max(YEAR_SEC),
    /** Chat mode: the conversation ends after this long without a message. */
    idleTimeoutSec: z.number().positive().max(YEAR_SEC),
    /** Share of the model's context window at which the context is compressed (0.1–0.95); 0 = only on a context overflow. */
    compressAt: z.number().refine((v) => v === 0 || (v >= 0.1 && v <= 0.95), 'must be 0 (off) or between 0.1 and 0.95'),
  });
}
export type Limits = z.infer<ReturnType<typeof limitsSchema>>;

const name = () => z.string().trim().min(1).max(200);

/** Absolute on any worker OS; whether it is one of the worker's workspace roots only the worker can tell. */
function isAbsolutePath(p: string): boolean {
  return p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p);
}

const MEMORY_SCOPE = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/;
export const MEMORY_SCOPE_RULE = 'use letters, digits and . _ : / - (up to 100, starting with a letter or digit), e.g. "default" or "project-x"';
export function isMemoryScope(s: string): boolean {
  return MEMORY_SCOPE.test(s);
}

/**
 * The rule of src/shared/skills.ts, not imported from there: loaded through this module, skills.ts's imports became
 * frozen workflow state, and the credential rules could no longer reset their RegExp's lastIndex (replay failed).
 */
const SKILLS_STORE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const SKILLS_STORE_NAME_RULE = 'a skills store name is 1-100 letters, digits, . _ -, starting with a letter or digit';

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,199}$/;
export const SESSION_ID_RULE = 'use letters, digits and . _ : @ - (up to 200, starting with a letter or digit)';
export function isSessionId(s: string): boolean {
  return SESSION_ID.test(s);
}

/** A URL or `$NAME` (src/shared/webhook-form.ts): a malformed one is BadInput at the start, not a failed delivery at the end. */
function webhookField() {
  return z
    .string()
    .min(2)
    .max(2_000)
    .superRefine((v, ctx) => {
      const form = webhookForm(v);
      if ('problem' in form) ctx.addIssue({ code: 'custom', message: form.problem });
    });
}

function inputFields() {
  return {
    /** The task (task mode) or the first message (chat mode). */
    prompt: z.string().max(1_000_000).optional(),
    /** Model profile name; default: the worker's default profile. */
    model: name().optional(),
    /** Profile to switch to when the model stays unavailable after its retries. */
    fallbackModel: name().optional(),
    /** Workspace for file and terminal tools: an absolute path under the worker's HERMES_WORKSPACE_ROOTS. */
    workspace: z.string().min(1).max(4_096).refine(isAbsolutePath, 'must be an absolute path (e.g. /home/me/project)').optional(),
    /** Toolsets or tool names offered to the model; default: all. */
    tools: z.array(name()).max(200).optional(),
    /** Extra system prompt text. */
    system: z.string().max(100_000).optional(),
    /** 'task' (default) ends after the answer; 'chat' stays open for `send` updates. */
    mode: z.enum(['task', 'chat']).optional(),
    /** Started by a schedule: nobody can answer questions or approve, so clarify is off and approvals deny. */
    scheduled: z.boolean().optional(),
    /** What happens when a tool needs approval: ask a human (default), deny, or allow. */
    approvalMode: z.enum(['ask', 'deny', 'allow']).optional(),
    /** Chat mode: what a `send` does while a turn runs. */
    busyPolicy: z.enum(['queue', 'reject', 'interrupt']).optional(),
    /** Upsert HermesStatus/HermesWaitingFor (needs them registered; the worker and dev server do). */
    searchAttributes: z.boolean().optional(),
    /** Where `terminal` runs: in a bubblewrap sandbox (workspace writable, no network) or not; default: the worker's. */
    sandbox: z.enum(['bwrap', 'none']).optional(),
    /** Sandboxed commands may use the network. */
    network: z.boolean().optional(),
    /** Memory scope of the memory tool and the recalled memory (src/workflows/memory.ts); default: the model profile, else `default`. */
    memoryScope: z.string().refine(isMemoryScope, MEMORY_SCOPE_RULE).optional(),
    /** Skills store of skill_view, skill_manage and the prompt's skills list; default: the worker's (HERMES_SKILLS_STORE, else "default"). */
    skillsStore: z.string().regex(SKILLS_STORE, SKILLS_STORE_NAME_RULE).optional(),
    /** Set on the runs a Hermes task schedule starts (src/schedules/tasks.ts). */
    schedule: z
      .strictObject({
        name: name(),
        /** POST the result here: a URL, or `$NAME` for a URL in the worker's environment. */
        webhook: webhookField().optional(),
        /** This run may register tasks of its own. */
        allowSchedules: z.boolean().optional(),
      })
      .optional(),
    /**
     * POST the result here when the conversation ends (a chat: when each turn ends): a URL, or `$NAME` for a URL
     * in the worker's environment, which then never enters the history (src/workflows/delivery.ts).
     */
    webhook: webhookField().optional(),
    /** The caller's name for this conversation (e.g. `hermes serve`'s session id), reported in the webhook's payload. */
    sessionId: z.string().refine(isSessionId, SESSION_ID_RULE).optional(),
    /** Sub-agents (`delegate_task`): how many children run at once, how deep they nest, whether they may ask for approvals. */
    delegation: delegationSchema().optional(),
  };
}

export function delegationSchema() {
  return z.strictObject({
    /** Children of one conversation running at once; more wait their turn. */
    maxConcurrent: int(1, 20).optional(),
    /** How deep sub-agents nest: 0 = no delegation, 1 = children only, 2 = grandchildren too. */
    maxDepth: int(0, 5).optional(),
    /** Children may ask for approvals (else a command that needs one is denied in the child). */
    childApprovals: z.boolean().optional(),
  });
}
export type Delegation = z.infer<ReturnType<typeof delegationSchema>>;

const promptNeeded = (o: { mode?: string; prompt?: string }) => o.mode === 'chat' || Boolean(o.prompt?.trim());
const PROMPT_NEEDED = { message: 'must not be empty (a task needs a prompt)', path: ['prompt'] };
// One receiver per run: a scheduled run's is its task's.
const oneWebhook = (o: { webhook?: string; schedule?: { webhook?: string } }) => !(o.webhook && o.schedule?.webhook);
const ONE_WEBHOOK = { message: 'a scheduled run delivers to schedule.webhook: give one of the two', path: ['webhook'] };

/** The workflow's input. Unknown keys are errors, so a misspelt field is named instead of ignored. */
export function conversationInputSchema() {
  return z
    .strictObject({
      ...inputFields(),
      limits: limitsSchema().partial().optional(),
      /** Set by the workflow on the sub-agents it starts (delegate_task): whom to report usage to, and how deep this one is. */
      parent: z.strictObject({ workflowId: z.string().min(1).max(1_000), depth: int(1, 5) }).optional(),
    })
    .refine(promptNeeded, PROMPT_NEEDED)
    .refine(oneWebhook, ONE_WEBHOOK);
}
export type ConversationInput = z.infer<ReturnType<typeof conversationInputSchema>>;
export type BusyPolicy = NonNullable<ConversationInput['busyPolicy']>;

/** `Hermes.start` options: the input's fields with the limits flattened in, and the workflow id. */
export function startOptionsSchema() {
  return z
    .strictObject({
      ...inputFields(),
      ...limitsSchema().partial().shape,
      id: z.string().min(1).max(200).optional(),
      /** The Web UI's summary of the conversation (default: the prompt's first line; `hermes chat`: its first message). */
      summary: z.string().max(400).optional(),
    })
    .refine(promptNeeded, PROMPT_NEEDED)
    .refine(oneWebhook, ONE_WEBHOOK);
}
export type StartOptions = z.input<ReturnType<typeof startOptionsSchema>>;

/** Key of the value the workflow sees for a payload it could not decode (src/workflows/engine/payload-converter.ts). */
export const UNREADABLE_PAYLOAD = 'hermes:unreadable-payload';
/** Next to it when the worker's codec could not decrypt the payload: the key ids (src/shared/undecodable.ts). */
export const UNDECODABLE_PAYLOAD = 'hermes:undecodable-payload';

/** The key ids of a payload the worker could not decrypt, when `v` is its marker. */
function undecodable(v: unknown): Undecodable | undefined {
  return typeof v === 'object' && v !== null && UNDECODABLE_PAYLOAD in v
    ? ((v as Record<string, unknown>)[UNDECODABLE_PAYLOAD] as Undecodable)
    : undefined;
}

/** Why a value could not be read as JSON at all, if so: a payload of another encoding, or raw bytes. */
function unreadable(v: unknown, what = 'the payload'): string | undefined {
  if (v instanceof Uint8Array) return 'the payload is raw bytes, not JSON';
  const keys = undecodable(v);
  if (keys) return undecodableText(keys, what);
  if (typeof v === 'object' && v !== null && UNREADABLE_PAYLOAD in v)
    return `the payload could not be decoded: ${String((v as Record<string, unknown>)[UNREADABLE_PAYLOAD])}`;
  return undefined;
}

/**
 * Parses a workflow input as it arrives from any client: a bare string is the prompt (the stock CLI's
 * `--input '"fix the tests"'`, the Web UI). Never throws; the error names the fields.
 */
export function parseConversationInput(raw: unknown): { ok: true; input: ConversationInput } | { ok: false; error: string } {
  const value = typeof raw === 'string' ? { prompt: raw } : raw;
  if (value === undefined || value === null) return { ok: false, error: 'no input: expected {"prompt": "..."} or a prompt string' };
  // Encrypted with a key the worker lacks: the client is fine, the keys differ; say which.
  if (undecodable(value)) return { ok: false, error: `(input): ${unreadable(value, 'the input')}` };
  const why = unreadable(value);
  if (why) return { ok: false, error: `(input): ${why}; expected JSON: {"prompt": "..."} or a prompt string` };
  const r = sharedInputSchema().safeParse(value);
  return r.success ? { ok: true, input: r.data } : { ok: false, error: issuesText(r.error) };
}

// One input schema per module instance. preload.ts builds it while the SDK preloads this module, so all the
// workflows of a worker share it (a fresh build per run left each cached workflow's heap ~130 KiB larger).
// A module variable is not reachable from the exports, so the SDK's deep freeze of preloaded modules leaves
// it, and zod's lazy caches in it, writable: a frozen zod schema throws on the first parse of a branch.
let inputSchema: ReturnType<typeof conversationInputSchema> | undefined;
export function sharedInputSchema(): ReturnType<typeof conversationInputSchema> {
  return (inputSchema ??= conversationInputSchema());
}

/** One line per problem, each naming its field: "limits.maxIterations: Too small: expected number to be >=0". */
export function issuesText(err: z.ZodError): string {
  return err.issues.map((i) => `${i.path.length ? i.path.join('.') : '(input)'}: ${i.message}`).join('; ');
}

// --- signals, updates and the state query's argument. Each also takes a bare string where that is the
// obvious meaning, since the stock CLI and the Web UI send whatever JSON a person types.

// Not trimmed: the text reaches the model exactly as sent (and `hermes inspect` rebuilds it from the update).
const text = () =>
  z
    .string()
    .max(1_000_000)
    .refine((t) => t.trim().length > 0, 'must not be empty');
const textArgs = () => z.union([text().transform((t) => ({ text: t })), z.object({ text: text() })]);

export function interruptSchema() {
  const fields = z.object({ reason: z.string().max(10_000).optional(), message: z.string().max(1_000_000).optional() });
  return z.union([z.string().transform((message) => ({ message })), fields, z.null().transform(() => ({})), z.undefined().transform(() => ({}))]);
}
export type InterruptArgs = { reason?: string; /** Becomes the next user message; the loop goes on. */ message?: string };

export const answerSchema = textArgs;
export type AnswerArgs = { text: string };

export function approveSchema() {
  return z.object({
    callId: z.string().min(1),
    decision: z.enum(['approve', 'deny']),
    /** Approve the same command pattern for the rest of the conversation. */
    remember: z.boolean().optional(),
    /** The conversation the call belongs to (a sub-agent's approvals surface in its parent): only needed when two share a call id. */
    workflowId: z.string().min(1).max(1_000).optional(),
  });
}
export type ApproveArgs = z.infer<ReturnType<typeof approveSchema>>;

export const sendSchema = textArgs;
export type SendArgs = { text: string };

export function endSchema() {
  return z.union([z.object({ reason: z.string().max(10_000).optional() }), z.string().transform((reason) => ({ reason })), z.null(), z.undefined()]);
}

export function stateQueryArgsSchema() {
  /** Cursor: return the steps numbered above this one. */
  return z.object({ stepsAfter: z.number().int().min(0).optional() }).optional();
}
export type StateQueryArgs = { stepsAfter?: number };

/** Parses a signal's or update's arguments; throws an Error naming the fields (update validators reject with it). */
export function parseArgs<S extends z.ZodType>(schema: S, raw: unknown, what: string): z.output<S> {
  const keys = undecodable(raw);
  if (keys) throw new Error(`invalid ${what}: ${undecodableText(keys, 'the argument')}`);
  const r = schema.safeParse(raw);
  if (!r.success) throw new Error(`invalid ${what}: ${issuesText(r.error)}`);
  return r.data;
}

// --- what comes back: the `state` query and the workflow result.

export const RUN_STATUSES = [
  'running',
  'waiting',
  'idle',
  'completed',
  'budget_exhausted',
  'interrupted',
  'stopped_repeating',
  'failed',
  'cancelled',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export function usageSchema() {
  return z.object({
    promptTokens: z.number(),
    completionTokens: z.number(),
    totalTokens: z.number(),
    costUsd: z.number(),
    /** Of completionTokens, spent thinking (reasoning models; reported by the server, else estimated). Absent: none. */
    reasoningTokens: z.number().optional(),
  });
}
export type Usage = z.infer<ReturnType<typeof usageSchema>>;

export function todoItemSchema() {
  return z.object({ id: z.string(), content: z.string(), status: z.enum(['pending', 'in_progress', 'completed', 'cancelled']) });
}
export type TodoItem = z.infer<ReturnType<typeof todoItemSchema>>;

export function stepRecordSchema() {
  return z.object({
    /** This record's place in the conversation's list of steps (the `stepsAfter` cursor counts these). */
    step: z.number().int(),
    /**
     * The model step it belongs to, numbered as the history's summaries ("model step 4") and `hermes inspect
     * --step` number them: a model record is that call, tool records and notes come after it.
     */
    modelStep: z.number().int().optional(),
    kind: z.enum(['model', 'tool', 'note']),
    name: z.string(),
    summary: z.string(),
    ok: z.boolean(),
    /** Secrets the redactor replaced in this step's output before it entered the history. */
    redactions: z.number().int().optional(),
    /** A file-changing tool call: the checkpoint of the workspace from before its model step (`hermes rollback`). */
    checkpoint: z.string().optional(),
  });
}
export type StepRecord = z.infer<ReturnType<typeof stepRecordSchema>>;

function budgetViewSchema() {
  return z.object({ used: z.number(), limit: z.number(), left: z.number() });
}
export type BudgetView = z.infer<ReturnType<typeof budgetViewSchema>>;

function pendingQuestionSchema() {
  return z.object({ callId: z.string(), question: z.string(), choices: z.array(z.string()).optional() });
}
export type PendingQuestion = z.infer<ReturnType<typeof pendingQuestionSchema>>;

function pendingApprovalSchema() {
  return z.object({
    ...{ callId: z.string(), tool: z.string(), command: z.string(), reason: z.string(), pattern: z.string() },
    /** Set when a sub-agent (or its own sub-agent) asks: which one, and its goal. `approve` here routes the decision to it. */
    child: z.object({ workflowId: z.string(), goal: z.string() }).optional(),
  });
}
export type PendingApproval = z.infer<ReturnType<typeof pendingApprovalSchema>>;

/** A call of one of the client's tools (`hermes serve`, client-tools.ts) that a turn hands back to the client. */
export function clientCallSchema() {
  return z.object({ id: z.string(), name: z.string(), arguments: z.string() });
}

export function turnResultSchema() {
  return z.object({
    turn: z.number().int(),
    status: z.enum(RUN_STATUSES),
    answer: z.string(),
    reason: z.string().optional(),
    iterations: z.number().int(),
    usage: usageSchema(),
    delivery: deliveryNoteSchema().optional(),
  });
}
export type TurnResult = z.infer<ReturnType<typeof turnResultSchema>>;

/** What the state query and the result both report: how it ended (when it did) and what it used. */
function accountFields() {
  return {
    /** Stable failure type when status is `failed` (e.g. BadInput, ModelAuth). */
    reason: z.string().optional(),
    error: z.string().optional(),
    usage: usageSchema(),
    modelCalls: z.number().int(),
    toolCalls: z.number().int(),
    runs: z.number().int(),
  };
}

export function conversationStateSchema() {
  const budget = budgetViewSchema();
  return z.object({
    status: z.enum(RUN_STATUSES),
    ...accountFields(),
    iteration: z.number().int(),
    /** 0: no step cap. */
    maxIterations: z.number().int(),
    /** null: no step cap. */
    iterationsLeft: z.number().int().nullable(),
    messages: z.number().int(),
    contextVersion: z.number().int(),
    /** Secrets replaced by the redactor so far (tool outputs and model replies). */
    redactions: z.number().int(),
    mode: z.enum(['task', 'chat']),
    /** The model profile the next model step uses, when one is named (a fallback while the primary is unavailable). */
    profile: z.string().optional(),
    turn: z.number().int(),
    waitingFor: z.enum(['clarify', 'approval', 'message', 'tool_results']).nullable(),
    budgets: z.object({ iterations: budget.nullable(), tokens: budget.nullable(), costUsd: budget.nullable(), seconds: budget.nullable() }),
    todo: z.array(todoItemSchema()),
    pendingQuestion: pendingQuestionSchema().nullable(),
    pendingApprovals: z.array(pendingApprovalSchema()),
    lastStep: stepRecordSchema().optional(),
    /** Steps after the query's `stepsAfter` cursor (all the conversation still keeps), else the last 5. */
    steps: z.array(stepRecordSchema()),
    /** Steps after the cursor that are no longer kept (the conversation keeps the last 20). */
    stepsMissed: z.number().int(),
    /** Sub-agents of the current (or latest) delegate_task call, as they last reported. */
    children: z.array(childViewSchema()).optional(),
    /** Chat: the latest finished turn (also one no `send` returned: it ended while waiting for client tool results). */
    lastTurn: turnResultSchema().optional(),
    /** The client tool calls the turn waits on (waitingFor `tool_results`). */
    awaitedToolCalls: z.array(clientCallSchema()).optional(),
  });
}

function childViewSchema() {
  return z.object({
    workflowId: z.string(),
    goal: z.string(),
    /** queued until it starts; then the child's own status as it last reported it. */
    status: z.enum(['queued', ...RUN_STATUSES]),
    iteration: z.number().int(),
    totalTokens: z.number(),
  });
}
export type ChildView = z.infer<ReturnType<typeof childViewSchema>>;
export type ConversationState = z.infer<ReturnType<typeof conversationStateSchema>>;

/**
 * What became of a run's (or a chat turn's) webhook delivery (only runs with a webhook have it): the delivery
 * workflow that POSTs the result (its own outcome is recorded there), or why there is none.
 */
function deliveryNoteSchema() {
  return z.union([
    /** `error`: the delivery workflow could not be started (e.g. one with that id is still running). */
    z.strictObject({ workflowId: z.string(), error: z.string().optional() }),
    z.strictObject({ skipped: z.literal('nothing to report') }),
  ]);
}
export type DeliveryNote = z.infer<ReturnType<typeof deliveryNoteSchema>>;

export function conversationResultSchema() {
  return z.object({
    status: z.enum(RUN_STATUSES),
    answer: z.string(),
    ...accountFields(),
    iterations: z.number().int(),
    delivery: deliveryNoteSchema().optional(),
  });
}
export type ConversationResult = z.infer<ReturnType<typeof conversationResultSchema>>;

/**
 * The conversation workflow's signature (src/workflows/conversation.ts), for those that start or continue one by
 * name (continue-as-new, sub-agents, the client) without importing the workflow module. It checks its own input.
 */
export type ConversationWorkflow = (input: unknown, carried?: unknown) => Promise<ConversationResult>;
