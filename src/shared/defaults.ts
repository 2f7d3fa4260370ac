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
};

/**
 * Dynamic config for the embedded dev server. The dev server hands a new task to a waiting worker at most
 * ~20 times a second by default (transfer queue polling), which adds ~44 ms to every step of the loop;
 * raising the poll rate makes a step ~3x faster at the same idle CPU (measured in bench/RESULTS.md).
 */
export const DEV_SERVER_DYNAMIC_CONFIG = ['--dynamic-config-value', 'history.transferProcessorMaxPollRPS=200'];
