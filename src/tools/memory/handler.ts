// The `memory` tool, run in the tool activity with the worker's Temporal client: reads query the scope's memory
// workflow, writes are updates to it (update-with-start: the first write creates it), redacted with the worker's
// redactor before they are sent. A refused write (injection pattern, credential, no or several matching entries,
// over the limit) is a result the model reads, with the reason.
import { MemoryClient, MemoryError } from '../../memory/client';
import { listEntries, memoryScopeOf, STORE_TITLES, usedChars } from '../../shared/memory';
import { builtinTool, ToolError, type ToolHandler } from '../handler';
import { memorySpec } from './spec';

export const memory: ToolHandler<typeof memorySpec.schema> = async (args, ctx) => {
  if (!ctx.cluster) throw new ToolError('memory is not available on this worker (no Temporal client in the tool activity)');
  const { client, taskQueue, conversation, memoryLimits, redactor } = ctx.cluster;
  const scope = memoryScopeOf(conversation ?? {});
  const m = new MemoryClient(client, scope, { taskQueue, ...(memoryLimits ? { limits: memoryLimits } : {}), ...(redactor ? { redactor } : {}) });
  const title = STORE_TITLES[args.store];
  if (args.action === 'read') {
    const s = (await m.read())[args.store];
    return `${title} (memory scope "${scope}", ${usedChars(s.entries)}/${s.limit} characters):\n${listEntries(s)}`;
  }
  const need = (v: string | undefined, what: string) => {
    if (!v?.trim()) throw new ToolError(`${args.action} needs \`${what}\``);
    return v;
  };
  const write =
    args.action === 'add'
      ? { action: 'add' as const, store: args.store, text: need(args.text, 'text') }
      : args.action === 'replace'
        ? { action: 'replace' as const, store: args.store, match: need(args.match, 'match'), text: need(args.text, 'text') }
        : { action: 'remove' as const, store: args.store, match: need(args.match, 'match') };
  try {
    // One update id per tool call: a retried activity does not apply the write twice.
    const r = await m.write(write, { updateId: `${ctx.workflowId ?? 'call'}/${ctx.callId}` });
    return r.message;
  } catch (err) {
    if (err instanceof MemoryError) throw new ToolError(err.message);
    throw err;
  }
};

export const memoryTool = builtinTool(memorySpec, memory);
