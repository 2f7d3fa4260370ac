// A conversation's start: its input read and checked (whatever a client sent — our client, the stock CLI, the Web
// UI, a Schedule), the carried state of a continued run read, the tools it offers resolved. Nothing here can fail
// a workflow task: what cannot be read becomes an error the conversation ends with as BadInput.
import { DEFAULT_DELEGATION, DEFAULT_LIMITS } from '../../shared/defaults';
import { issuesText, parseConversationInput } from '../../shared/contract';
import type { ToolList } from '../../shared/wire';
import { DELEGATE_TASK, resolveTools } from '../../tools/registry';
import { SCHEDULE_TOOLS } from '../../tools/schedules/spec';
import { carriedStateSchema, type CarriedState } from '../state/carried';
import type { RunConfig } from '../state/conversation-state';

export type Start = { config: RunConfig; carried?: CarriedState; unknownTools: string[] } | { error: string };

export function readStart(raw: unknown, carriedRaw: unknown): Start {
  const parsed = parseConversationInput(raw);
  if (!parsed.ok) return { error: parsed.error };
  let carried: CarriedState | undefined;
  if (carriedRaw !== undefined && carriedRaw !== null) {
    const c = carriedStateSchema().safeParse(carriedRaw);
    if (!c.success) return { error: `carried state (second argument, for continue-as-new only): ${issuesText(c.error)}` };
    carried = c.data;
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
export function offeredTools(input: RunConfig['input'], list: ToolList | undefined) {
  const { tools, unknown } = resolveTools(input.tools, list);
  // Nobody can answer a question in a scheduled run, and a schedule must not multiply itself unless it may.
  let offered = input.scheduled ? tools.filter((t) => t !== 'clarify' && (input.schedule?.allowSchedules || !SCHEDULE_TOOLS.includes(t))) : tools;
  // A conversation at the delegation depth limit is not offered delegate_task (a call gets an error result).
  if ((input.parent?.depth ?? 0) >= (input.delegation ?? DEFAULT_DELEGATION).maxDepth) offered = offered.filter((t) => t !== DELEGATE_TASK);
  return { config: { input, tools: offered, ...(list ? { toolList: list } : {}) }, unknownTools: unknown };
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
