// The agent loop as a workflow: the model decides one step, the runtime executes it, the result goes back to
// the model, until it answers. Deterministic code only: all I/O happens in activities. This entry checks the
// input and hands over: chat.ts (chat mode) → turn.ts (one turn) → model-step.ts / run-tools.ts → state.ts.
import { isCancellation } from '@temporalio/workflow';
import { issuesText, parseConversationInput, type ConversationInput, type ConversationResult } from '../shared/contract';
import { DEFAULT_DELEGATION, DEFAULT_LIMITS } from '../shared/defaults';
import { conversationFailure } from '../shared/outcome';
import { carriedStateSchema, type ToolList } from '../shared/wire';
import { DELEGATE_TASK, resolveTools } from '../tools/registry';
import { SCHEDULE_TOOLS } from '../tools/schedules/spec';
import { localActs, localActsOptions } from './activities';
import { runChat } from './chat';
import { deliverResult } from './delivery';
import { describeFailure } from './failures';
import { registerHandlers } from './handlers';
import { MEMORY, recallMemory } from './memory-recall';
import { buildSystemPrompt, SYSTEM_PROMPT_BUILDER } from './prompt-step';
import { Conversation, type CarriedState, type RunConfig } from './state';
import { fetchToolList, wantsCatalog } from './tool-list';
import { runTurn } from './turn';
import { since } from './release';

/** Patch id: a conversation that names a workspace asks the worker whether it may use it, before any step. */
export const CHECK_WORKSPACE = 'check-workspace';
/** Patch id: a conversation that asks for the bubblewrap sandbox checks that the worker has one, before any step. */
export const CHECK_SANDBOX = 'check-sandbox';
/** Patch id: "all tools" includes the schedules toolset (runs recorded before it offered the others). */
export const SCHEDULE_TOOLS_BY_DEFAULT = 'schedule-tools-by-default';
const DEFAULT_TOOLS_BEFORE_SCHEDULES = ['files', 'terminal', 'agent'];
/** Patch id: "all tools" includes web_fetch (runs recorded before it offered every tool but that one). */
export const WEB_FETCH_BY_DEFAULT = 'web-fetch-by-default';
/** Patch id: "all tools" includes delegate_task (the agents toolset). */
export const DELEGATE_BY_DEFAULT = 'delegate-task-by-default';
/** Written out, not derived from the catalogue: a tool added later must not change what these runs replay with. */
const DEFAULT_TOOLS_BEFORE_WEB = [...DEFAULT_TOOLS_BEFORE_SCHEDULES, 'schedules'];
/**
 * Each later widening of the default: its patch and the toolset it added. These were built side by side, so a
 * recorded run may carry any one of them; the order is the order of their markers in such runs (patch markers
 * must come in the order they were recorded): schedules first, then these.
 */
const DEFAULT_TOOL_WIDENINGS: Array<[patch: string, toolset: string]> = [
  [DELEGATE_BY_DEFAULT, 'agents'],
  [WEB_FETCH_BY_DEFAULT, 'web'],
  [MEMORY, 'memory'],
];

/** The tools a conversation that names none gets: all of them, as they were when the run started. */
function defaultTools(): string[] | undefined {
  const schedules = since(SCHEDULE_TOOLS_BY_DEFAULT);
  const added = DEFAULT_TOOL_WIDENINGS.filter(([patch]) => since(patch)).map(([, toolset]) => toolset);
  if (added.length === DEFAULT_TOOL_WIDENINGS.length) return undefined;
  if (added.length) return [...DEFAULT_TOOLS_BEFORE_WEB, ...added];
  return schedules ? DEFAULT_TOOLS_BEFORE_WEB : DEFAULT_TOOLS_BEFORE_SCHEDULES;
}

/**
 * `input` is whatever a client sent — our client, the stock CLI, the Web UI, a Schedule — so it is parsed
 * here; `carried` is the state continue-as-new hands to the next run. Nothing in either can fail a workflow
 * task: a bad input ends the conversation at once as `failed` with reason `BadInput`, naming the field.
 */
export async function conversationWorkflow(input: unknown, carried?: unknown): Promise<ConversationResult> {
  const start = readStart(input, carried);
  if ('error' in start) return ended(badInput(input, start.error));
  const c = new Conversation(start.config, start.carried);
  registerHandlers(c);
  let result: ConversationResult;
  try {
    result = await run(c, start);
  } catch (err) {
    if (isCancellation(err)) c.cancelled();
    throw err;
  }
  return ended(result);
}

/**
 * A failed conversation is a FAILED workflow, its reason the failure type and its result in the details
 * (src/shared/outcome.ts). The other endings carry an answer and complete: `budget_exhausted`,
 * `stopped_repeating` and `interrupted` are COMPLETED with HermesStatus saying which (docs/design-notes.md).
 */
function ended(result: ConversationResult): ConversationResult {
  if (result.status === 'failed') throw conversationFailure(result);
  return result;
}

