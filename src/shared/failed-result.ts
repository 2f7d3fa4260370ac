// A conversation that ends `failed` ends as a FAILED workflow (Temporal's convention: the Web UI's Failures
// filter, `ExecutionStatus="Failed"`, a schedule's pause-on-failure and the workflow-failed metric all see it),
// and the result object rides in the failure's details, so `result()` and the CLI still get the whole account.
// Pure: imported by the workflow (deterministic) and by the client.
import { ApplicationFailure } from '@temporalio/common';
import type { ConversationResult } from './contract';

/** The failure type when a failed result names no reason (should not happen: every failure is classified). */
export const CONVERSATION_FAILED = 'ConversationFailed';

/** The failure a `failed` conversation ends with: type = its reason, not retryable, the result in details[0]. */
export function conversationFailure(result: ConversationResult): ApplicationFailure {
  const failure = ApplicationFailure.create({
    type: result.reason || CONVERSATION_FAILED,
    message: result.error || `the conversation failed (${result.reason ?? 'no reason given'})`,
    nonRetryable: true,
    details: [result],
  });
  // The Web UI and `temporal workflow describe` show a failure's stack: the reason is the story, not our source.
  failure.stack = '';
  return failure;
}

/** The result a failed conversation carried in its failure (a workflow's, or a child's), if it is one. */
export function resultOfFailure(err: unknown): ConversationResult | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    // By name, not instanceof: the failure may come from another copy of @temporalio/common.
    if ((e as Error).name !== 'ApplicationFailure') continue;
    const r = (e as { details?: unknown[] }).details?.[0];
    if (isResult(r)) return r;
  }
  return undefined;
}

function isResult(v: unknown): v is ConversationResult {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Partial<ConversationResult>;
  return typeof r.status === 'string' && typeof r.answer === 'string' && typeof r.iterations === 'number' && typeof r.usage === 'object';
}
