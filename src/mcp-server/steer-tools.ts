// The tools that steer a running conversation: send_message (a chat's next turn), answer_question, approve,
// interrupt. Each goes through the client's handle (src/client.ts), which replaces secrets in what is typed.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { conversationIdField, guarded, needWorker, runningConversation, toolResult, ToolInputError, type McpContext } from './context';
import { sendTurn } from './send-turn';
import { MAX_WAIT_SEC, stateWithin } from './wait';

const textField = (what: string) =>
  z
    .string()
    .max(1_000_000)
    .refine((t) => t.trim().length > 0, 'must not be empty')
    .describe(what);

export function registerSteerTools(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'send_message',
    {
      title: 'Send a chat message',
      description:
        'Sends the next user message to a chat conversation (start_task with mode "chat") and waits up to waitSec for that turn\'s ' +
        'answer; a turn still under way then is answered by task_result. A running task is steered with interrupt and a message instead.',
      inputSchema: {
        id: conversationIdField(),
        text: textField('The message'),
        waitSec: z.number().min(0).max(MAX_WAIT_SEC).optional().describe(`Seconds to wait for the answer (0 to ${MAX_WAIT_SEC}; default 0)`),
      },
    },
    guarded(ctx, 'send_message', async ({ id, text, waitSec }) => {
      const handle = await runningConversation(ctx, id, 'send');
      await needWorker(ctx, handle);
      // The workflow refuses a message to a task as well, but only once the update is under way: asked first, the
      // refusal comes back even when the caller does not wait.
      const s = await stateWithin(ctx, handle);
      if (s?.mode === 'task')
        throw new ToolInputError(`${id} is a task, not a chat: steer it with interrupt { "id", "message" }, or start_task with mode "chat"`);
      const turn = await Promise.race([sendTurn(ctx, handle, text), sleep((waitSec ?? 0) * 1000, undefined, { ref: false })]);
      if (!turn) return toolResult({ id, status: 'running', sent: true, next: 'task_result with waitSec waits for the answer' });
      return toolResult({
        id,
        sent: true,
        turn: turn.turn,
        status: turn.status,
        answer: turn.answer,
        iterations: turn.iterations,
        usage: turn.usage,
        ...(turn.redaction ? { redaction: turn.redaction.notice } : {}),
      });
    }),
  );

  server.registerTool(
    'answer_question',
    {
      title: 'Answer a question',
      description: "Answers the conversation's pending clarify question (task_status shows it as pendingQuestion); the conversation goes on.",
      inputSchema: { id: conversationIdField(), text: textField('The answer') },
    },
    guarded(ctx, 'answer_question', async ({ id, text }) => {
      const handle = await runningConversation(ctx, id, 'answer');
      await needWorker(ctx, handle);
      const r = await handle.answer(text);
      return toolResult({ id, answered: r.callId, ...(r.redaction ? { redaction: r.redaction.notice } : {}) });
    }),
  );

  server.registerTool(
    'approve',
    {
      title: 'Approve or deny a tool call',
      description:
        'Approves or denies a tool call that waits for approval (task_status lists them as pendingApprovals, with their callId). ' +
        'remember: approve the same command pattern for the rest of the conversation.',
      inputSchema: {
        id: conversationIdField(),
        callId: z.string().min(1).max(1_000).describe("The pending approval's callId"),
        decision: z.enum(['approve', 'deny']).optional().describe('approve (default) or deny'),
        remember: z.boolean().optional().describe('Also approve later calls of the same pattern'),
      },
    },
    guarded(ctx, 'approve', async ({ id, callId, decision, remember }) => {
      const handle = await runningConversation(ctx, id, 'approve');
      await needWorker(ctx, handle);
      const r = await handle.approve(callId, decision ?? 'approve', remember === true);
      return toolResult({ id, callId: r.callId, decision: r.decision, ...(r.workflowId ? { subAgent: r.workflowId } : {}) });
    }),
  );

  server.registerTool(
    'interrupt',
    {
      title: 'Interrupt',
      description:
        'Stops the step a conversation is taking. Without message the task ends as interrupted, with a summary of the work so far; ' +
        'with message the conversation goes on with it as the next user message.',
      inputSchema: {
        id: conversationIdField(),
        message: z.string().max(1_000_000).optional().describe('Go on with this message'),
        reason: z.string().max(10_000).optional().describe('Why (recorded in the history)'),
      },
    },
    guarded(ctx, 'interrupt', async ({ id, message, reason }) => {
      const handle = await runningConversation(ctx, id, 'interrupt');
      const redaction = await handle.interrupt({ reason: reason ?? 'interrupted by an MCP client', ...(message ? { message } : {}) });
      return toolResult({
        id,
        interrupted: true,
        ...(message ? { continuesWith: 'the message' } : {}),
        ...(redaction ? { redaction: redaction.notice } : {}),
      });
    }),
  );
}
