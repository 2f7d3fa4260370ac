// Named activity-option profiles, declared once. Workflow code imports activity *types* only.
import type { ActivityOptions } from '@temporalio/workflow';
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { createActivities } from '../../activities';
import type { Limits } from '../../shared/contract';
import { NON_RETRYABLE_MODEL_FAILURES } from '../../shared/errors';

type Activities = ReturnType<typeof createActivities>;

export const modelCallOptions: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds', // overridden per run by limits.modelHeartbeatSec
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 6,
    nonRetryableErrorTypes: NON_RETRYABLE_MODEL_FAILURES,
  },
};

/** The model activity's options for a conversation's limits; `summary` names the call in the Web UI. */
export function modelOptions(limits: Pick<Limits, 'modelHeartbeatSec' | 'modelMaxAttempts'>, summary: string): ActivityOptions {
  return {
    ...modelCallOptions,
    heartbeatTimeout: limits.modelHeartbeatSec * 1000,
    retry: { ...modelCallOptions.retry, maximumAttempts: limits.modelMaxAttempts },
    summary: `model ${summary}`,
  };
}

/** Read-only and idempotent tools: safe to retry after an infrastructure failure. */
export function retryingToolOptions(heartbeatSec: number): ActivityOptions {
  return {
    startToCloseTimeout: '15 minutes',
    heartbeatTimeout: `${heartbeatSec} seconds`,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
  };
}

/** Side-effecting tools are not retried blindly: a lost outcome is reported to the model instead. */
export function onceToolOptions(heartbeatSec: number): ActivityOptions {
  return {
    startToCloseTimeout: '15 minutes',
    heartbeatTimeout: `${heartbeatSec} seconds`,
    retry: { maximumAttempts: 1 },
  };
}

export const modelActivities = proxyActivities<Activities>(modelCallOptions);
/**
 * Tools get a proxy of their own: executeWithOptions deep-merges its options into the proxy's, so on `modelActivities` a
 * tool call would inherit the model's non-retryable failure types (shown on every tool activity in the Web UI).
 */
export const toolActivities = proxyActivities<Activities>({ startToCloseTimeout: '15 minutes' });

/** Quick checks on the worker's own filesystem (no side effects): local activities, a marker in history. */
export const localActivityOptions = { startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 3 } } as const;
export const localActivities = proxyLocalActivities<Activities>(localActivityOptions);
