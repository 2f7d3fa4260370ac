// `task_status` and `task_result`: how a conversation stands, and its answer (waiting for it when asked to).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { conversationIdField, conversationOf, guarded, toolResult, type McpContext } from './context';
import { resultView, stateView } from './conversation-views';
import { MAX_WAIT_SEC, stateWithin, waitForOutcome } from './wait';

export function registerStatusTools(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'task_status',
    {
      title: 'Conversation status',
      description:
        "Reads a conversation's state now, without waiting: status (running, waiting, idle, completed, failed…), iteration, " +
        'usage, the pending clarify question or approvals, the last step; for one that has ended, its result.',
      inputSchema: { id: conversationIdField() },
      annotations: { readOnlyHint: true },
    },
    guarded(ctx, 'task_status', async ({ id }) => {
      const { handle, status } = await conversationOf(ctx, id);
      if (status !== 'RUNNING')
        return toolResult({ ...resultView(id, await handle.result({ onUnreachable: () => undefined })), temporalStatus: status });
      const s = await stateWithin(ctx, handle);
      if (s) return toolResult({ ...stateView(id, s), finished: false, temporalStatus: status });
      const polling = await handle.workerPolling().catch(() => true);
      return toolResult({
        id,
        status: 'running',
        finished: false,
        temporalStatus: status,
        note: polling
          ? 'no worker answered the state query in time: the conversation goes on; ask again'
          : `no worker polls the task queue "${ctx.hermes.taskQueue}": the conversation waits until one does (hermes worker)`,
      });
    }),
  );

  server.registerTool(
    'task_result',
    {
      title: 'Conversation result',
      description:
        'Returns the status and answer of a conversation, waiting up to waitSec seconds for it to end. It returns early when ' +
        'the conversation waits for a person (pendingQuestion: answer_question; pendingApprovals: approve) or, a chat, when ' +
        'its turn is answered. finished: true once it has ended; otherwise call again.',
      inputSchema: {
        id: conversationIdField(),
        waitSec: z
          .number()
          .min(0)
          .max(MAX_WAIT_SEC)
          .optional()
          .describe(`Seconds to wait for the end (0 to ${MAX_WAIT_SEC}; default 0: answer now). Keep it below your client's request timeout`),
      },
      annotations: { readOnlyHint: true },
    },
    guarded(ctx, 'task_result', async ({ id, waitSec }, extra) => {
      const { handle, status } = await conversationOf(ctx, id);
      const token = extra._meta?.progressToken;
      const progress =
        token === undefined
          ? undefined
          : (progress: number, message: string) =>
              extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total: waitSec ?? 0, message } });
      return toolResult(await waitForOutcome(ctx, handle, status, waitSec ?? 0, { signal: extra.signal, ...(progress ? { progress } : {}) }));
    }),
  );
}
