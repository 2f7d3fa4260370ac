// Hermes's metrics, made with the Temporal runtime's own meter: they are exported by the same Prometheus endpoint
// as the SDK's worker metrics (`hermes worker --metrics-port N`: Runtime telemetryOptions.metrics.prometheus), so
// one scrape gets both. Without a metrics exporter the runtime's meter is a no-op: nothing is counted then.
// Labels are bounded and carry nothing of a conversation: profile, tool name, outcome, failure type.
import type { Client } from '@temporalio/client';
import type { MetricCounter, MetricGauge, MetricHistogram } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import { HermesStatus } from '../shared/search-attributes';

interface Instruments {
  modelCalls: MetricCounter;
  modelDuration: MetricHistogram;
  tokens: MetricCounter;
  cost: MetricHistogram;
  retries: MetricCounter;
  toolCalls: MetricCounter;
  toolDuration: MetricHistogram;
  redactions: MetricCounter;
  conversations: MetricGauge;
}

let instruments: Instruments | undefined;

function meter(): Instruments {
  if (instruments) return instruments;
  const m = Runtime.instance().metricMeter;
  instruments = {
    modelCalls: m.createCounter('hermes_model_calls', '', 'Model call attempts by profile and outcome (ok or the failure type)'),
    modelDuration: m.createHistogram('hermes_model_call_duration', 'int', 'ms', 'Model call attempt duration'),
    tokens: m.createCounter('hermes_model_tokens', '', 'Tokens by profile and direction (in, out)'),
    cost: m.createHistogram('hermes_model_cost_usd', 'float', 'USD', 'Cost of each model call (the sum is the total cost)'),
    retries: m.createCounter('hermes_retries', '', 'Activity attempts after the first (model calls and tool calls)'),
    toolCalls: m.createCounter('hermes_tool_calls', '', 'Tool calls by tool and outcome (ok, error, failed)'),
    toolDuration: m.createHistogram('hermes_tool_call_duration', 'int', 'ms', 'Tool call duration'),
    redactions: m.createCounter('hermes_redactions', '', 'Secrets replaced in model replies and tool results'),
    conversations: m.createGauge('hermes_conversations', 'int', '', 'Open conversations by HermesStatus (from visibility)'),
  };
  return instruments;
}

/** Histogram buckets for the runtime's Prometheus exporter (by metric name, prefix aside). */
export const HISTOGRAM_BUCKETS: Record<string, number[]> = {
  hermes_model_call_duration: [100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 120000],
  hermes_tool_call_duration: [5, 25, 100, 250, 1000, 5000, 30000, 120000],
  hermes_model_cost_usd: [0.0001, 0.001, 0.01, 0.1, 1],
};

export interface ModelCallMetrics {
  profile: string;
  outcome: string;
  durationMs: number;
  attempt: number;
  tokensIn?: number;
  tokensOut?: number;
  costUsd?: number;
  redactions?: number;
}

export function countModelCall(r: ModelCallMetrics): void {
  const m = meter();
  const profile = { profile: r.profile };
  m.modelCalls.add(1, { ...profile, outcome: r.outcome });
  m.modelDuration.record(Math.round(r.durationMs), { ...profile, outcome: r.outcome });
  if (r.tokensIn) m.tokens.add(r.tokensIn, { ...profile, direction: 'in' });
  if (r.tokensOut) m.tokens.add(r.tokensOut, { ...profile, direction: 'out' });
  if (r.costUsd !== undefined && r.outcome === 'ok') m.cost.record(r.costUsd, profile);
  if (r.attempt > 1) m.retries.add(1, { activity: 'callModel', ...profile });
  if (r.redactions) m.redactions.add(r.redactions, { where: 'model' });
}

export interface ToolCallMetrics {
  tool: string;
  outcome: string;
  durationMs: number;
  attempt: number;
  redactions?: number;
}

export function countToolCall(r: ToolCallMetrics): void {
  const m = meter();
  m.toolCalls.add(1, { tool: r.tool, outcome: r.outcome });
  m.toolDuration.record(Math.round(r.durationMs), { tool: r.tool });
  if (r.attempt > 1) m.retries.add(1, { activity: 'runTool', tool: r.tool });
  if (r.redactions) m.redactions.add(r.redactions, { where: 'tool' });
}

/** Loopback unless HERMES_METRICS_HOST says otherwise (docker-compose.yml sets 0.0.0.0 for the scraper). */
export const DEFAULT_METRICS_HOST = '127.0.0.1';

/** The host the Prometheus endpoint binds: HERMES_METRICS_HOST, else loopback. */
export function metricsHost(env: NodeJS.ProcessEnv = process.env): string {
  return env.HERMES_METRICS_HOST?.trim() || DEFAULT_METRICS_HOST;
}

/**
 * The runtime's metrics options for `hermes worker --metrics-port N`. Core's `bindAddress` is a socket address,
 * HOST:PORT, with an IPv6 host in brackets ("[::]:9464").
 */
export function prometheusOptions(port: number, host = metricsHost()) {
  const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return { prometheus: { bindAddress: `${h}:${port}`, histogramBucketOverrides: HISTOGRAM_BUCKETS } };
}

const WAITING = ['waiting', 'running', 'idle'] as const;

/**
 * The conversations gauge, from visibility: open conversations of the namespace by HermesStatus, counted every
 * `everyMs`. The same numbers on every worker (they are the cluster's): aggregate with max, not sum. Returns stop.
 */
export function watchConversations(client: Client, everyMs = 15_000): () => void {
  const count = async () => {
    for (const status of WAITING) {
      const query = `WorkflowType = 'conversationWorkflow' AND ExecutionStatus = 'Running' AND ${HermesStatus.name} = '${status}'`;
      const { count: n } = await client.workflow.count(query);
      meter().conversations.set(n, { status });
    }
  };
  let running = false;
  const tick = () => {
    if (running) return;
    running = true;
    count()
      .catch(() => undefined) // visibility lagging or unavailable: the gauge keeps its last values
      .finally(() => (running = false));
  };
  tick();
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
