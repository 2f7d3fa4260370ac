// The webhook activity: POSTs a run's result (or a chat turn's) to its webhook, once per attempt. Temporal
// retries it (the retry policy is the delivery workflow's, src/workflows/delivery.ts); this file decides what is
// worth retrying. Every request carries the same `idempotency-key`, so a receiver can drop a duplicate that a
// retry after a lost response produces. The address connected to is checked against the webhook policy
// (src/schedules/webhook-policy.ts) inside the socket's lookup, as web_fetch does.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { isIP } from 'node:net';
import { Agent, fetch as undiciFetch, type Response } from 'undici';
import { retryAfterMs } from '../llm/errors';
import { webhookGuard } from '../schedules/webhook-policy';
import type { RunStatus, Usage } from '../shared/contract';
import { webhookEnvName, webhookUrl } from '../shared/webhook-form';
import { guardedLookup, unbracket, type AddressGuard, type Refusal, type Resolve, type WebPolicy } from '../tools/web_fetch/address-policy';

/** What the receiver gets, as JSON (built by the conversation, src/workflows/delivery.ts). */
export interface WebhookBody {
  /** The conversation (for a schedule: the firing) whose result this is. */
  conversationId: string;
  /** The same id, under the name scheduled tasks' receivers got first. */
  workflowId: string;
  /** The caller's name for the conversation (the `sessionId` start option), or null. */
  sessionId: string | null;
  /** The run (of the conversation's continue-as-new chain) that produced the result. */
  runId: string;
  /** The scheduled task's name, on a firing's result. */
  schedule?: string;
  /** Chat mode: the turn this result ends (each turn is delivered on its own). */
  turn?: number;
  status: RunStatus;
  answer: string;
  /** Why a run did not complete (e.g. `ModelUnavailable`), when it did not. */
  reason?: string;
  error?: string;
  usage: Usage;
  /** Model calls with tools (of the turn, in chat mode). */
  iterations: number;
  /** ISO 8601: when the conversation (or the turn) started and when it ended (workflow time); the difference in ms. */
  startedAt: string;
  finishedAt: string;
  latencyMs: number;
  /** The `idempotency-key` header's value, for receivers that keep the body only. */
  idempotencyKey: string;
}

