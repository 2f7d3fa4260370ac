// The one seam between the activities and observability: the model activity runs each attempt through
// observeModelCall, the tool activity each call through observeToolCall, and these make the span (GenAI semantic
// conventions: `chat {model}`, `execute_tool {name}`), count the metrics and write the step's log line.
// With tracing off the span is the OpenTelemetry API's no-op; without a metrics exporter the meter is too.
import * as otel from '@opentelemetry/api';
import type { Redactor } from '../security/redact';
import type { ModelCallResult, ToolCallResult } from '../shared/wire';
import { countModelCall, countToolCall } from './metrics';
import { logStep } from './step-log';
import { captureContent } from './tracing';

const tracer = () => otel.trace.getTracer('hermes');

/** Characters of message content a span keeps when content capture is on. */
const MAX_CONTENT_CHARS = 32 * 1024;

export interface ModelCallInfo {
  workflowId: string;
  runId: string;
  step: number;
  attempt: number;
  profile: string;
  model: string;
  baseURL: string;
  purpose?: string;
  redactor?: Redactor;
}

/** What the model activity tells the seam as the call goes (all optional). */
export interface ModelCallObserver {
  /** The messages sent (kept in the span only when content capture is on). */
  request(messages: unknown): void;
  /** The endpoint's reply: its id, model, finish reason and cached prompt tokens. */
  response(r: { id?: string; model?: string; finishReason?: string | null; cachedTokens?: number }): void;
}

export async function observeModelCall(info: ModelCallInfo, fn: (obs: ModelCallObserver) => Promise<ModelCallResult>): Promise<ModelCallResult> {
  const server = endpointOf(info.baseURL);
  const attributes: otel.Attributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': server.provider,
    'gen_ai.request.model': info.model,
    'gen_ai.conversation.id': info.workflowId,
    'server.address': server.host,
    ...(server.port ? { 'server.port': server.port } : {}),
    'hermes.profile': info.profile,
    'hermes.run_id': info.runId,
    'hermes.step': info.step,
    'hermes.attempt': info.attempt,
    ...(info.purpose ? { 'hermes.purpose': info.purpose } : {}),
  };
  const content = captureContent();
  return tracer().startActiveSpan(`chat ${info.model}`, { kind: otel.SpanKind.CLIENT, attributes }, async (span) => {
    const started = performance.now();
    let finishReason: string | undefined;
    let cachedTokens: number | undefined;
    const obs: ModelCallObserver = {
      request: (messages) => {
        if (content && span.isRecording()) span.setAttribute('gen_ai.input.messages', contentText(messages, info.redactor));
      },
      response: (r) => {
        finishReason = r.finishReason ?? undefined;
        cachedTokens = r.cachedTokens;
        if (r.id) span.setAttribute('gen_ai.response.id', r.id);
        if (r.model) span.setAttribute('gen_ai.response.model', r.model);
      },
    };
    const base = { event: 'model_step' as const, conversationId: info.workflowId, runId: info.runId, step: info.step, attempt: info.attempt };
    const who = { profile: info.profile, model: info.model };
    try {
      const result = await fn(obs);
      const durationMs = Math.round(performance.now() - started);
      const u = result.usage;
      const finish = finishReason ?? (result.message.tool_calls?.length ? 'tool_calls' : 'stop');
      span.setAttributes({
        'gen_ai.response.finish_reasons': [finish],
        'gen_ai.usage.input_tokens': u.promptTokens,
        'gen_ai.usage.output_tokens': u.completionTokens,
        ...(u.reasoningTokens ? { 'gen_ai.usage.reasoning.output_tokens': u.reasoningTokens } : {}),
        ...(cachedTokens ? { 'gen_ai.usage.cache_read.input_tokens': cachedTokens } : {}),
        'hermes.cost_usd': u.costUsd,
        'hermes.outcome': 'ok',
      });
      if (content) span.setAttribute('gen_ai.output.messages', contentText([{ role: 'assistant', ...result.message }], info.redactor));
      countModelCall({
        ...who,
        outcome: 'ok',
        durationMs,
        attempt: info.attempt,
        tokensIn: u.promptTokens,
        tokensOut: u.completionTokens,
        costUsd: u.costUsd,
        redactions: result.redactions,
      });
      logStep({
        ...base,
        ...who,
        durationMs,
        outcome: 'ok',
        tokensIn: u.promptTokens,
        tokensOut: u.completionTokens,
        ...(u.reasoningTokens ? { reasoningTokens: u.reasoningTokens } : {}),
        costUsd: u.costUsd,
        finishReason: finish,
        toolCalls: result.message.tool_calls?.length ?? 0,
        ...(result.redactions ? { redactions: result.redactions } : {}),
        ...traceIdOf(span),
      });
      return result;
    } catch (err) {
      const durationMs = Math.round(performance.now() - started);
      const f = failureOf(err);
      markFailed(span, f);
      countModelCall({ ...who, outcome: f.outcome === 'cancelled' ? 'cancelled' : f.type, durationMs, attempt: info.attempt });
      logStep({ ...base, ...who, durationMs, outcome: f.outcome, failureType: f.type, error: f.message, ...traceIdOf(span) });
      throw err;
    } finally {
      span.end();
    }
  });
}

