// `hermes replay`: runs recorded conversations through today's workflow code without executing anything, the
// way a worker would after a deploy. A change to src/workflows/ that would break a running conversation
// (a nondeterminism error on its next workflow task) shows up here first — against your own histories, not
// only the test corpus.
import type { Client } from '@temporalio/client';
import type { HistoryAndWorkflowId } from '@temporalio/common';
import { Worker, type ReplayWorkerOptions } from '@temporalio/worker';
import { cachedWorkflowBundle } from '../startup/bundle';
import { workerDataConverter } from '../codec';
import { fetchRunHistories } from './step-context';

export interface ReplayOutcome {
  workflowId: string;
  runId: string;
  /** The determinism violation (or other replay failure), when the run does not replay. */
  error?: string;
}

/** Every run of each conversation, oldest first (continue-as-new chains included). */
export async function* historiesOf(client: Client, workflowIds: string[]): AsyncIterable<HistoryAndWorkflowId> {
  for (const workflowId of workflowIds) {
    for (const history of await fetchRunHistories(client, workflowId)) yield { workflowId, history };
  }
}

/** Conversations matching a visibility query (e.g. `ExecutionStatus = "Running"`), at most `limit` runs. */
export async function* historiesMatching(client: Client, query: string, limit: number): AsyncIterable<HistoryAndWorkflowId> {
  let n = 0;
  const q = `WorkflowType = "conversationWorkflow"${query.trim() ? ` AND (${query})` : ''}`;
  for await (const h of client.workflow.list({ query: q }).intoHistories()) {
    if (n++ >= limit) return;
    yield h;
  }
}

/**
 * Replays the histories; with HERMES_PAYLOAD_KEY set (or `options.dataConverter`), encrypted payloads are
 * decrypted as a worker would, and payloads written without a key pass through unchanged.
 */
export async function replayAll(
  histories: AsyncIterable<HistoryAndWorkflowId>,
  options: Partial<ReplayWorkerOptions> = {},
): Promise<ReplayOutcome[]> {
  const converter = options.dataConverter ?? workerDataConverter();
  const workflowBundle = options.workflowBundle ?? (await cachedWorkflowBundle());
  const out: ReplayOutcome[] = [];
  const replayOptions = { ...options, workflowBundle, ...(converter ? { dataConverter: converter } : {}) };
  for await (const r of Worker.runReplayHistories(replayOptions, histories)) {
    out.push({ workflowId: r.workflowId, runId: r.runId, ...(r.error ? { error: replayErrorMessage(r.error) } : {}) });
  }
  return out;
}

/**
 * A replay's failure in one line. A workflow task that failed (a payload that cannot be decoded, a corrupt payload
 * store) comes back from core as a Rust debug dump holding the error's stack; only its message is kept.
 */
export function replayErrorMessage(err: Error): string {
  const inner = /Failure \{ message: "((?:[^"\\]|\\.)*)"/.exec(err.message)?.[1];
  if (inner === undefined) return `${err.name}: ${err.message}`;
  const message = inner.replace(/\\(.)/g, '$1');
  return message.startsWith('payload store:') ? message : `${err.name}: ${message}`;
}
