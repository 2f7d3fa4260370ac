// The system prompt builder at a conversation's start: one local activity gathers
// the per-conversation parts on a worker (project context file, memory snapshot, date, workspace; recorded as one
// marker, so a replay builds the same prompt) and the workflow composes the prompt (system-prompt.ts). The stable
// parts (identity, how to work) come from this bundle, not from the history.
import { isCancellation } from '@temporalio/workflow';
import { memoryScopeOf } from '../../shared/memory';
import { SKILL_VIEW } from '../../tools/skills/spec';
import { localActivities, localActivityOptions } from '../engine/activity-options';
import { describeFailure } from '../engine/failures';
import type { Conversation } from '../state/conversation-state';
import { builtSystemPrompt, type PromptParts } from '../../shared/system-prompt';

export async function buildSystemPrompt(c: Conversation): Promise<void> {
  const memoryScope = c.tools.includes('memory') ? memoryScopeOf(c.input) : undefined;
  let parts: PromptParts;
  try {
    parts = await localActivities.buildSystemPrompt.executeWithOptions({ ...localActivityOptions, summary: 'build the system prompt' }, [
      {
        ...(c.input.workspace ? { workspace: c.input.workspace } : {}),
        ...(memoryScope !== undefined ? { memoryScope } : {}),
        ...(c.tools.includes(SKILL_VIEW) ? { skills: true, ...(c.input.skillsStore ? { skillsStore: c.input.skillsStore } : {}) } : {}),
        ...(c.input.model ? { profile: c.input.model } : {}),
      },
    ]);
  } catch (err) {
    if (isCancellation(err)) throw err;
    // The prompt is an aid like memory: the conversation goes on with the stable parts (the failure is in the history).
    c.note('prompt', `the worker could not gather the system prompt's parts (${describeFailure(err).message}): no project context or memory`);
    parts = { date: new Date(Date.now()).toISOString().slice(0, 10), workspace: c.input.workspace ?? '(the worker default)' };
  }
  if (parts.smallModel) {
    c.toolView.showCore();
    const hidden = c.toolView.hidden(c.tools, c.input.tools);
    if (hidden.length) c.note('tools', `a small model: shown the core tools; ${hidden.length} more through tool_search (${hidden.join(', ')})`);
  }
  if (parts.memoryError) c.note('memory', `memory of scope ${memoryScope} could not be recalled (${parts.memoryError}); going on without it`);
  if (parts.contextFile?.blocked)
    c.note('prompt', `${parts.contextFile.name} blocked from the system prompt: pattern ${parts.contextFile.blocked.id}`);
  for (const e of parts.skills?.entries ?? [])
    if (e.blocked) c.note('prompt', `skill ${e.name} blocked from the system prompt: pattern ${e.blocked.id}`);
  if (parts.skills?.error) c.note('prompt', `some skills could not be listed: ${parts.skills.error}`);
  const { system: extra, schedule } = c.input;
  c.transcript.setSystemPrompt(
    builtSystemPrompt(
      { tools: c.shownTools, ...(extra ? { extra } : {}), ...(schedule ? { schedule } : {}), ...(memoryScope ? { memoryScope } : {}) },
      parts,
    ),
  );
}
