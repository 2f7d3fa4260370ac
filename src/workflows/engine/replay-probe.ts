// Workflow-side half of "answer a finished conversation's queries without a worker" (src/inspect/replay-query.ts): an
// interceptor bundled only into the replay bundle, never into a worker's. When the replayed run ends (its last
// activation emits the run's closing command), it asks the run's own query handlers what a worker would answer
// — the `state` query and the `context` query for every context version — and hands the answers out through a
// sink that replay calls. Runs in the workflow sandbox: no Node built-ins, no I/O.
import { proxySinks, type Sinks, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
// The handlers setHandler registered, as the SDK keeps them (1.24): the only way to call a query in a replay.
import { getActivator } from '@temporalio/workflow/lib/global-attributes';
import type { ContextSlice } from '../../shared/wire';

export interface ProbeAnswers {
  /** The `state` query without arguments. */
  state?: unknown;
  /** The `context` query for each context version 0…current, the whole of each. */
  contexts: ContextSlice[];
  /** Why a query could not be answered. */
  errors: string[];
}

export interface ProbeSinks extends Sinks {
  hermesReplayProbe: { answers(a: ProbeAnswers): void };
}

const { hermesReplayProbe } = proxySinks<ProbeSinks>();

/** Commands that close a run: the replay's last activation has one of them. */
const CLOSING = ['completeWorkflowExecution', 'failWorkflowExecution', 'cancelWorkflowExecution', 'continueAsNewWorkflowExecution'] as const;

export const interceptors: WorkflowInterceptorsFactory = () => ({
  internals: [
    {
      concludeActivation(input, next) {
        const out = next(input);
        if (out.commands.some((c) => CLOSING.some((k) => c[k]))) hermesReplayProbe.answers(ask());
        return out;
      },
    },
  ],
});

function ask(): ProbeAnswers {
  const handlers = getActivator().queryHandlers;
  const errors: string[] = [];
  const call = (name: string, ...args: unknown[]): unknown => {
    const h = handlers.get(name)?.handler as ((...a: unknown[]) => unknown) | undefined;
    if (!h) return (errors.push(`no ${name} query`), undefined);
    try {
      return h(...args);
    } catch (err) {
      errors.push(`${name}: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  };
  const state = call('state');
  const latest = call('context') as { version?: number } | undefined;
  const contexts: ContextSlice[] = [];
  for (let v = 0; typeof latest?.version === 'number' && v <= latest.version; v++) {
    const slice = call('context', { version: v, from: 0, to: Number.MAX_SAFE_INTEGER }) as ContextSlice | undefined;
    // A version the run no longer has answers with the current one: not a copy of that version.
    if (slice && slice.version === v) contexts.push(slice);
  }
  // Plain data across the sandbox boundary.
  return JSON.parse(JSON.stringify({ state, contexts, errors })) as ProbeAnswers;
}
