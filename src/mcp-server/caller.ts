// Whose calls an MCP connection makes. Over stdio, and over HTTP with one token or none, the local user: every
// conversation of the task queue, as the CLI sees them. With principals (a tokens file, as `hermes serve` takes:
// src/http-api/principals.ts) each its own: the conversations whose workflow ids carry its name — the tasks it
// started here, its `hermes serve` sessions and tasks — and its memory scope, skills store and search scope.
// Ids carry the name because the scope search attribute is set by the conversation's first workflow task, after
// the start: a check by id holds from the first call on.
import type { StartOptions } from '../shared/contract';
import { principalScope, principalSkillsStore } from '../http-api/principals';
import { sessionWorkflowId, taskWorkflowId } from '../http-api/request';
import { newConversationId } from '../shared/ids';

export interface Caller {
  /** A principal's name; undefined for the local user. */
  principal?: string;
}

const mcpPrefix = (principal: string) => `hermes-mcp-${principal}/`;

/** The id of a task a principal starts here: its name in it, so only it finds the conversation. */
export function principalTaskId(principal: string, prompt: string, mode?: string): string {
  return `${mcpPrefix(principal)}${newConversationId(prompt, mode)}`;
}

/** Whether the caller may see and steer the conversation (ids of sub-agents start with their parent's). */
export function owns(caller: Caller, id: string): boolean {
  const p = caller.principal;
  if (p === undefined) return true;
  return [mcpPrefix(p), sessionWorkflowId('', p), taskWorkflowId('', p)].some((prefix) => id.length > prefix.length && id.startsWith(prefix));
}

/** What every conversation the caller starts gets: a principal's own memory scope and skills store. */
export function callerStart(caller: Caller): Partial<StartOptions> {
  const p = caller.principal;
  return p === undefined ? {} : { memoryScope: principalScope(p), skillsStore: principalSkillsStore(p) };
}

/** The search scope of a principal (its memory scope: conversations are filed under it); undefined for the local user. */
export function callerScope(caller: Caller): string | undefined {
  return caller.principal === undefined ? undefined : principalScope(caller.principal);
}
