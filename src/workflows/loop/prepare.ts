// A fresh run's start: the checks — the tools it names exist, the worker may use its workspace and has the sandbox
// it asks for (never a silent downgrade) — its catalog tools, and the system prompt's per-conversation parts
// (project context file, memory, date), asked of the worker in one recorded local activity
// (src/activities/prepare-run.ts): each local activity is one more round of the first workflow task. A run that
// names tools the bundle does not know (toolsets, catalog tools: a sub-agent names its parent's) asks twice: which
// built-in tools such a name brings (memory, skill_view) decides what the prompt gathers. A cancellation during the
// start ends the conversation as cancelled, like one anywhere else. The same answer says which of Hermes' search
// attributes the namespace lacks: the run's status sets only the others (state/status-board.ts).
import { isCancellation } from '@temporalio/workflow';
import type { PreparedRun, PrepareRunRequest } from '../../activities/prepare-run';
import type { Conversation, RunConfig } from '../state/conversation-state';
import { localActivities, localActivityOptions } from '../engine/activity-options';
import { describeFailure } from '../engine/failures';
import { ALL_SEARCH_ATTRIBUTES } from '../../shared/search-attributes';
import { offeredTools, type Start } from './start';
import { promptRequest, setSystemPrompt } from './system-prompt-step';
import { wantsCatalog } from './tool-list';

type Refusal = { reason: string; error: string };

/** Undefined when the run may go on (its system prompt set); else why it is refused. */
export async function prepare(c: Conversation, start: Extract<Start, { config: RunConfig }>): Promise<Refusal | undefined> {
  const { input } = start.config;
  // Names the bundle does not know may be the worker's catalog tools (asked for below, after the other checks).
  const catalog = wantsCatalog({ ...start, named: input.tools });
  const unknown = (names: string[]): Refusal => ({ reason: 'BadInput', error: `tools: unknown tools or toolsets: ${names.join(', ')}` });
  if (start.unknownTools.length && !catalog) {
    await learnAttributes(c);
    return unknown(start.unknownTools);
  }
  // Without names every built-in tool is offered whatever the catalog holds: the prompt can be asked for at once.
  const prompt = catalog && input.tools ? undefined : promptRequest(c);
  const req: PrepareRunRequest = {
    ...(input.workspace ? { workspace: input.workspace } : {}),
    ...(input.sandbox === 'bwrap' ? { sandbox: true as const } : {}),
    ...(catalog ? { catalog: input.tools ? { names: start.unknownTools } : {} } : {}),
    ...(prompt ? { prompt } : {}),
  };
  const prepared = await ask(req);
  c.board.attributesKnown(prepared.missingAttributes);
  if (prepared.refused) return prepared.refused;
  if (catalog) {
    if (prepared.toolListError !== undefined)
      c.note('tools', `the worker could not list its custom tools (${prepared.toolListError}): only the built-in tools are offered`);
    const list = prepared.toolList && (prepared.toolList.tools.length || prepared.toolList.toolsets) ? prepared.toolList : undefined;
    const offered = offeredTools(input, list);
    if (list) c.useCatalog(offered.config.tools, list);
    if (offered.unknownTools.length) return unknown(offered.unknownTools);
  }
  const asked = prompt ?? promptRequest(c);
  const gathered = prompt ? prepared : await ask({ prompt: asked });
  setSystemPrompt(c, asked, gathered.parts ? { parts: gathered.parts } : { error: gathered.partsError ?? 'no parts returned' });
  return undefined;
}

/** For a run refused before its start asked anything: which search attributes its status may set. */
export async function learnAttributes(c: Conversation): Promise<void> {
  if (c.board.learning) c.board.attributesKnown((await ask({})).missingAttributes);
}

/** The local activity; when it fails as a whole (a check that hung, the worker gone), what that means for the run. */
async function ask(req: PrepareRunRequest): Promise<PreparedRun> {
  try {
    return await localActivities.prepareRun.executeWithOptions({ ...localActivityOptions, summary: summary(req) }, [req]);
  } catch (err) {
    if (isCancellation(err)) throw err;
    const m = describeFailure(err).message;
    // Nobody said which search attributes the namespace has: the run sets none rather than risk one it lacks, whose
    // upsert the server would refuse in every workflow task (filtering misses this run; it is not stuck).
    const none = { missingAttributes: ALL_SEARCH_ATTRIBUTES.map((k) => k.name) };
    // The parts have a deadline of their own inside the activity: a failure of the whole is the checks'.
    if (req.workspace) return { refused: { reason: 'BadInput', error: `workspace ${req.workspace} could not be checked: ${m}` }, ...none };
    if (req.sandbox) return { refused: { reason: 'SandboxUnavailable', error: `the sandbox could not be checked: ${m}` }, ...none };
    return { ...(req.catalog ? { toolListError: m } : {}), ...(req.prompt ? { partsError: m } : {}), ...none };
  }
}

/** The start's row in the Web UI and `temporal workflow show`: what it asked the worker. */
function summary(req: PrepareRunRequest): string {
  return (
    [
      ...(req.workspace ? [`check the workspace ${req.workspace}`] : []),
      ...(req.sandbox ? ['check the bubblewrap sandbox'] : []),
      ...(req.catalog ? ["list the worker's custom tools"] : []),
      ...(req.prompt ? ['build the system prompt'] : []),
    ].join(', ') || "ask for the namespace's search attributes"
  );
}
