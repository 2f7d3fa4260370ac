// Delivery of a run's result to its webhook (a scheduled task's, or the `webhook` start option of any run; in
// chat mode, of every turn's result). The conversation neither waits for the receiver nor
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
import type { createDeliverActivities, WebhookBody, WebhookDelivery } from '../activities/webhook-post';
import type { ConversationResult, DeliveryNote, TurnResult } from '../shared/contract';
import type { Conversation } from './state/conversation-state';

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

/** Where a run's results go: a scheduled run's to its task's webhook, any other run's to its own `webhook`. */
export function webhookOf(input: Conversation['input']): string | undefined {
  return input.schedule?.webhook ?? input.webhook;
}

/** What one delivery reports: a run's result, or a chat turn's. */
type Delivered = Pick<ConversationResult, 'status' | 'answer' | 'reason' | 'error' | 'usage' | 'iterations'>;

/** Hands a task run's result to delivery (when it has a webhook); never fails or delays the run's own end. */
export async function deliverResult(c: Pick<Conversation, 'input' | 'meter'>, result: ConversationResult): Promise<ConversationResult> {
  const delivery = await deliver(c.input, result, c.meter.startedAtMs);
  return delivery ? { ...result, delivery } : result;
}

/**
 * Chat mode delivers every finished turn on its own (a chat may stay open for days: its caller wants each answer,
 * not the last one when the chat ends), with the turn's number, usage and latency.
 */
export async function deliverTurn(c: Pick<Conversation, 'input' | 'meter'>, turn: TurnResult, error?: string): Promise<TurnResult> {
  const delivery = await deliver(c.input, { ...turn, ...(error ? { error } : {}) }, c.meter.turnStartedAtMs, turn.turn);
  return delivery ? { ...turn, delivery } : turn;
}

async function deliver(input: Conversation['input'], r: Delivered, startedAtMs: number, turn?: number): Promise<DeliveryNote | undefined> {
  const webhook = webhookOf(input);
  if (!webhook) return undefined;
  const schedule = input.schedule;
  // Only a scheduled run is told it may answer NOTHING_TO_REPORT (system-prompt.ts).
  if (schedule && isNothingToReport(r.answer)) return { skipped: 'nothing to report' };
  const { workflowId: conversationId, runId, firstExecutionRunId } = workflowInfo();
  const workflowId = turn === undefined ? `${conversationId}-delivery` : `${conversationId}-turn${turn}-delivery`;
  // The first run id tells apart two conversations that used one id (a session started again after it ended):
  // the same delivery id, but not a duplicate for the receiver. It stays the same across continue-as-new.
  const idempotencyKey = `${workflowId}:${firstExecutionRunId}`;
  const finishedAtMs = Date.now();
  const body: WebhookBody = {
    conversationId,
    workflowId: conversationId,
    sessionId: input.sessionId ?? null,
    runId,
    ...(schedule ? { schedule: schedule.name } : {}),
    ...(turn !== undefined ? { turn } : {}),
    status: r.status,
    answer: r.answer,
    ...(r.reason ? { reason: r.reason } : {}),
    ...(r.error ? { error: r.error } : {}),
    usage: r.usage,
    iterations: r.iterations,
    startedAt: new Date(startedAtMs).toISOString(),
    finishedAt: new Date(finishedAtMs).toISOString(),
    latencyMs: finishedAtMs - startedAtMs,
    idempotencyKey,
  };
  const what = schedule ? `scheduled task "${schedule.name}" (${conversationId})` : `${conversationId}${turn !== undefined ? ` turn ${turn}` : ''}`;
  try {
    // Waits for the child to be started (one workflow task), not for the delivery. Not cancellable: the run
    // (or turn) has ended, and its result should still go out — also when the run is being cancelled.
    await CancellationScope.nonCancellable(() =>
      startChild(deliveryWorkflow, {
        args: [{ webhook, idempotencyKey, body } satisfies WebhookDelivery],
        workflowId,
        parentClosePolicy: ParentClosePolicy.ABANDON,
        staticSummary: `Webhook delivery of ${what}`,
      }),
    );
    return { workflowId };
  } catch (err) {
    // E.g. a delivery with this id is still retrying (a conversation id reused within minutes).
    const why = err instanceof Error ? err.message : String(err);
    return { workflowId, error: `the delivery workflow could not be started: ${why}` };
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