export interface ToolCallInfo {
  workflowId: string;
  runId: string;
  name: string;
  callId: string;
  attempt: number;
  /** The catalog's source (builtin, http, module:<file>, mcp:<server>): HTTP and MCP tools are client spans (a call to another service). */
  source: string;
  toolset?: string;
  args?: unknown;
  redactor?: Redactor;
  cancelled: () => boolean;
}

export async function observeToolCall(info: ToolCallInfo, fn: () => Promise<ToolCallResult>): Promise<ToolCallResult> {
  // The catalog's source: builtin, http, module:<file>, mcp:<server>.
  const [source = 'builtin', where] = info.source.split(/:(.*)/s);
  const remote = source === 'http' || source === 'mcp';
  const attributes: otel.Attributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': info.name,
    'gen_ai.tool.call.id': info.callId,
    'gen_ai.tool.type': source === 'builtin' ? 'function' : 'extension',
    'gen_ai.conversation.id': info.workflowId,
    'hermes.run_id': info.runId,
    'hermes.attempt': info.attempt,
    'hermes.tool.source': source,
    ...(info.toolset ? { 'hermes.toolset': info.toolset } : {}),
    ...(source === 'mcp' ? { 'mcp.method.name': 'tools/call', ...(where ? { 'hermes.mcp.server': where } : {}) } : {}),
  };
  const content = captureContent();
  const kind = remote ? otel.SpanKind.CLIENT : otel.SpanKind.INTERNAL;
  return tracer().startActiveSpan(`execute_tool ${info.name}`, { kind, attributes }, async (span) => {
    const started = performance.now();
    if (content && info.args !== undefined) span.setAttribute('gen_ai.tool.call.arguments', contentText(info.args, info.redactor));
    const base = {
      event: 'tool_call' as const,
      conversationId: info.workflowId,
      runId: info.runId,
      tool: info.name,
      callId: info.callId,
      attempt: info.attempt,
    };
    try {
      const result = await fn();
      const durationMs = Math.round(performance.now() - started);
      const outcome = info.cancelled() ? 'cancelled' : result.ok ? 'ok' : 'error';
      span.setAttribute('hermes.outcome', outcome);
      if (outcome !== 'ok') span.setAttribute('error.type', outcome === 'cancelled' ? 'cancelled' : 'tool_error');
      if (content) span.setAttribute('gen_ai.tool.call.result', contentText(result.content, info.redactor));
      countToolCall({ tool: info.name, outcome, durationMs, attempt: info.attempt, redactions: result.redactions });
      logStep({
        ...base,
        durationMs,
        outcome,
        // A tool's own failure is a result the model reads: its first line says what went wrong.
        ...(outcome === 'error' ? { error: result.content.split('\n', 1)[0]!.slice(0, 300) } : {}),
        size: result.size,
        truncated: result.truncated,
        ...(result.redactions ? { redactions: result.redactions } : {}),
        ...traceIdOf(span),
      });
      return result;
    } catch (err) {
      const durationMs = Math.round(performance.now() - started);
      const f = failureOf(err, info.cancelled());
      markFailed(span, f);
      countToolCall({ tool: info.name, outcome: f.outcome === 'cancelled' ? 'cancelled' : 'failed', durationMs, attempt: info.attempt });
      logStep({ ...base, durationMs, outcome: f.outcome, failureType: f.type, error: f.message, ...traceIdOf(span) });
      throw err;
    } finally {
      span.end();
    }
  });
}

