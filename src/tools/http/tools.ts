// Declarative HTTP tools as ExternalTools. What comes back:
// - a success status (default any 2xx): the body (or the selected JSON fields), cut at maxBytes;
// - any other 1xx-4xx (redirects are not followed): a ToolResultError the model reads — status and the start of
//   the body — since the request, not the API, is what is wrong; except 408 and 429;
// - 5xx, 408, 429, timeouts and network errors: a retryable ApplicationFailure (Temporal retries the activity,
//   honouring Retry-After), counted by the tool's circuit breaker.
// The credential is read from the worker's environment at each call and scrubbed from every text this module
// produces (results and errors alike), whatever name its variable has.
import { ApplicationFailure } from '@temporalio/common';
import { ToolResultError, type ExternalTool, type ExternalToolContext } from '../catalog';
import { workerCircuits, type Circuit, type Circuits } from './circuit';
import { buildRequest } from './request';
import { readCapped, resultText, selectFields } from './read-response';
import { parseHttpTools, type HttpToolDef } from './schema';

/** Failure types of retryable HTTP tool errors (ApplicationFailure.type). */
export const HttpFailure = {
  Unavailable: 'HttpToolUnavailable',
  Timeout: 'HttpToolTimeout',
  Network: 'HttpToolNetwork',
} as const;

/** The part of a 4xx/5xx body quoted in an error. */
const ERROR_BODY_CHARS = 2_000;
/** Our own timeout fires before the activity's, so the error says what happened. */
const ACTIVITY_MARGIN_MS = 5_000;
const MAX_RETRY_AFTER_MS = 300_000;

export interface HttpToolsOptions {
  /** Circuit breakers (default: the worker process's). */
  circuits?: Circuits;
  /** Where the definitions come from, for errors (e.g. "/srv/hermes.config.json: httpTools"). */
  where?: string;
}

/** ExternalTools for the definitions (raw config or parsed); throws naming the bad field when one is invalid. */
export function createHttpTools(defs: unknown, env: NodeJS.ProcessEnv = process.env, options: HttpToolsOptions = {}): ExternalTool[] {
  const circuits = options.circuits ?? workerCircuits;
  return parseHttpTools(defs, options.where).map((def) => httpTool(def, env, circuits.get(def.name, def.circuit)));
}

function httpTool(def: HttpToolDef, env: NodeJS.ProcessEnv, circuit: Circuit): ExternalTool {
  return {
    name: def.name,
    description: def.description,
    parameters: withoutSchemaKey(def.parameters),
    readOnly: def.readOnly ?? def.method === 'GET',
    timeoutMs: def.timeoutMs + ACTIVITY_MARGIN_MS,
    source: 'http',
    toolset: 'http',
    run: (args, ctx) => call(def, env, circuit, args, ctx),
  };
}

async function call(
  def: HttpToolDef,
  env: NodeJS.ProcessEnv,
  circuit: Circuit,
  args: Record<string, unknown>,
  ctx: ExternalToolContext,
): Promise<string> {
  const secret = def.auth ? env[def.auth.env] : undefined;
  if (def.auth && !secret) throw new ToolResultError(`The HTTP tool ${def.name} is not usable on this worker: ${def.auth.env} is not set.`);
  const scrub = scrubber(secret, def.auth?.env);
  const skipped = circuit.admit();
  if (skipped) throw new ToolResultError(skipped);
  let verdict: 'success' | 'failure' | 'neutral' = 'neutral';
  let failure = '';
  try {
    const req = buildRequest(def, args, secret);
    const where = `${req.method} ${req.url.split('?')[0]}`;
    const started = Date.now();
    const timeout = AbortSignal.timeout(def.timeoutMs);
    let res: Response;
    try {
      res = await fetch(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body,
        redirect: 'manual',
        signal: AbortSignal.any([ctx.signal, timeout]),
      });
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      verdict = 'failure';
      if (timeout.aborted) {
        failure = `timed out after ${def.timeoutMs} ms`;
        throw ApplicationFailure.create({ type: HttpFailure.Timeout, message: scrub(`${where} ${failure}`) });
      }
      failure = networkReason(err);
      throw ApplicationFailure.create({ type: HttpFailure.Network, message: scrub(`${where} failed: ${failure}`) });
    }
    const body = await readCapped(res, def.maxBytes);
    ctx.log('http tool call', { tool: def.name, request: where, status: res.status, ms: Date.now() - started, bytes: body.text.length });
    const status = `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;
    if (isSuccess(def, res.status)) {
      verdict = 'success';
      return scrub(successText(def, status, body.text, body.truncated));
    }
    const quoted = body.text.slice(0, ERROR_BODY_CHARS) + (body.text.length > ERROR_BODY_CHARS || body.truncated ? ' […]' : '');
    if (res.status >= 500 || res.status === 408 || res.status === 429) {
      verdict = 'failure';
      failure = status;
      throw ApplicationFailure.create({
        type: HttpFailure.Unavailable,
        message: scrub(`${where}: ${status}${quoted ? `: ${quoted}` : ''}`),
        nextRetryDelay: retryAfterMs(res.headers.get('retry-after')),
      });
    }
    const location = res.status >= 300 && res.status < 400 ? ` (redirect to ${res.headers.get('location') ?? '?'}, not followed)` : '';
    throw new ToolResultError(scrub(`${status}${location}${quoted ? `\n${quoted}` : ''}`));
  } finally {
    if (verdict === 'success') circuit.success();
    else if (verdict === 'failure') circuit.failure(failure);
    else circuit.neutral();
  }
}

/** Parameters without `$schema`: the model API and the argument validator need no dialect marker (and may reject one). */
function withoutSchemaKey(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

function isSuccess(def: HttpToolDef, status: number): boolean {
  return def.successStatus ? def.successStatus.includes(status) : status >= 200 && status < 300;
}

function successText(def: HttpToolDef, status: string, text: string, truncated: boolean): string {
  if (def.select) {
    if (truncated) throw new ToolResultError(`${status}, but the response is larger than maxBytes (${def.maxBytes}), so no fields can be selected.`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ToolResultError(`${status}, but the response is not JSON, so no fields can be selected:\n${text.slice(0, ERROR_BODY_CHARS)}`);
    }
    return resultText(selectFields(json, def.select));
  }
  if (text === '') return `${status} (empty body)`;
  return truncated ? `${text}\n[response cut at ${def.maxBytes} bytes]` : text;
}

function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

/** Retry-After in seconds or as an HTTP date, as a delay for Temporal's next attempt (capped). */
function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, MAX_RETRY_AFTER_MS) : undefined;
}

/** Replaces the credential (also JSON- and URL-encoded, as an API may echo it) in a text. */
function scrubber(secret: string | undefined, envName = ''): (s: string) => string {
  if (!secret) return (s) => s;
  const forms = [...new Set([secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)])];
  const mark = `[REDACTED:env:${envName}]`;
  return (s) => forms.reduce((acc, f) => acc.split(f).join(mark), s);
}
