// A conversation cancelled through Temporal (`hermes cancel`, `temporal workflow cancel`, a parent's cancel) ends
// without a result of its own, so result() has no totals to pass on. They are recovered here rather than made up:
//   1. the `state` query, when a worker polls the conversation's task queue (it replays the closed run: exact);
//   2. the history otherwise (no worker needed): the totals the last run started with (its carried state), plus
//      the usage its completed model calls returned, the model calls and iterations it numbered, and the tool
//      calls it ran. Sub-agents' spending reported after the last continue-as-new is not in there.
// Undefined when neither answers (an encrypted history without the key, the server gone): result() then reports
// `runs: 0`, which no conversation that ran has, and the CLI prints the totals as unknown.
import type { WorkflowHandle } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { fetchRunHistories } from './step-context';
import { decodeStoredValue } from '../storage/decode';
import type { ConversationResult } from '../shared/contract';
import { stateQuery } from '../shared/messages';
import type { ModelCallInput, ModelCallResult } from '../shared/wire';
import { toolSpec } from '../tools/registry';
import { addUsage } from '../workflows/rules/usage';

export type Totals = Pick<ConversationResult, 'usage' | 'iterations' | 'modelCalls' | 'toolCalls' | 'runs'>;

/** How long the state query may take (a closed run is replayed) before the history is read instead. */
const QUERY_TIMEOUT_MS = 5_000;

export async function cancelledTotals(workflow: WorkflowHandle): Promise<Totals | undefined> {
  const fromState = await stateTotals(workflow).catch(() => undefined);
  if (fromState) return fromState;
  return historyTotals(workflow).catch(() => undefined);
}

async function stateTotals(workflow: WorkflowHandle): Promise<Totals | undefined> {
  const client = workflow.client;
  const d = await workflow.describe();
  const pollers = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: d.taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  // Without a worker the query would wait for one: the history answers at once.
  if (!pollers.pollers?.length) return undefined;
  const s = await client.connection.withDeadline(Date.now() + QUERY_TIMEOUT_MS, () => workflow.query(stateQuery));
  return { usage: s.usage, iterations: s.iteration, modelCalls: s.modelCalls, toolCalls: s.toolCalls, runs: s.runs };
}

async function historyTotals(workflow: WorkflowHandle): Promise<Totals> {
  const client = workflow.client;
  const converter = client.options.loadedDataConverter;
  const decode = (p: Payload | null | undefined) => decodeStoredValue(converter, p);
  const runs = await fetchRunHistories({ workflow: client }, workflow.workflowId);
  const events = runs.at(-1)?.events ?? [];
  // The totals of the runs before this one, as the continue-as-new carried them (the workflow's second argument).
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  const carried = (await decode(started?.input?.payloads?.[1])) as Partial<Totals & { iteration: number }> | undefined;
  const t: Totals = {
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0, ...carried?.usage },
    iterations: carried?.iteration ?? 0,
    modelCalls: carried?.modelCalls ?? 0,
    toolCalls: carried?.toolCalls ?? 0,
    runs: (carried?.runs ?? 0) + 1,
  };
  const models = new Set<string>();
  for (const e of events) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === 'callModel') {
      models.add(String(e.eventId));
      const input = (await decode(scheduled.input?.payloads?.[0])) as Partial<ModelCallInput> | undefined;
      // The workflow numbers its model calls (input.step) and names a loop step's call "model step N" (its iteration).
      if (typeof input?.step === 'number') t.modelCalls = Math.max(t.modelCalls, input.step);
      const summary = await decode(e.userMetadata?.summary).catch(() => undefined);
      const iteration = typeof summary === 'string' ? /^model step (\d+)$/.exec(summary)?.[1] : undefined;
      if (iteration) t.iterations = Math.max(t.iterations, Number(iteration));
    } else if (scheduled?.activityType?.name === 'runTool') t.toolCalls++;
    const done = e.activityTaskCompletedEventAttributes;
    if (done && models.has(String(done.scheduledEventId))) {
      const r = (await decode(done.result?.payloads?.[0])) as Partial<ModelCallResult> | undefined;
      if (r?.usage) t.usage = addUsage(t.usage, r.usage);
      // Internal tools (todo, clarify…) run inside the workflow, without an activity: counted from the reply.
      t.toolCalls += (r?.message?.tool_calls ?? []).filter((c) => toolSpec(c.function?.name)?.internal).length;
    }
  }
  return t;
}
