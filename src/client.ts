// The typed client API used by code and by the CLI:
//   const hermes = await Hermes.connect();
//   const run = await hermes.start({ prompt: 'Fix the failing test' });
//   console.log((await run.result()).answer);
import {
  Client,
  Connection,
  WorkflowFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import { z } from 'zod';
import { connectClient, resolveTemporal, type TemporalTarget } from './connection';
import { TASK_QUEUE } from './shared/defaults';
import { stateQuery } from './shared/messages';
import type { ConversationInput, ConversationResult, ConversationState } from './shared/types';
import { resolveTools } from './tools/registry';
import type { conversationWorkflow } from './workflows';

export type { ConversationInput, ConversationResult, ConversationState } from './shared/types';

const startSchema = z.object({
  prompt: z.string().trim().min(1, 'prompt must not be empty'),
  model: z.string().min(1).optional(),
  fallbackModel: z.string().min(1).optional(),
  maxIterations: z.number().int().positive().max(10_000).optional(),
  workspace: z.string().min(1).optional(),
  tools: z.array(z.string()).optional(),
  system: z.string().optional(),
  id: z.string().min(1).max(200).optional(),
  toolOutputLimit: z.number().int().min(1_000).max(1_000_000).optional(),
  terminalTimeoutSec: z.number().int().positive().max(3_600).optional(),
  modelMaxAttempts: z.number().int().positive().max(100).optional(),
});
export type StartOptions = z.input<typeof startSchema>;

export interface HermesConnectOptions {
  /** An existing client; otherwise one is made from TEMPORAL_* env (or the embedded dev server). */
  client?: Client;
  taskQueue?: string;
}

export class Hermes {
  private constructor(
    readonly client: Client,
    readonly taskQueue: string,
    private readonly owned?: { connection: Connection; target: TemporalTarget },
  ) {}

  static async connect(opts: HermesConnectOptions = {}): Promise<Hermes> {
    const taskQueue = opts.taskQueue ?? process.env.HERMES_TASK_QUEUE ?? TASK_QUEUE;
    if (opts.client) return new Hermes(opts.client, taskQueue);
    const target = await resolveTemporal();
    const connection = await connectClient(target);
    const client = new Client({ connection, namespace: target.namespace });
    return new Hermes(client, taskQueue, { connection, target });
  }

  /** Starts a conversation; bad options are rejected here, before anything reaches the server. */
  async start(options: StartOptions): Promise<ConversationHandle> {
    const parsed = startSchema.safeParse(options);
    if (!parsed.success) throw new Error(`invalid start options: ${z.prettifyError(parsed.error)}`);
    const o = parsed.data;
    const { unknown } = resolveTools(o.tools);
    if (unknown.length) throw new Error(`unknown tools or toolsets: ${unknown.join(', ')}`);
    const input: ConversationInput = {
      prompt: o.prompt,
      ...(o.model ? { model: o.model } : {}),
      ...(o.fallbackModel ? { fallbackModel: o.fallbackModel } : {}),
      ...(o.workspace ? { workspace: o.workspace } : {}),
      ...(o.tools ? { tools: o.tools } : {}),
      ...(o.system ? { system: o.system } : {}),
      limits: {
        ...(o.maxIterations ? { maxIterations: o.maxIterations } : {}),
        ...(o.toolOutputLimit ? { toolOutputLimit: o.toolOutputLimit } : {}),
        ...(o.terminalTimeoutSec ? { terminalTimeoutSec: o.terminalTimeoutSec } : {}),
        ...(o.modelMaxAttempts ? { modelMaxAttempts: o.modelMaxAttempts } : {}),
      },
    };
    const id = o.id ?? newConversationId();
    const handle = await this.client.workflow.start<typeof conversationWorkflow>('conversationWorkflow', {
      workflowId: id,
      taskQueue: this.taskQueue,
      args: [input],
      staticSummary: `hermes: ${o.prompt.slice(0, 120)}`,
    });
    return new ConversationHandle(handle);
  }

  /** A handle to an existing conversation by workflow id. */
  get(id: string): ConversationHandle {
    return new ConversationHandle(this.client.workflow.getHandle<typeof conversationWorkflow>(id));
  }

  /** Web UI address when running against the embedded dev server. */
  get uiUrl(): string | undefined {
    return this.owned?.target.embedded?.uiUrl;
  }

  get target(): TemporalTarget | undefined {
    return this.owned?.target;
  }

  async close(): Promise<void> {
    await this.owned?.connection.close();
  }
}

export class ConversationHandle {
  constructor(readonly workflow: WorkflowHandle<typeof conversationWorkflow>) {}

  get id(): string {
    return this.workflow.workflowId;
  }

  /** Waits for the end of the conversation, across continue-as-new runs. Never throws for a failed run. */
  async result(): Promise<ConversationResult> {
    try {
      return await this.workflow.result();
    } catch (err) {
      if (!(err instanceof WorkflowFailedError)) throw err;
      const cause = err.cause;
      const cancelled = cause?.name === 'CancelledFailure';
      return {
        status: cancelled ? 'cancelled' : 'failed',
        answer: '',
        reason: cancelled ? 'Cancelled' : (cause?.name ?? 'WorkflowFailed'),
        error: cause?.message ?? err.message,
        usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0 },
        iterations: 0,
        modelCalls: 0,
        toolCalls: 0,
        runs: 0,
      };
    }
  }

  /** Live state (the `state` query): status, iteration, budget left, usage, last steps. */
  state(): Promise<ConversationState> {
    return this.workflow.query(stateQuery);
  }
}

function newConversationId(): string {
  const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return `hermes-${stamp}-${Math.random().toString(36).slice(2, 8)}`;
}