interface Failure {
  outcome: 'failed' | 'cancelled';
  type: string;
  message: string;
}

/** The failure's stable type (ApplicationFailure.type, else the error's name) and message (already redacted). */
function failureOf(err: unknown, cancelled = false): Failure {
  const e = err as { type?: unknown; name?: unknown; message?: unknown } | null;
  const type = typeof e?.type === 'string' && e.type ? e.type : typeof e?.name === 'string' ? e.name : 'Error';
  const isCancel = cancelled || type === 'CancelledFailure' || type === 'AbortError';
  return { outcome: isCancel ? 'cancelled' : 'failed', type, message: typeof e?.message === 'string' ? e.message.slice(0, 500) : String(err) };
}

function markFailed(span: otel.Span, f: Failure): void {
  span.setAttributes({ 'error.type': f.outcome === 'cancelled' ? 'cancelled' : f.type, 'hermes.outcome': f.outcome });
  span.setStatus({ code: otel.SpanStatusCode.ERROR, message: f.message });
}

function traceIdOf(span: otel.Span): { traceId?: string } {
  return span.isRecording() ? { traceId: span.spanContext().traceId } : {};
}

/** Content for a span (opted in): redacted, as JSON, capped. */
function contentText(v: unknown, redactor: Redactor | undefined): string {
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  const red = redactor ? redactor.text(text) : text;
  return red.length > MAX_CONTENT_CHARS ? `${red.slice(0, MAX_CONTENT_CHARS)}…` : red;
}

/** A profile's server and provider, worked out once per base URL (a URL parse and a dozen regexes, on every step). */
const endpoints = new Map<string, { host: string; port?: number; provider: string }>();
function endpointOf(baseURL: string): { host: string; port?: number; provider: string } {
  let e = endpoints.get(baseURL);
  if (!e) {
    const server = serverOf(baseURL);
    endpoints.set(baseURL, (e = { ...server, provider: providerOf(server.host) }));
  }
  return e;
}

function serverOf(baseURL: string): { host: string; port?: number } {
  try {
    const u = new URL(baseURL);
    return { host: u.hostname, ...(u.port ? { port: Number(u.port) } : {}) };
  } catch {
    return { host: 'unknown' };
  }
}

/** gen_ai.provider.name: the well-known value for a known host, else the API spoken by any OpenAI-compatible server. */
function providerOf(host: string): string {
  const known: Array<[RegExp, string]> = [
    [/(^|\.)openai\.com$/, 'openai'],
    [/(^|\.)openai\.azure\.com$/, 'azure.ai.openai'],
    [/(^|\.)deepseek\.com$/, 'deepseek'],
    [/(^|\.)groq\.com$/, 'groq'],
    [/(^|\.)mistral\.ai$/, 'mistral_ai'],
    [/(^|\.)x\.ai$/, 'x_ai'],
    [/(^|\.)anthropic\.com$/, 'anthropic'],
    [/(^|\.)googleapis\.com$/, 'gcp.gen_ai'],
    [/(^|\.)openrouter\.ai$/, 'openrouter'],
  ];
  return known.find(([re]) => re.test(host))?.[1] ?? 'openai_compatible';
}
