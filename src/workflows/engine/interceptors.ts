// Workflow interceptors of the traced bundle (bundleOptions({ tracing: true })): Temporal's OpenTelemetry ones
// (RunWorkflow, StartActivity, StartChildWorkflow, ContinueAsNew… spans, the context passed on in headers) and the
// `invoke_agent` span per turn (src/workflows/engine/observe.ts). Runs in the workflow sandbox: span ids come from the
// sandbox's seeded random and times from workflow time, so a replay makes the same spans, and the interceptors'
// sink does not export during replay.
import * as otel from '@opentelemetry/api';
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import { workflowInfo, type WorkflowInterceptors } from '@temporalio/workflow';
import { setTurnSpanHook, type TurnSpanHook } from './observe';

export const interceptors = (): WorkflowInterceptors => {
  const inbound = new OpenTelemetryInboundInterceptor();
  // The interceptors' own tracer (the provider they register in this sandbox).
  const tracer = (inbound as unknown as { tracer: otel.Tracer }).tracer;
  setTurnSpanHook(turnSpan(tracer));
  return {
    inbound: [inbound],
    outbound: [new OpenTelemetryOutboundInterceptor()],
    internals: [new OpenTelemetryInternalsInterceptor()],
  };
};

/**
 * One trace per turn: the first turn of a run is a child of the run's RunWorkflow span (so a `hermes run` is one
 * trace from the client's StartWorkflow down to each model call, and a sub-agent's turn sits under its parent's
 * StartChildWorkflow); each later chat turn starts a trace of its own, linked to the run's span.
 */
function turnSpan(tracer: otel.Tracer): TurnSpanHook {
  return async (info, fn, outcome) => {
    const run = otel.trace.getSpan(otel.context.active());
    const { workflowId, runId } = workflowInfo();
    const options: otel.SpanOptions = {
      kind: otel.SpanKind.INTERNAL,
      root: !info.first,
      ...(!info.first && run ? { links: [{ context: run.spanContext() }] } : {}),
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': info.agent,
        'gen_ai.conversation.id': workflowId,
        'hermes.run_id': runId,
        'hermes.turn': info.turn,
      },
    };
    return tracer.startActiveSpan(`invoke_agent ${info.agent}`, options, async (span) => {
      try {
        const r = await fn();
        span.setAttributes(outcome(r));
        return r;
      } catch (err) {
        span.setStatus({ code: otel.SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
        throw err;
      } finally {
        span.end();
      }
    });
  };
}