/** The delivery workflow's input and the activity's. */
export interface WebhookDelivery {
  /** A URL, or `$NAME`: the URL is then the worker's environment variable NAME (it never enters the history). */
  webhook: string;
  /** Sent as the `idempotency-key` header, the same for every attempt: the delivery workflow's id and the conversation's first run id. */
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
  /** An address the worker's webhook policy refuses (loopback, private, link-local…): not retried. */
  Refused: 'WebhookRefused',
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

export interface DeliverDeps {
  /** Where `$NAME` webhooks are looked up (default: the worker's process.env, read at each attempt). */
  env?: NodeJS.ProcessEnv;
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
  /** Addresses webhooks may be delivered to besides public ones (default: loadWebhookPolicy, read on first use). */
  policy?: WebPolicy;
  /** Name resolution (tests map names to addresses); default the system resolver, every address. */
  resolve?: Resolve;
}

/** The error a refused address fails the connection with (the lookup's). */
class AddressRefused extends Error {
  override name = 'AddressRefused';
  constructor(
    message: string,
    readonly refusal: Refusal,
  ) {
    super(message);
  }
}

export function createDeliverActivities(deps: DeliverDeps = {}) {
  let guard: AddressGuard | undefined;

  async function deliverWebhook(d: WebhookDelivery): Promise<WebhookResponse> {
    const ctx = Context.current();
    const g = (guard ??= webhookGuard(deps.policy));
    const { url, target, secret } = resolveWebhook(d.webhook, deps.env ?? process.env);
    // A `$NAME` webhook's host stays out of the error (which enters the history), like its URL.
    const refusedText = (r: Refusal) => `cannot deliver to ${target}: ${g.explain(r, secret ? `its host is a ${r.kind} address` : undefined)}`;
    const host = unbracket(url.hostname);
    // An IP literal skips the lookup: checked here.
    const literal = isIP(host) ? g.check(host, host) : undefined;
    if (literal) throw fail(WebhookFailure.Refused, refusedText(literal), true);
    const timeout = AbortSignal.timeout(deps.timeoutMs ?? WEBHOOK_TIMEOUT_MS);
    // One connection per attempt, through the guarded lookup: a pooled socket would skip the check.
    const dispatcher = new Agent({
      connect: {
        lookup: guardedLookup(g, deps.resolve, (message, refusal) => (refusal ? new AddressRefused(message, refusal) : new Error(message))),
      },
    });
    let res: Response;
    try {
      res = await undiciFetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': d.idempotencyKey, 'user-agent': 'hermes-temporal' },
        body: JSON.stringify(d.body),
        // A redirected POST would become a GET to somewhere else: a webhook must name its receiver.
        redirect: 'manual',
        signal: AbortSignal.any([ctx.cancellationSignal, timeout]),
        dispatcher,
      });
    } catch (err) {
      void dispatcher.destroy().catch(() => undefined);
      if (ctx.cancellationSignal.aborted) throw err;
      const cause = (err as { cause?: unknown }).cause;
      if (cause instanceof AddressRefused) throw fail(WebhookFailure.Refused, refusedText(cause.refusal), true);
      const why = timeout.aborted ? `no answer within ${(deps.timeoutMs ?? WEBHOOK_TIMEOUT_MS) / 1000} s` : networkText(err, url);
      throw fail(WebhookFailure.Unavailable, `cannot deliver to ${target}: ${why}`, false);
    }
    try {
      return await answered(res, target, ctx.info.attempt);
    } finally {
      void dispatcher.close().catch(() => undefined);
    }
  }

  return { deliverWebhook };
}

/** Delivered (2xx), or the failure the status calls for. */
async function answered(res: Response, target: string, attempt: number): Promise<WebhookResponse> {
  const s = res.status;
  if (s >= 200 && s < 300) {
    await res.body?.cancel().catch(() => undefined);
    return { status: s, attempt };
  }
  const said = await snippet(res);
  const msg = `${target} answered ${s}${said ? `: ${said}` : ''}`;
  if (s === 429) {
    const wait = retryAfterMs(res.headers as unknown as Headers);
    throw fail(WebhookFailure.RateLimited, msg, false, wait === undefined ? undefined : Math.min(wait, MAX_RETRY_AFTER_MS));
  }
  if (s === 408 || s >= 500) throw fail(WebhookFailure.Unavailable, msg, false);
  if (s >= 300 && s < 400) throw fail(WebhookFailure.Rejected, `${msg} (a redirect; the webhook must be the receiver's own URL)`, true);
  throw fail(WebhookFailure.Rejected, msg, true);
}

/**
 * The URL to POST to, and how to name it in errors (which enter the history): a `$NAME` webhook is named by its
 * variable, so a secret URL stays out of the history.
 */
export function resolveWebhook(webhook: string, env: NodeJS.ProcessEnv): { url: URL; target: string; secret: boolean } {
  const name = webhookEnvName(webhook);
  let raw = webhook.trim();
  let target = `webhook ${raw}`;
  if (name !== undefined) {
    const value = env[name]?.trim();
    if (!value) throw fail(WebhookFailure.Config, `the webhook is $${name}, but the worker's environment has no variable ${name}`, true);
    raw = value;
    target = `webhook $${name}`;
  } else if (raw.startsWith('$')) {
    throw fail(WebhookFailure.Config, `webhook "${webhook}": an environment variable reference is $ and a name (letters, digits, _)`, true);
  }
  const url = webhookUrl(raw, target, name === undefined);
  if (typeof url === 'string') throw fail(WebhookFailure.Config, url, true);
  return { url, target, secret: name !== undefined };
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
