// OpenTelemetry tracing, configured the standard way (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES…) and
// off when no endpoint is set: then nothing here is loaded beyond this file, the worker runs the plain workflow
// bundle and the activities' spans are the API's no-ops.
//
// On: one tracer provider per process (OTLP/HTTP, JSON), registered globally so that the activity spans of
// @temporalio/interceptors-opentelemetry are the parents of ours (src/observe/step.ts); the workflow's spans are
// made in the sandbox and reach the same processor through the interceptors' sink. Every span passes the
// redactor before it is exported, whatever made it.
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Context } from '@opentelemetry/api';
import type { WorkerOptions } from '@temporalio/worker';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import { Redactor } from '../security/redact';

type Env = NodeJS.ProcessEnv;

/** Tracing is on when an OTLP endpoint is configured and the SDK is not disabled. */
export function tracingConfigured(env: Env = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/** Message content (prompts, replies, tool arguments and results) goes into spans only when opted in. */
export function captureContent(env: Env = process.env): boolean {
  return env.HERMES_OTEL_CONTENT === '1' || env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT === 'true';
}

interface Tracing {
  processor: SpanProcessor;
  resource: import('@opentelemetry/resources').IResource;
  shutdown(): Promise<void>;
}

let tracing: Tracing | undefined;
let redactor: Redactor | undefined;

/** The redactor spans pass before export (the worker's, with its configured patterns). */
export function setTraceRedactor(r: Redactor): void {
  redactor = r;
}

/** Starts the process's tracer provider once (undefined when tracing is off). */
export function startTracing(serviceName = 'hermes'): Tracing | undefined {
  if (tracing || !tracingConfigured()) return tracing;
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on */
  const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { Resource, envDetectorSync } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  /* eslint-enable @typescript-eslint/no-require-imports */
  // OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES (the env detector) win over the default name.
  const resource = Resource.default()
    .merge(new Resource({ 'service.name': serviceName }))
    .merge(envDetectorSync.detect());
  // Short delays: a CLI run ends seconds after its last span, and flush() is called at shutdown anyway.
  const processor = new RedactingProcessor(new BatchSpanProcessor(new OTLPTraceExporter(), { scheduledDelayMillis: 1000 }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register();
  tracing = {
    processor,
    resource,
    shutdown: async () => {
      await provider.forceFlush().catch(() => undefined);
      await provider.shutdown().catch(() => undefined);
      tracing = undefined;
    },
  };
  return tracing;
}

/** Sends what is buffered (before a CLI process exits). */
export async function flushTracing(): Promise<void> {
  await tracing?.processor.forceFlush().catch(() => undefined);
}

/**
 * What a worker adds to its options when tracing is on: the activity interceptors (RunActivity spans, parented to
 * the workflow's StartActivity spans through the headers) and the sink the workflow interceptors export through.
 * The workflow interceptors themselves are in the bundle (bundleOptions({ tracing: true })).
 */
export function workerTracingOptions(): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  const t = startTracing('hermes-worker');
  if (!t) return {};
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on */
  const otel = require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return {
    interceptors: {
      activity: [
        (ctx) => ({
          inbound: new otel.OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new otel.OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks: { exporter: otel.makeWorkflowExporter(t.processor, t.resource as never) },
  };
}

/** The client interceptor (StartWorkflow, SignalWorkflow… spans whose context the workflow continues). */
export function clientTracingInterceptors(): WorkflowClientInterceptor[] {
  if (!startTracing()) return [];
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when tracing is on
  const otel = require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry');
  return [new otel.OpenTelemetryWorkflowClientInterceptor()];
}

/**
 * Redacts every string a span carries (name, attributes, status, events: an activity failure's message and stack)
 * before the real processor exports it. Workflow spans arrive here too, rebuilt from the sink.
 */
class RedactingProcessor implements SpanProcessor {
  constructor(private readonly next: SpanProcessor) {}
  onStart(span: Span, ctx: Context): void {
    this.next.onStart(span, ctx);
  }
  onEnd(span: ReadableSpan): void {
    const r = (redactor ??= new Redactor({ env: process.env }));
    const s = span as { -readonly [K in keyof ReadableSpan]: ReadableSpan[K] };
    s.name = r.text(s.name);
    redactAttributes(s.attributes, r);
    if (s.status.message) s.status = { ...s.status, message: r.text(s.status.message) };
    for (const e of s.events) if (e.attributes) redactAttributes(e.attributes, r);
    this.next.onEnd(span);
  }
  forceFlush(): Promise<void> {
    return this.next.forceFlush();
  }
  shutdown(): Promise<void> {
    return this.next.shutdown();
  }
}

/**
 * Strings redacted; values that are not attribute values (OpenTelemetry allows primitives and arrays of them) are
 * dropped: the SDK's workflow span sink copies the whole WorkflowInfo onto every workflow span, objects included —
 * its memo holds the conversation's summary (the prompt's words), its search attributes and last result too.
 */
function redactAttributes(attrs: Record<string, unknown>, r: Redactor): void {
  const primitive = (x: unknown) => x === null || (typeof x !== 'object' && typeof x !== 'function');
  for (const [k, v] of Object.entries(attrs)) {
    if (typeof v === 'string') attrs[k] = r.text(v);
    else if (Array.isArray(v)) attrs[k] = v.filter(primitive).map((x: unknown) => (typeof x === 'string' ? r.text(x) : x));
    else if (!primitive(v)) delete attrs[k];
  }
}
