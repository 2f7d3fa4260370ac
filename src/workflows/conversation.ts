// The agent loop as a workflow: the model decides one step, the runtime executes it, the result goes back to
// the model, until it answers. Deterministic code only: all I/O happens in activities. This entry checks the
// input and hands over: chat.ts (chat mode) → turn.ts (one turn) → model-step.ts / run-tools.ts → state.ts.
import { isCancellation } from '@temporalio/workflow';
import { issuesText, parseConversationInput, type ConversationInput, type ConversationResult } from '../shared/contract';
import { DEFAULT_DELEGATION, DEFAULT_LIMITS } from '../shared/defaults';
import { conversationFailure } from '../shared/outcome';
import { carriedStateSchema, type ToolList } from '../shared/wire';
import { DELEGATE_TASK, resolveTools } from '../tools/registry';
import { SCHEDULE_TOOLS } from '../tools/specs/schedules';
import { localActs, localActsOptions } from './activities';
import { runChat } from './chat';
import { deliverResult } from './delivery';
import { describeFailure } from './failures';
import { registerHandlers } from './handlers';
import { buildSystemPrompt } from './prompt-step';
import { Conversation, type CarriedState, type RunConfig } from './state';
import { fetchToolList, wantsCatalog } from './tool-list';
import { runTurn } from './turn';

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
  if (workspace && !start.carried) {
    const refused = await localActs.checkWorkspace
      .executeWithOptions({ ...localActsOptions, summary: `check the workspace ${workspace}` }, [workspace])
      .catch((err) => `workspace ${workspace} could not be checked: ${describeFailure(err).message}`);
    if (refused) return c.finish({ status: 'failed', answer: '', reason: 'BadInput', error: refused });
  }
  // Never a silent downgrade: a run that asks for the sandbox and cannot have it fails before it starts.
  if (start.config.input.sandbox === 'bwrap' && !start.carried) {
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
    const offered = offeredTools(start.config.input, list);
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
  // The system prompt's per-conversation parts (project context file, memory, date) from one recorded local activity.
  if (!start.carried) await buildSystemPrompt(c);
  c.startClock();
  if (start.config.input.mode === 'chat') return runChat(c);
  const result = c.finish(await runTurn(c));
  return start.config.input.schedule?.webhook ? deliverResult(c, result) : result;
}

type Start = { config: RunConfig; carried?: CarriedState; unknownTools: string[] } | { error: string };

function readStart(raw: unknown, carriedRaw: unknown): Start {
  const parsed = parseConversationInput(raw);
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
  return { ...offeredTools(input, carried?.toolList), ...(carried ? { carried } : {}) };
}

/** The tools a run offers: the names it asked for (none: all) resolved against the bundle and the recorded catalog list. */
function offeredTools(input: RunConfig['input'], list: ToolList | undefined) {
  const { tools, unknown } = resolveTools(input.tools, list);
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
