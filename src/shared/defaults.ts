import type { Limits } from './contract';

export const TASK_QUEUE = 'hermes';

export const DEFAULT_LIMITS: Limits = {
  maxIterations: 90,
  toolOutputLimit: 20_000,
  terminalTimeoutSec: 60,
  maxHistoryEvents: 20_000,
  maxHistoryBytes: 20 * 1024 * 1024,
  toolHeartbeatSec: 30,
  modelHeartbeatSec: 10,
  modelMaxAttempts: 6,
  maxTokens: 0,
  maxCostUsd: 0,
  maxDurationSec: 0,
  clarifyTimeoutSec: 3_600,
  approvalTimeoutSec: 600,
  idleTimeoutSec: 86_400,
  compressAt: 0.5,
};

/** Dynamic config for the embedded dev server: the default task poll rate adds ~44 ms to every step (docs/design-notes.md, "Embedded server"). */
export const DEV_SERVER_DYNAMIC_CONFIG = ['--dynamic-config-value', 'history.transferProcessorMaxPollRPS=200'];

/** Sub-agents (delegate_task): written into every input, like the limits, so a later change of a default cannot change a running conversation. */
export const DEFAULT_DELEGATION = { maxConcurrent: 3, maxDepth: 2, childApprovals: false };

/** A sub-agent's iteration budget unless the parent has less left. */
export const CHILD_MAX_ITERATIONS = 50;

/** `hermes worker --grace`: seconds running tools get to finish after SIGTERM, before the SDK cancels them. */
export const SHUTDOWN_GRACE_SEC = 10;
/** Seconds past the grace period after which the SDK gives up a graceful shutdown (shutdownForceTime). */
export const SHUTDOWN_FORCE_AFTER_SEC = 15;
