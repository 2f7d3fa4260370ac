// Fault injection for evals (`hermes eval --faults RATE`, HERMES_FAULTS on a worker): a wrapper around the model and
// tool activities that fails an attempt, before it does anything, with the failures the real ones have — a model
// endpoint's 500, 429 and timeout as ModelUnavailable, RateLimited and ModelTimeout (so Temporal's retries, the
// fallback chain and the run's classification treat them as real), a tool call as InjectedFault (retried for
// idempotent tools, reported to the model for the others). Every injected message starts with INJECTED_PREFIX,
// which is how the eval counts them in the histories (src/eval/fault-count.ts).
import { ApplicationFailure, Context } from '@temporalio/activity';
import { FailureType } from '../shared/errors';

export const INJECTED_PREFIX = '[injected fault]';
export const INJECTED_TOOL_FAILURE = 'InjectedFault';

export interface FaultConfig {
  /** Share of model and tool activity attempts that fail, 0–1. */
  rate: number;
  /** Makes the choice a function of (seed, workflow id, activity id, attempt) instead of Math.random(). */
  seed?: number;
  /** Hears every fault injected (tests count them). */
  onInject?: (fault: { activity: 'callModel' | 'runTool'; type: string; workflowId?: string }) => void;
}

/** HERMES_FAULTS=RATE (0–1), HERMES_FAULTS_SEED=N; unset or 0: none. A bad value stops the worker at start. */
export function faultsFromEnv(env: NodeJS.ProcessEnv = process.env): FaultConfig | undefined {
  const raw = env.HERMES_FAULTS?.trim();
  if (!raw) return undefined;
  const rate = Number(raw);
  if (!Number.isFinite(rate) || rate < 0 || rate > 1) throw new Error(`HERMES_FAULTS must be a rate between 0 and 1, got "${raw}"`);
  if (rate === 0) return undefined;
  const seedRaw = env.HERMES_FAULTS_SEED?.trim();
  if (seedRaw && !/^\d{1,15}$/.test(seedRaw)) throw new Error(`HERMES_FAULTS_SEED must be a whole number, got "${seedRaw}"`);
  return { rate, ...(seedRaw ? { seed: Number(seedRaw) } : {}) };
}

const MODEL_FAULTS = [
  { type: FailureType.ModelUnavailable, message: 'model endpoint answered HTTP 500 (Internal Server Error)' },
  { type: FailureType.RateLimited, message: 'model endpoint answered HTTP 429 (rate limited), retry after 1 s' },
  { type: FailureType.ModelTimeout, message: 'model call timed out' },
] as const;

/** Kept like the model activity keeps its own (activities/model.ts): the last five. */
const MAX_FAILURES_KEPT = 5;

/** FNV-1a, 32 bits: a draw in [0, 1) that depends on the text alone. */
function draw(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h / 2 ** 32;
}

type AnyActivity = (...args: never[]) => Promise<unknown>;

/** The activities with callModel and runTool failing at `config.rate`; the others (and no config) unchanged. */
export function withFaults<A extends Record<string, AnyActivity>>(activities: A, config: FaultConfig | undefined): A {
  if (!config || config.rate <= 0) return activities;
  const roll = (salt: string): number | undefined => {
    const info = Context.current().info;
    const key = `${config.seed}|${info.workflowExecution?.workflowId}|${info.activityId}|${info.attempt}`;
    const p = config.seed === undefined ? Math.random() : draw(`${key}|${salt}`);
    return p < config.rate ? (config.seed === undefined ? Math.random() : draw(`${key}|kind`)) : undefined;
  };
  const injectedHere = (activity: 'callModel' | 'runTool', type: string) => {
    const ctx = Context.current();
    const workflowId = ctx.info.workflowExecution?.workflowId;
    ctx.log.info('injected fault', { activity, type, attempt: ctx.info.attempt });
    config.onInject?.({ activity, type, ...(workflowId ? { workflowId } : {}) });
  };
  const out: Record<string, AnyActivity> = { ...activities };
  const callModel = activities.callModel;
  if (callModel) {
    out.callModel = async (...args: never[]) => {
      const k = roll('model');
      if (k === undefined) return callModel(...args);
      const fault = MODEL_FAULTS[Math.floor(k * MODEL_FAULTS.length)]!;
      const message = `${INJECTED_PREFIX} ${fault.message}`;
      // As the model activity does before it throws: the attempt that succeeds reports the earlier failures in its
      // result (and the Web UI's pending-activity card shows them), so the eval can count them exactly.
      const ctx = Context.current();
      injectedHere('callModel', fault.type);
      const earlier = (ctx.info.heartbeatDetails as { failures?: unknown } | undefined)?.failures;
      const failures = [...(Array.isArray(earlier) ? (earlier as unknown[]) : []), { type: fault.type, message }].slice(-MAX_FAILURES_KEPT);
      ctx.heartbeat({ step: (args[0] as { step?: number } | undefined)?.step, attempt: ctx.info.attempt, failures });
      throw ApplicationFailure.create({
        message,
        type: fault.type,
        ...(fault.type === FailureType.RateLimited ? { nextRetryDelay: '1 second' } : {}),
      });
    };
  }
  const runTool = activities.runTool;
  if (runTool) {
    out.runTool = async (...args: never[]) => {
      if (roll('tool') === undefined) return runTool(...args);
      const name = (args[0] as { name?: string } | undefined)?.name ?? 'tool';
      injectedHere('runTool', INJECTED_TOOL_FAILURE);
      throw ApplicationFailure.create({ message: `${INJECTED_PREFIX} ${name} failed before it ran`, type: INJECTED_TOOL_FAILURE });
    };
  }
  return out as A;
}
