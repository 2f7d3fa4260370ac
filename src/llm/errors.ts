// Maps whatever the openai client threw to a stable ApplicationFailure type, so Temporal's retry policy and
// the workflow can act on it: auth and bad requests fail fast, rate limits wait as long as the server asks.
import { ApplicationFailure } from '@temporalio/activity';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { FailureType } from '../shared/errors';

// llama.cpp: "request (N tokens) exceeds the available context size (M tokens)", type exceed_context_size_error.
const OVERFLOW = /context[_ ]length|context size|maximum context|context window|too many tokens|prompt is too long|reduce the length/i;
const OVERFLOW_TYPES = new Set(['context_length_exceeded', 'exceed_context_size_error']);

/** `endpoint` (the profile's base URL) is named in network errors: the first thing to check. */
export function classifyModelError(err: unknown, endpoint?: string): ApplicationFailure | Error {
  const at = endpoint ? ` ${endpoint}` : '';
  if (err instanceof ApplicationFailure) return err;
  if (err instanceof APIUserAbortError) return err; // cancellation: let Temporal see the abort as is
  if (err instanceof APIConnectionTimeoutError)
    return failure(
      FailureType.ModelTimeout,
      `model request to${at || ' the endpoint'} timed out (raise HERMES_MODEL_TIMEOUT or the profile's timeoutMs)`,
      err,
    );
  if (err instanceof APIConnectionError) {
    return failure(FailureType.ModelNetwork, `cannot reach the model endpoint${at}: ${causeText(err)}`, err);
  }
  if (err instanceof APIError && typeof err.status === 'number') {
    const s = err.status;
    const msg = `model endpoint${at} answered ${s}: ${err.message}`;
    if (s === 401 || s === 403) return failure(FailureType.ModelAuth, msg, err, true);
    if (s === 429) return failure(FailureType.RateLimited, msg, err, false, retryAfterMs(err.headers as Headers | undefined));
    if (s === 408) return failure(FailureType.ModelTimeout, msg, err);
    if ((s === 400 || s === 413 || s === 422) && (OVERFLOW.test(err.message) || OVERFLOW_TYPES.has(String(err.type ?? err.code)))) {
      return failure(FailureType.ContextOverflow, msg, err, true);
    }
    if (s >= 400 && s < 500) return failure(FailureType.ModelBadRequest, msg, err, true);
    return failure(FailureType.ModelUnavailable, msg, err);
  }
  if (err instanceof Error && err.name === 'AbortError') return err;
  const text = err instanceof Error ? err.message : String(err);
  return failure(FailureType.ModelNetwork, `model call to${at || ' the endpoint'} failed: ${text}`, err instanceof Error ? err : undefined);
}

function failure(type: string, message: string, cause?: Error, nonRetryable = false, nextRetryDelayMs?: number) {
  return ApplicationFailure.create({
    type,
    message,
    nonRetryable,
    // Temporal uses this instead of the policy's backoff for this one attempt.
    nextRetryDelay: nextRetryDelayMs !== undefined ? nextRetryDelayMs : undefined,
    cause: cause ? new Error(cause.message) : undefined,
  });
}

function causeText(err: Error): string {
  const c = (err as { cause?: unknown }).cause;
  return c instanceof Error ? c.message : err.message;
}

/** Retry-After (seconds or HTTP date) or retry-after-ms, capped at 10 minutes. */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return clamp(Number(ms));
  const ra = headers.get('retry-after');
  if (!ra) return undefined;
  if (/^\d+(\.\d+)?$/.test(ra.trim())) return clamp(Number(ra) * 1000);
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : clamp(date - now);
}

const clamp = (ms: number) => Math.max(0, Math.min(ms, 600_000));
