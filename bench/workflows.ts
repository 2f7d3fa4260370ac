// Reference workflows the benchmark compares the agent loop against. Deterministic code only.
//   floorWorkflow           the engine floor: n sequential no-op activities, nothing else
//   floorThroughputWorkflow the floor for the throughput scenario: (sleep + no-op) × n, then one sleep
//   localFloorThroughputWorkflow  the same with local activities: no server round trip per step
//   naiveLoopWorkflow       an agent loop "like peers do it": the whole transcript goes into every model
//                           activity input, so history grows with the square of the iterations
import { proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { ChatMessage, ToolCall } from '../src/shared/wire';
import { builtSystemPrompt } from '../src/shared/system-prompt';
import type { createBenchActivities } from './activities';
import type { createActivities } from '../src/activities';

type BenchActs = ReturnType<typeof createBenchActivities>;
type ProductActs = ReturnType<typeof createActivities>;

// Same timeouts and retry shape as the product's model activity (src/workflows/engine/activity-options.ts).
const options = {
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 6 },
} as const;

const bench = proxyActivities<BenchActs>(options);
const product = proxyActivities<ProductActs>(options);
const benchLocal = proxyLocalActivities<BenchActs>({ startToCloseTimeout: '1 minute' });

export interface HistoryStats {
  historyLength: number;
  historySize: number;
}

function stats(): HistoryStats {
  const i = workflowInfo();
  return { historyLength: i.historyLength, historySize: i.historySize };
}

export async function floorWorkflow(activities: number): Promise<HistoryStats> {
  for (let i = 0; i < activities; i++) await bench.benchNoop();
  return stats();
}

export interface ShapeInput {
  iterations: number;
  delayMs: number;
}

/** (a model-long sleep + a no-op) × iterations, then the final answer's sleep. */
async function sleepNoopLoop(a: Pick<BenchActs, 'benchSleep' | 'benchNoop'>, input: ShapeInput): Promise<HistoryStats> {
  for (let i = 0; i < input.iterations; i++) {
    await a.benchSleep(input.delayMs);
    await a.benchNoop();
  }
  await a.benchSleep(input.delayMs);
  return stats();
}

export const floorThroughputWorkflow = (input: ShapeInput) => sleepNoopLoop(bench, input);

/** Local activities run in the worker and are recorded as markers: the cheapest shape Temporal offers. */
export const localFloorThroughputWorkflow = (input: ShapeInput) => sleepNoopLoop(benchLocal, input);

export interface NaiveInput {
  prompt: string;
  tools: string[];
  maxIterations: number;
  toolOutputLimit: number;
}

export interface NaiveResult extends HistoryStats {
  answer: string;
  iterations: number;
}

export async function naiveLoopWorkflow(input: NaiveInput): Promise<NaiveResult> {
  const messages: ChatMessage[] = [
    { role: 'system', content: builtSystemPrompt({ tools: input.tools }, { date: '2026-01-01', workspace: '.' }) },
    { role: 'user', content: input.prompt },
  ];
  for (let iteration = 1; iteration <= input.maxIterations; iteration++) {
    // The whole transcript is the activity input: recorded in history at every step.
    const r = await bench.naiveModel({ messages, tools: input.tools });
    const calls: ToolCall[] = r.message.tool_calls ?? [];
    messages.push({ role: 'assistant', content: r.message.content, ...(calls.length ? { tool_calls: calls } : {}) });
    if (calls.length === 0) return { answer: r.message.content ?? '', iterations: iteration, ...stats() };
    for (const call of calls) {
      let args: Record<string, unknown> = {};
      try {
        args = JSON.parse(call.function.arguments) as Record<string, unknown>;
      } catch {
        // the real tool activity reports invalid arguments
      }
      const res = await product.runTool({
        callId: call.id,
        name: call.function.name,
        args,
        outputLimit: input.toolOutputLimit,
        terminalTimeoutSec: 60,
      });
      messages.push({ role: 'tool', tool_call_id: call.id, content: res.content });
    }
  }
  return { answer: '', iterations: input.maxIterations, ...stats() };
}

/** n sequential activities on another task queue, never eagerly dispatched (bench/dispatch-latency.ts). */
export async function dispatchProbeWorkflow(queue: string, n: number): Promise<void> {
  const probe = proxyActivities<{ probe(): Promise<void> }>({ taskQueue: queue, startToCloseTimeout: '1 minute', allowEagerDispatch: false });
  for (let i = 0; i < n; i++) await probe.probe();
}
