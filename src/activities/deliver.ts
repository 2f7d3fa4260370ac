// The webhook activity: POSTs a scheduled run's result to the schedule's webhook, once per attempt. Temporal
// retries it (the retry policy is the delivery workflow's, src/workflows/delivery.ts); this file decides what is
// worth retrying. Every request carries the same `idempotency-key`, so a receiver can drop a duplicate that a
// retry after a lost response produces.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { retryAfterMs } from '../llm/errors';
import type { RunStatus } from '../shared/contract';

/** What the receiver gets, as JSON. */
export interface WebhookBody {
  /** The scheduled task's name. */
  schedule: string;
  /** The conversation (the firing) whose result this is. */
  workflowId: string;
  status: RunStatus;
  answer: string;
  /** ISO 8601: when the conversation started and when it ended (workflow time). */
  startedAt: string;
  finishedAt: string;
  /** Why a run did not complete (e.g. `ModelUnavailable`), when it did not. */
  reason?: string;
  error?: string;
}

/** The delivery workflow's input and the activity's. */
export interface WebhookDelivery {
  /** A URL, or `$NAME`: the URL is then the worker's environment variable NAME (it never enters the history). */
  webhook: string;
  /** Sent as the `idempotency-key` header: the delivery workflow's id, the same for every attempt. */
  idempotencyKey: string;
  body: WebhookBody;
}

export interface WebhookResponse {
  /** The receiver's HTTP status (2xx). */
  status: number;
  /** Which attempt got through (1 = the first). */
  attempt: number;
}

/** ApplicationFailure types of the webhook activity. */
export const WebhookFailure = {
  /** Missing environment variable, not an http(s) URL: no retry helps. */
  Config: 'WebhookConfig',
  /** The receiver answered 3xx or 4xx (other than 408 and 429): it does not want this request. */
  Rejected: 'WebhookRejected',
  /** 429: retried after the Retry-After the receiver asked for. */
  RateLimited: 'WebhookRateLimited',
  /** 408, 5xx, a network error or no answer within the timeout: retried. */
  Unavailable: 'WebhookUnavailable',
} as const;

export const WEBHOOK_TIMEOUT_MS = 30_000;
/** A Retry-After longer than this is cut to it (the retry policy's maximum interval). */
export const MAX_RETRY_AFTER_MS = 5 * 60_000;
const ENV_REF = /^\$([A-Za-z_][A-Za-z0-9_]*)$/;

export interface DeliverDeps {
  /** Where `$NAME` webhooks are looked up (default: the worker's process.env, read at each attempt). */
  env?: NodeJS.ProcessEnv;
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
}

export function createDeliverActivities(deps: DeliverDeps = {}) {
  async function deliverWebhook(d: WebhookDelivery): Promise<WebhookResponse> {
    const ctx = Context.current();
    const { url, target } = resolveWebhook(d.webhook, deps.env ?? process.env);
    const timeout = AbortSignal.timeout(deps.timeoutMs ?? WEBHOOK_TIMEOUT_MS);
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': d.idempotencyKey, 'user-agent': 'hermes-temporal' },
        body: JSON.stringify(d.body),
        // A redirected POST would become a GET to somewhere else: a webhook must name its receiver.
        redirect: 'manual',
        signal: AbortSignal.any([ctx.cancellationSignal, timeout]),
      });
    } catch (err) {
      if (ctx.cancellationSignal.aborted) throw err;
      const why = timeout.aborted ? `no answer within ${(deps.timeoutMs ?? WEBHOOK_TIMEOUT_MS) / 1000} s` : networkText(err, url);
      throw fail(WebhookFailure.Unavailable, `cannot deliver to ${target}: ${why}`, false);
    }
    const s = res.status;
    if (s >= 200 && s < 300) {
      await res.body?.cancel().catch(() => undefined);
      return { status: s, attempt: ctx.info.attempt };
    }
    const said = await snippet(res);
    const msg = `${target} answered ${s}${said ? `: ${said}` : ''}`;
    if (s === 429) {
      const wait = retryAfterMs(res.headers);
      throw fail(WebhookFailure.RateLimited, msg, false, wait === undefined ? undefined : Math.min(wait, MAX_RETRY_AFTER_MS));
    }
    if (s === 408 || s >= 500) throw fail(WebhookFailure.Unavailable, msg, false);
    if (s >= 300 && s < 400) throw fail(WebhookFailure.Rejected, `${msg} (a redirect; the webhook must be the receiver's own URL)`, true);
    throw fail(WebhookFailure.Rejected, msg, true);
  }

  return { deliverWebhook };
}

/**
 * The URL to POST to, and how to name it in errors (which enter the history): a `$NAME` webhook is named by its
 * variable, so a secret URL stays out of the history.
 */
export function resolveWebhook(webhook: string, env: NodeJS.ProcessEnv): { url: URL; target: string } {
  const ref = ENV_REF.exec(webhook.trim());
  let raw = webhook.trim();
  let target = `webhook ${raw}`;
  if (ref) {
    const name = ref[1]!;
    const value = env[name]?.trim();
    if (!value) throw fail(WebhookFailure.Config, `the webhook is $${name}, but the worker's environment has no variable ${name}`, true);
    raw = value;
    target = `webhook $${name}`;
  } else if (raw.startsWith('$')) {
    throw fail(WebhookFailure.Config, `webhook "${webhook}": an environment variable reference is $ and a name (letters, digits, _)`, true);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw fail(WebhookFailure.Config, `${target} is not a URL${ref ? '' : ' (expected http://… or https://…, or $NAME)'}`, true);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw fail(WebhookFailure.Config, `${target}: only http and https URLs are accepted, not ${url.protocol}`, true);
  }
  return { url, target };
}

function fail(type: string, message: string, nonRetryable: boolean, nextRetryDelay?: number): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable, ...(nextRetryDelay !== undefined ? { nextRetryDelay } : {}) });
}

/** The network error's code (ECONNREFUSED, ENOTFOUND…) or message, without the URL. */
function networkText(err: unknown, url: URL): string {
  const cause = (err as { cause?: unknown }).cause;
  const code = (cause as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return code;
  const text = cause instanceof Error ? cause.message : err instanceof Error ? err.message : String(err);
  return text.split(url.href).join('<url>').split(url.host).join('<host>');
}

/** The start of an error response's body (receivers often say why there), on one line. */
async function snippet(res: Response): Promise<string> {
  const reader = (res.body as ReadableStream<Uint8Array> | null)?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < 2_000) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } catch {
    // The body is only decoration for the error message.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const text = Buffer.concat(chunks).toString('utf8').replace(/\s+/g, ' ').trim();
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
