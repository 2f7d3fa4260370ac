// Stable failure type strings: used as Temporal ApplicationFailure types by activities and matched by type
// string (never instanceof) in the workflow and the client.
export const FailureType = {
  ModelAuth: 'ModelAuth',
  ModelBadRequest: 'ModelBadRequest',
  ContextOverflow: 'ContextOverflow',
  RateLimited: 'RateLimited',
  ModelUnavailable: 'ModelUnavailable',
  ModelTimeout: 'ModelTimeout',
  ModelNetwork: 'ModelNetwork',
  ModelConfig: 'ModelConfig',
  EmptyResponse: 'EmptyResponse',
} as const;
export type FailureType = (typeof FailureType)[keyof typeof FailureType];

/** Model failures that retrying cannot fix. */
export const NON_RETRYABLE_MODEL_FAILURES: string[] = [
  FailureType.ModelAuth,
  FailureType.ModelBadRequest,
  FailureType.ContextOverflow,
  FailureType.ModelConfig,
];

/**
 * A client cannot read a conversation's payloads: it has no payload key, or another one than the worker's
 * (src/codec/explain.ts, PayloadKeyMismatchError). A client-side error type, not a workflow failure.
 */
export const PAYLOAD_KEY_FAILURE = 'PayloadKey';
