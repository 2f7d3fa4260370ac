// The system prompt at a conversation's start: the worker gathers the per-conversation parts (project context
// file, memory snapshot, date, workspace; in the start's one local activity, prepare.ts, recorded as its
// marker, so a replay builds the same prompt) and the workflow composes the prompt (system-prompt.ts). The stable
// parts (identity, how to work) come from this bundle, not from the history.
import type { PromptRequest } from '../../activities/system-prompt';
import { memoryScopeOf } from '../../shared/memory';
import { SKILL_VIEW } from '../../tools/skills/spec';
import type { Conversation } from '../state/conversation-state';
import { builtSystemPrompt, type PromptParts } from '../../shared/system-prompt';

/** What the worker is asked to gather for this conversation's prompt. */
export function promptRequest(c: Conversation): PromptRequest {
  const memoryScope = memoryScopeOf(c.input);
  return {
    ...(c.input.workspace ? { workspace: c.input.workspace } : {}),
    ...(c.tools.includes('memory') && memoryScope !== undefined ? { memoryScope } : {}),
    ...(c.tools.includes(SKILL_VIEW) ? { skills: true, ...(c.input.skillsStore ? { skillsStore: c.input.skillsStore } : {}) } : {}),
    ...(c.input.model ? { profile: c.input.model } : {}),
  };
}

/** Composes the prompt from the parts the worker gathered; without them (`error`), from the stable parts. */
export function setSystemPrompt(c: Conversation, req: PromptRequest, gathered: { parts: PromptParts } | { error: string }): void {
  const { memoryScope } = req;
  let parts: PromptParts;
  if ('parts' in gathered) parts = gathered.parts;
  else {
    // The prompt is an aid like memory: the conversation goes on with the stable parts (the failure is in the history).
    c.note('prompt', `the worker could not gather the system prompt's parts (${gathered.error}): no project context or memory`);
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
