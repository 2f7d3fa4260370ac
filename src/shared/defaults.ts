import type { Limits } from './types';

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

export const SEARCH_ATTRIBUTES = {
  HermesStatus: 'Keyword',
  HermesWaitingFor: 'Keyword',
} as const;
