// `start_task`: starts a conversation with the options of `hermes run` a client can sensibly choose — the model
// profile, the budgets, the workspace (the local user only: a principal's tasks run in the server's workspace, as
// `hermes serve`'s do) — and returns its id at once; task_result waits for the answer.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { z } from 'zod';
import { DEFAULT_MODEL_ALIASES } from '../http-api/request';
import { MAX_ITERATIONS_CAP, type StartOptions } from '../shared/contract';
import { callerStart, principalTaskId } from './caller';
import { sendTurn } from './send-turn';
import { conversationUri, guarded, toolResult, ToolInputError, type McpContext } from './context';

export function registerStartTask(server: McpServer, ctx: McpContext): void {
  const { names, defaultName } = ctx.profiles;
  server.registerTool(
    'start_task',
    {
      title: 'Start a task',
      description:
        'Starts a durable agent conversation on the task (it reads and edits files and runs commands in its workspace) and ' +
        'returns its id at once. Then task_result waits for the answer, task_status shows progress, and answer_question / ' +
        'approve / interrupt steer it. mode "chat" keeps it open after each answer for send_message.',
      inputSchema: {
        prompt: z.string().min(1).describe('The task, in plain words (a chat: the first message)'),
        mode: z.enum(['task', 'chat']).optional().describe('task (default): ends with its answer; chat: stays open for send_message'),
        model: z
          .string()
          .optional()
          .describe(`Model profile: ${names.map((n) => JSON.stringify(n)).join(', ')} (default ${JSON.stringify(defaultName)})`),
        maxIterations: z
          .number()
          .int()
          .min(0)
          .max(MAX_ITERATIONS_CAP)
          .optional()
          .describe('Step budget per turn: model calls with tools (default 90; 0 = no step cap)'),
        maxTokens: z.number().int().min(0).optional().describe('Token budget of the whole conversation (0 = none)'),
        maxCostUsd: z.number().min(0).optional().describe('Cost budget in USD (0 = none)'),
        maxDurationSec: z.number().min(0).optional().describe('Wall-clock budget in seconds (0 = none)'),
        workspace: z
          .string()
          .min(1)
          .optional()
          .describe("Directory the file and terminal tools work in, on the worker's machine (default: the server's)"),
      },
    },
    guarded(ctx, 'start_task', async (a) => {
      const model = a.model === undefined || DEFAULT_MODEL_ALIASES.includes(a.model) ? undefined : a.model;
      if (model !== undefined && !names.includes(model))
        throw new ToolInputError(`model ${JSON.stringify(a.model)} is not a model profile of this server: use one of ${names.join(', ')}`);
      if (a.workspace !== undefined && ctx.caller.principal !== undefined)
        throw new ToolInputError("workspace: a principal's tasks run in the server's workspace (hermes mcp --workspace)");
      const options: StartOptions = {
        ...ctx.defaults,
        ...callerStart(ctx.caller),
        // A chat starts empty and gets its first message as a turn, as hermes chat and serve's sessions do: every
        // turn's answer is then an update's result in the history, where task_result reads it.
        ...(a.mode === 'chat' ? { mode: 'chat', summary: `chat: ${a.prompt.trim().split('\n')[0]!.slice(0, 200)}` } : { prompt: a.prompt }),
        ...(model ? { model } : {}),
        ...(a.workspace ? { workspace: a.workspace } : {}),
        ...(a.maxIterations !== undefined ? { maxIterations: a.maxIterations } : {}),
        ...(a.maxTokens !== undefined ? { maxTokens: a.maxTokens } : {}),
        ...(a.maxCostUsd !== undefined ? { maxCostUsd: a.maxCostUsd } : {}),
        ...(a.maxDurationSec !== undefined ? { maxDurationSec: a.maxDurationSec } : {}),
      };
      const p = ctx.caller.principal;
      const start = () => ctx.hermes.start(p === undefined ? options : { ...options, id: principalTaskId(p, a.prompt, a.mode) });
      // A principal's id is made here, so a clash (one chance in ~2·10^9) is retried here, as start() does its own.
      const handle = await start().catch((err: unknown) => {
        if (p !== undefined && err instanceof WorkflowExecutionAlreadyStartedError) return start();
        throw err;
      });
      if (a.mode === 'chat') void sendTurn(ctx, handle, a.prompt).catch(() => undefined);
      const polling = await handle.workerPolling().catch(() => true);
      return toolResult({
        id: handle.id,
        status: 'started',
        mode: a.mode ?? 'task',
        transcript: conversationUri(handle.id),
        ...(handle.redaction ? { redaction: handle.redaction.notice } : {}),
        ...(a.mode === 'chat' ? { next: 'task_result with waitSec waits for the answer to the first message' } : {}),
        ...(polling ? {} : { note: `no worker polls the task queue "${ctx.hermes.taskQueue}": the task waits until one does (hermes worker)` }),
      });
    }),
  );
}
