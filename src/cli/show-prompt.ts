// `hermes run --show-prompt`: the system prompt a conversation with these options would start with, without starting
// one. The parts are gathered here by the same function the worker's buildSystemPrompt activity runs (the workspace
// as this machine sees it: the CLI's embedded worker sees the same; a cluster worker may see another) and composed
// by the workflow's own builtSystemPrompt.
import path from 'node:path';
import { gatherPromptParts } from '../prompt-parts';
import { Redactor } from '../security/redact';
import { resolveTools } from '../tools/registry';
import { memoryScopeOf, type MemoryView } from '../shared/memory';
import { builtSystemPrompt } from '../workflows/system-prompt';
import { UsageError, withHermes } from './common';

export interface ShowPromptOptions {
  workspace?: string;
  tools?: string[];
  model?: string;
  memoryScope?: string;
}

export async function showPrompt(o: ShowPromptOptions): Promise<number> {
  const { tools, unknown } = resolveTools(o.tools);
  if (unknown.length) throw new UsageError(`--tools: unknown tools or toolsets: ${unknown.join(', ')}`);
  const memoryScope = tools.includes('memory') ? memoryScopeOf(o) : undefined;
  const workspace = o.workspace ?? path.resolve(process.env.HERMES_WORKSPACE ?? process.cwd());
  const compose = async (read?: () => Promise<MemoryView | null>) => {
    const parts = await gatherPromptParts({ workspace, redactor: new Redactor({ env: process.env }), ...(read ? { memory: read } : {}) });
    process.stdout.write(`${builtSystemPrompt({ tools, ...(memoryScope ? { memoryScope } : {}) }, parts)}\n`);
    if (parts.memoryError) process.stderr.write(`note: memory of scope ${memoryScope} could not be read: ${parts.memoryError}\n`);
    return 0;
  };
  if (memoryScope === undefined) return compose();
  // Memory lives in Temporal: reading it needs the server (and, embedded, a worker to answer the query).
  return withHermes(
    (hermes) =>
      compose(async () => {
        const view = await hermes.memory(memoryScope).read();
        return view.notes.entries.length || view.user.entries.length ? view : null;
      }),
    o.workspace ? { workspace: o.workspace } : {},
  );
}
