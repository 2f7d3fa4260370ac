// Which of a conversation's tools the model is shown. All of them, except for a small model (its profile says
// `small: true`, or its context window is at most SMALL_CONTEXT_WINDOW; the worker answers at the start, in the
// recorded system prompt parts): then only the core tools, the tools the caller named one by one, and
// `tool_search`, which shows more by need. The shown list changes only by recorded results — the start's parts and
// tool_search's `found` — so a replay shows the model the same tools at every step.
import { z } from 'zod';
import { TOOL_SEARCH, TOOLSETS } from '../../tools/registry';

export function toolViewCarry() {
  return z.object({ core: z.boolean(), found: z.array(z.string()) });
}
export type ToolViewCarry = z.infer<ReturnType<typeof toolViewCarry>>;

const CORE = new Set(TOOLSETS.core);

export class ToolView {
  #core: boolean;
  #found: string[];

  constructor(carried: ToolViewCarry | undefined) {
    this.#core = carried?.core ?? false;
    this.#found = carried?.found ?? [];
  }

  carry(): ToolViewCarry | undefined {
    return this.#core ? { core: true, found: [...this.#found] } : undefined;
  }

  get core(): boolean {
    return this.#core;
  }

  /** The worker said the conversation's model is small: show the core tools from now on. */
  showCore(): void {
    this.#core = true;
  }

  /** tool_search found these (a recorded result): shown from the next step on. */
  reveal(names: readonly string[]): string[] {
    // Several tool_search calls in one step may find the same tool (seen: 13 found search_files): once each.
    const fresh = [...new Set(names)].filter((n) => !this.#found.includes(n));
    this.#found.push(...fresh);
    return fresh;
  }

  /** The offered tools the model sees; `named`: what the caller asked for (tools named one by one stay shown). */
  shown(offered: readonly string[], named: readonly string[] | undefined): string[] {
    if (!this.#core) return [...offered];
    const keep = offered.filter((t) => CORE.has(t) || this.#found.includes(t) || named?.includes(t));
    return keep.length < offered.length ? [...keep, TOOL_SEARCH] : keep;
  }

  /** Offered but not shown: what tool_search searches. */
  hidden(offered: readonly string[], named: readonly string[] | undefined): string[] {
    const shown = new Set(this.shown(offered, named));
    return offered.filter((t) => !shown.has(t));
  }

  /** What a call may name: the offered tools, and tool_search while something is hidden. */
  callable(offered: readonly string[], named: readonly string[] | undefined): string[] {
    const shown = this.shown(offered, named);
    return shown.includes(TOOL_SEARCH) && !offered.includes(TOOL_SEARCH) ? [...offered, TOOL_SEARCH] : [...offered];
  }
}
