// Maps whatever the openai or the Anthropic client threw to a stable ApplicationFailure type, the same on every
// transport, so Temporal's retry policy and the workflow can act on it: auth and bad requests fail fast, rate limits
// wait as long as the server asks.
import type * as AnthropicSdk from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/activity';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { FailureType } from '../shared/errors';

// llama.cpp: "request (N tokens) exceeds the available context size (M tokens)", type exceed_context_size_error.
const OVERFLOW = /context[_ ]length|context size|maximum context|context window|too many tokens|prompt is too long|reduce the length/i;
const OVERFLOW_TYPES = new Set(['context_length_exceeded', 'exceed_context_size_error']);

// An Anthropic error event inside a stream has no status: the one its error type comes with.
const ANTHROPIC_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/**
 * The Anthropic SDK once a transport has loaded it (transports/anthropic.ts): it is loaded only for a profile that
 * speaks Anthropic, and until then nothing can have thrown one of its errors.
 */
let Anthropic: typeof AnthropicSdk | undefined;
export function anthropicLoaded(sdk: typeof AnthropicSdk): void {
  Anthropic = sdk;
}

/** `endpoint` (the profile's base URL) is named in network errors: the first thing to check. */
export function classifyModelError(err: unknown, endpoint?: string): ApplicationFailure | Error {
  const at = endpoint ? ` ${endpoint}` : '';
  if (err instanceof ApplicationFailure) return err;
  if (Anthropic) {
    const anthropic = anthropicFailure(err, Anthropic, at);
    if (anthropic) return anthropic;
  }
  if (err instanceof APIUserAbortError) return err; // cancellation: let Temporal see the abort as is
  if (err instanceof APIConnectionTimeoutError) return timeoutFailure(err, at);
  if (err instanceof APIConnectionError) return networkFailure(err, at);
  if (err instanceof APIError && typeof err.status === 'number') {
    return byStatus(err.status, `model endpoint${at} answered ${err.status}: ${err.message}`, err, err.message, String(err.type ?? err.code));
  }
  if (err instanceof Error && err.name === 'AbortError') return err;
  const text = err instanceof Error ? err.message : String(err);
  return failure(FailureType.ModelNetwork, `model call to${at || ' the endpoint'} failed: ${text}`, err instanceof Error ? err : undefined);
}

function timeoutFailure(err: Error, at: string): ApplicationFailure {
  const message = `model request to${at || ' the endpoint'} timed out (raise HERMES_MODEL_TIMEOUT or the profile's timeoutMs)`;
  return failure(FailureType.ModelTimeout, message, err);
}

function networkFailure(err: Error, at: string): ApplicationFailure {
  return failure(FailureType.ModelNetwork, `cannot reach the model endpoint${at}: ${causeText(err)}`, err);
}

/** What the Anthropic client threw, as the same failures as the openai client's; undefined for anything else. */
function anthropicFailure(err: unknown, sdk: typeof AnthropicSdk, at: string): ApplicationFailure | Error | undefined {
  if (err instanceof sdk.APIUserAbortError) return err;
  if (err instanceof sdk.APIConnectionTimeoutError) return timeoutFailure(err, at);
  if (err instanceof sdk.APIConnectionError) return networkFailure(err, at);
  if (err instanceof sdk.APIError) {
    const status = err.status as number | undefined;
    const s = status ?? ANTHROPIC_STATUS[err.type ?? ''];
    // The API's own message, not the SDK's (the status and the whole JSON body).
    const text = err.apiMessage ?? err.message;
    if (s !== undefined) return byStatus(s, `model endpoint${at} answered ${status ?? err.type}: ${text}`, err, text);
  }
  return undefined;
}

/** An API error by its HTTP status; `text` and `type` (the body's error type or code) tell a context overflow. */
function byStatus(s: number, msg: string, err: Error & { headers?: unknown }, text: string, type?: string): ApplicationFailure {
  if (s === 401 || s === 403) return failure(FailureType.ModelAuth, msg, err, true);
  if (s === 429) return failure(FailureType.RateLimited, msg, err, false, retryAfterMs(err.headers as Headers | undefined));
  if (s === 408) return failure(FailureType.ModelTimeout, msg, err);
  if ((s === 400 || s === 413 || s === 422) && (OVERFLOW.test(text) || OVERFLOW_TYPES.has(type ?? ''))) {
    return failure(FailureType.ContextOverflow, msg, err, true);
  }
  if (s >= 400 && s < 500) return failure(FailureType.ModelBadRequest, msg, err, true);
  return failure(FailureType.ModelUnavailable, msg, err);
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
