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
