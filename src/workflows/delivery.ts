// Delivery of a scheduled run's result to its webhook. The conversation neither waits for the receiver nor
// fails because of it: it starts `deliveryWorkflow` as an abandoned child (it lives on after the conversation
// completes) and returns at once, with the child's id in its result. The child runs the `deliverWebhook`
// activity under a retry policy, so a receiver that is down for a while still gets the result; one that is
// gone for good leaves a failed delivery workflow, visible in the Web UI with the last error. Either way the
// outcome is recorded.
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ParentClosePolicy,
  proxyActivities,
  startChild,
  workflowInfo,
  type RetryPolicy,
} from '@temporalio/workflow';
import type { createDeliverActivities, WebhookBody, WebhookDelivery } from '../activities/deliver';
import type { ConversationResult } from '../shared/contract';
import { NOTHING_TO_REPORT } from './prompts';
import type { Conversation } from './conversation-state';

export { NOTHING_TO_REPORT };

/**
 * ~13 minutes from the first attempt to the last (2 s, 4 s, … 256 s, then 5 min), plus the requests' own time.
 * A 429's Retry-After replaces the backoff for that attempt (capped at 5 minutes by the activity).
 */
export const DELIVERY_RETRY: RetryPolicy = { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 10 };

const { deliverWebhook } = proxyActivities<ReturnType<typeof createDeliverActivities>>({
  // The request itself times out after 30 s; this only catches a worker that died during it.
  startToCloseTimeout: '1 minute',
  retry: DELIVERY_RETRY,
  summary: 'POST the result to the webhook',
});

/** What a delivered result's workflow returns. */
export interface DeliveryOutcome {
  delivered: true;
  /** Attempts it took (1 = the first). */
  attempts: number;
  /** The receiver's HTTP status. */
  status: number;
}

/** The answer means "nothing to report": exactly the marker, also in backticks or with a period. */
export function isNothingToReport(answer: string): boolean {
  return /^(`*)NOTHING_TO_REPORT\.?\1\.?$/.test(answer.trim());
}

/** Hands the result of a scheduled run with a webhook to delivery; never fails or delays the run's own end. */
export async function deliverResult(c: Conversation, result: ConversationResult): Promise<ConversationResult> {
  const schedule = c.input.schedule;
  if (!schedule?.webhook) return result;
  if (isNothingToReport(result.answer)) return { ...result, delivery: { skipped: 'nothing to report' } };
  const conversationId = workflowInfo().workflowId;
  const workflowId = `${conversationId}-delivery`;
  const body: WebhookBody = {
    schedule: schedule.name,
    workflowId: conversationId,
    status: result.status,
    answer: result.answer,
    startedAt: new Date(c.meter.startedAtMs).toISOString(),
    finishedAt: new Date().toISOString(),
    ...(result.reason ? { reason: result.reason } : {}),
    ...(result.error ? { error: result.error } : {}),
  };
  const delivery: WebhookDelivery = { webhook: schedule.webhook, idempotencyKey: workflowId, body };
  try {
    // Waits for the child to be started (one workflow task), not for the delivery. Not cancellable: the run
    // has ended, and its result should still go out.
    await CancellationScope.nonCancellable(() =>
      startChild(deliveryWorkflow, {
        args: [delivery],
        workflowId,
        parentClosePolicy: ParentClosePolicy.ABANDON,
        staticSummary: `Webhook delivery of scheduled task "${schedule.name}" (${conversationId})`,
      }),
    );
    return { ...result, delivery: { workflowId } };
  } catch (err) {
    // E.g. a delivery with this id is still retrying (a conversation id reused within minutes).
    const why = err instanceof Error ? err.message : String(err);
    return { ...result, delivery: { workflowId, error: `the delivery workflow could not be started: ${why}` } };
  }
}

/** POSTs one result to its webhook, retried; fails with the last error when it cannot be delivered. */
export async function deliveryWorkflow(d: WebhookDelivery): Promise<DeliveryOutcome> {
  if (typeof d?.webhook !== 'string' || typeof d.idempotencyKey !== 'string' || typeof d.body !== 'object' || d.body === null) {
    throw ApplicationFailure.create({ type: 'BadInput', message: 'expected { webhook, idempotencyKey, body }', nonRetryable: true });
  }
  try {
    const r = await deliverWebhook(d);
    return { delivered: true, attempts: r.attempt, status: r.status };
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    const cause = err.cause;
    const last = cause instanceof Error ? cause.message : err.message;
    const type = cause instanceof ApplicationFailure && cause.type ? cause.type : 'WebhookNotDelivered';
    const how =
      err.retryState === 'MAXIMUM_ATTEMPTS_REACHED'
        ? `gave up after ${DELIVERY_RETRY.maximumAttempts} attempts`
        : err.retryState === 'NON_RETRYABLE_FAILURE'
          ? 'not retryable'
          : String(err.retryState ?? 'failed').toLowerCase();
    throw ApplicationFailure.create({ type, message: `not delivered (${how}): ${last}`, nonRetryable: true, cause: err });
  }
}
