// Errors of `hermes serve` in the OpenAI API's shape, `{ error: { message, type, param, code } }`, with the status
// codes stock OpenAI clients map to their error classes (400 BadRequest, 401 Authentication, 403 PermissionDenied,
// 404 NotFound, 409 Conflict, 413, 415, 422 UnprocessableEntity, 429 RateLimit, 500 InternalServer, 503). One class, identified by `type`/`code` strings.

export type ApiErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'rate_limit_error'
  | 'server_error'
  | 'service_unavailable';

export interface ApiErrorBody {
  error: { message: string; type: ApiErrorType; param: string | null; code: string | null };
}

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    message: string,
    readonly type: ApiErrorType,
    readonly param: string | null = null,
    readonly code: string | null = null,
  ) {
    super(message);
  }

  get body(): ApiErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** A value a client sent, quoted for an error message and cut short: a 10 KB id is not echoed whole. */
export function quoted(value: unknown, max = 80): string {
  const s = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return JSON.stringify(s.length > max ? `${s.slice(0, max)}…` : s);
}

/** 400 naming the field (`param`, as OpenAI does: `messages`, `messages[2].content`, `model`…). */
export function badRequest(param: string | null, message: string, code: string | null = 'invalid_value'): ApiError {
  return new ApiError(400, message, 'invalid_request_error', param, code);
}

export function unauthorized(): ApiError {
  return new ApiError(401, 'missing or wrong bearer token (Authorization: Bearer <token>)', 'authentication_error', null, 'invalid_api_key');
}

export function notFound(message: string, code = 'not_found'): ApiError {
  return new ApiError(404, message, 'not_found_error', null, code);
}

export function conflict(message: string, code: string): ApiError {
  return new ApiError(409, message, 'conflict_error', null, code);
}

export function noWorker(taskQueue: string): ApiError {
  return new ApiError(
    503,
    `no worker polls the task queue "${taskQueue}": nothing would run the conversation (start one: hermes worker)`,
    'service_unavailable',
    null,
    'no_worker',
  );
}

/** Anything not an ApiError becomes a 500 that says what failed (the server's log has the stack). */
export function asApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new ApiError(500, message, 'server_error', null, 'internal_error');
}
