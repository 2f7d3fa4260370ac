// `Idempotency-Key` of `POST /v1/chat/completions`. In a session the key is the `send` update's id, which Temporal
// de-duplicates within a run; without one it names the task's workflow (`hermes-request-<key>`). Both attach a
// retried request to the first one's turn — and would hand a request with the same key and a *different* message
// the first one's answer, dropping its message. So a reused key is compared with what it was first used for (the
// update's arguments, the task's input, both in the history) and a different request is a 422; a key that could
// not be used is a 400, never silently ignored.
import type { Payload } from '@temporalio/common';
import type { ConversationHandle } from '../client';
import type { ConversationInput } from '../shared/contract';
import { decodeStoredValue } from '../storage/decode';
import { ApiError, badRequest, quoted } from './errors';

const KEY = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** The request's key, checked: letters, digits and `. _ : -`, 1 to 128 (it becomes part of a workflow id). */
export function idempotencyKeyOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  const raw = headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const v = Array.isArray(raw) ? raw.join(', ') : raw;
  if (!KEY.test(v))
    throw badRequest(
      'Idempotency-Key',
      `Idempotency-Key ${quoted(v, 60)} is not a valid key: use letters, digits and . _ : - ` +
        '(1 to 128, starting with a letter or digit), one per request — e.g. a UUID',
      'invalid_idempotency_key',
    );
  return v;
}

function reused(key: string, what: string): ApiError {
  return new ApiError(
    422,
    `Idempotency-Key "${key}" was already used for a different request (${what}): a retry must send the same request; ` +
      'use a new key for a new message',
    'invalid_request_error',
    'Idempotency-Key',
    'idempotency_key_reused',
  );
}

/** In a session: a `send` with this update id already in the current run must have carried the same text. */
export async function checkSameSend(handle: ConversationHandle, key: string, text: string): Promise<void> {
  const history = await handle.workflow.fetchHistory();
  for (const e of history.events ?? []) {
    const req = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
    if (req?.meta?.updateId !== key || req.input?.name !== 'send') continue;
    const arg = await decodeStoredValue<{ text?: unknown }>(
      handle.workflow.client.options.loadedDataConverter,
      req.input.args?.payloads?.[0] as Payload | undefined,
    );
    if (arg?.text !== text) throw reused(key, 'another message in this session');
    return;
  }
}

/** Without a session: the task this key started must have been started with the same prompt, system and model. */
export async function checkSameTask(
  handle: ConversationHandle,
  key: string,
  expected: { prompt: string; system?: string | undefined; model?: string | undefined },
): Promise<void> {
  const client = handle.workflow.client;
  const res = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId: handle.id },
    maximumPageSize: 1,
  });
  const payload = res.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  const input = await decodeStoredValue<ConversationInput>(client.options.loadedDataConverter, payload as Payload | undefined);
  if (!input) return; // nothing to compare with (no history any more): attach as before
  if (input.prompt !== expected.prompt || (input.system ?? '') !== (expected.system ?? '') || (input.model ?? '') !== (expected.model ?? ''))
    throw reused(key, `the task ${handle.id} was started with other messages`);
}
