// Workflow-side half of the replay corpus's behaviour check (test/replay/commands.ts): bundled only into the test's
// replay bundles, never into a worker's. Temporal's replay compares the commands a workflow emits with the
// recorded events by type and order only; what they carry — an activity's input, a timer's duration, a child's
// input, the result — may change without a nondeterminism error. This interceptor hands every activation's
// commands out through a sink, so the test can compare those payloads with the recorded events' too.
// Runs in the workflow sandbox: no Node built-ins, no I/O.
import { proxySinks, type Sinks, type WorkflowInterceptorsFactory } from '@temporalio/workflow';

/** The commands of one activation, as the SDK hands them to core (payloads already converted). */
export interface CapturedActivation {
  commands: unknown[];
}

export interface CaptureSinks extends Sinks {
  hermesReplayCommands: { activation(a: CapturedActivation): void };
}

const { hermesReplayCommands } = proxySinks<CaptureSinks>();

export const interceptors: WorkflowInterceptorsFactory = () => ({
  internals: [
    {
      concludeActivation(input, next) {
        const out = next(input);
        if (out.commands.length) hermesReplayCommands.activation({ commands: out.commands });
        return out;
      },
    },
  ],
});