async function run(c: Conversation, start: Extract<Start, { config: RunConfig }>): Promise<ConversationResult> {
  // Names the bundle does not know may be the worker's catalog tools (asked for below, after the start checks).
  const catalog = wantsCatalog({ ...start, named: start.config.input.tools });
  if (start.unknownTools.length && !catalog) {
    return c.finish({
      status: 'failed',
      answer: '',
      reason: 'BadInput',
      error: `tools: unknown tools or toolsets: ${start.unknownTools.join(', ')}`,
    });
  }
  const { workspace } = start.config.input;
  if (workspace && !start.carried && since(CHECK_WORKSPACE)) {
    const refused = await localActs.checkWorkspace
      .executeWithOptions({ ...localActsOptions, summary: `check the workspace ${workspace}` }, [workspace])
      .catch((err) => `workspace ${workspace} could not be checked: ${describeFailure(err).message}`);
    if (refused) return c.finish({ status: 'failed', answer: '', reason: 'BadInput', error: refused });
  }
  // Never a silent downgrade: a run that asks for the sandbox and cannot have it fails before it starts.
  if (start.config.input.sandbox === 'bwrap' && !start.carried && since(CHECK_SANDBOX)) {
    const missing = await localActs.checkSandbox
      .executeWithOptions({ ...localActsOptions, summary: 'check the bubblewrap sandbox' }, [])
      .catch((err) => `the sandbox could not be checked: ${describeFailure(err).message}`);
    if (missing) return c.finish({ status: 'failed', answer: '', reason: 'SandboxUnavailable', error: missing });
  }
  // After the start checks, before the memory recall (which appends to the system prompt this rewrites).
  if (catalog) {
    const list = await fetchToolList(start.config.input.tools, start.unknownTools, (why) =>
      c.note('tools', `the worker could not list its custom tools (${why}): only the built-in tools are offered`),
    );
    const offered = offeredTools(start.config.input, start.requested, list);
    if (list) c.useCatalog(offered.config.tools, list);
    if (offered.unknownTools.length) {
      return c.finish({
        status: 'failed',
        answer: '',
        reason: 'BadInput',
        error: `tools: unknown tools or toolsets: ${offered.unknownTools.join(', ')}`,
      });
    }
  }
  if (!start.carried) {
    // The system prompt's per-conversation parts (project context file, memory, date) from one recorded local activity.
    if (since(SYSTEM_PROMPT_BUILDER, 2)) await buildSystemPrompt(c);
    // Before it: memory shared by the conversations of a scope, recalled into the system prompt (recorded too).
    else if (c.tools.includes('memory') && since(MEMORY)) await recallMemory(c);
  }
  c.startClock();
  if (start.config.input.mode === 'chat') return runChat(c);
  const result = c.finish(await runTurn(c));
  return start.config.input.schedule?.webhook ? deliverResult(c, result) : result;
}

type Start = { config: RunConfig; carried?: CarriedState; unknownTools: string[]; requested: string[] | undefined } | { error: string };

function readStart(raw: unknown, carriedRaw: unknown): Start {
  // Runs started before the carried state became the second argument had it inside the input.
  let value = raw;
  if (carriedRaw === undefined && isRecord(raw) && 'carried' in raw) {
    const { carried: legacy, ...rest } = raw;
    carriedRaw = legacy;
    value = rest;
  }
  const parsed = parseConversationInput(value);
  if (!parsed.ok) return { error: parsed.error };
  let carried: CarriedState | undefined;
  if (carriedRaw !== undefined && carriedRaw !== null) {
    const c = carriedStateSchema().safeParse(carriedRaw);
    if (!c.success) return { error: `carried state (second argument, for continue-as-new only): ${issuesText(c.error)}` };
    carried = carriedRaw as CarriedState;
  }
  // Every limit is written into the input the next run gets: a later change of a default must not change the
  // decisions of a conversation already running.
  const input = {
    ...parsed.input,
    limits: { ...DEFAULT_LIMITS, ...parsed.input.limits },
    delegation: { ...DEFAULT_DELEGATION, ...parsed.input.delegation },
  };
  const requested = input.tools ?? defaultTools();
  return { ...offeredTools(input, requested, carried?.toolList), ...(carried ? { carried } : {}), requested };
}

/** The tools a run offers: the requested names resolved against the bundle and the recorded catalog list. */
function offeredTools(input: RunConfig['input'], requested: string[] | undefined, list: ToolList | undefined) {
  const { tools, unknown } = resolveTools(requested, list);
  // No names: the default tools of the run's release, and every catalog tool the worker had at its start.
  if (!input.tools && requested) for (const t of list?.tools ?? []) if (!tools.includes(t.name)) tools.push(t.name);
  // Nobody can answer a question in a scheduled run, and a schedule must not multiply itself unless it may.
  let offered = input.scheduled ? tools.filter((t) => t !== 'clarify' && (input.schedule?.allowSchedules || !SCHEDULE_TOOLS.includes(t))) : tools;
  // A conversation at the delegation depth limit is not offered delegate_task (a call gets an error result).
  if ((input.parent?.depth ?? 0) >= (input.delegation ?? DEFAULT_DELEGATION).maxDepth) offered = offered.filter((t) => t !== DELEGATE_TASK);
  return { config: { input, tools: offered, ...(list ? { toolList: list } : {}) }, unknownTools: unknown };
}

/** Ends a conversation whose input could not be read: its state query and result say why. */
function badInput(raw: unknown, error: string): ConversationResult {
  const attributesOff = isRecord(raw) && raw.searchAttributes === false;
  const input: ConversationInput & RunConfig['input'] = { prompt: '', limits: DEFAULT_LIMITS, ...(attributesOff ? { searchAttributes: false } : {}) };
  const c = new Conversation({ input, tools: [] });
  registerHandlers(c);
  return c.finish({ status: 'failed', answer: '', reason: 'BadInput', error });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
