// One log line per model step and per tool call, written by the worker that ran it (src/observe/step.ts calls
// these). JSON off a terminal, for a log pipeline: the fields are stable names, the message a short summary.
// Lines pass the log redactor like every other (src/observe/logger.ts).
import { logger } from './logger';

export interface StepLine {
  event: 'model_step' | 'tool_call';
  conversationId: string;
  runId: string;
  /** Model steps: the step number (as in `hermes inspect --step N`). */
  step?: number;
  attempt: number;
  durationMs: number;
  /** ok, error (a tool's own failure the model reads), failed (thrown: retried or final), cancelled. */
  outcome: 'ok' | 'error' | 'failed' | 'cancelled';
  failureType?: string;
  error?: string;
  profile?: string;
  model?: string;
  tool?: string;
  callId?: string;
  tokensIn?: number;
  tokensOut?: number;
  reasoningTokens?: number;
  costUsd?: number;
  finishReason?: string;
  toolCalls?: number;
  /** Tool results: characters of the output, and whether it was cut. */
  size?: number;
  truncated?: boolean;
  redactions?: number;
  traceId?: string;
}

export function logStep(line: StepLine): void {
  const what = line.event === 'model_step' ? `model step ${line.step} (${line.profile}: ${line.model})` : `tool ${line.tool} (${line.callId})`;
  const tokens = line.tokensIn !== undefined ? `, ${line.tokensIn}+${line.tokensOut ?? 0} tokens` : '';
  const retry = line.attempt > 1 ? `, attempt ${line.attempt}` : '';
  const why = line.failureType ? `: ${line.failureType}: ${line.error ?? ''}` : line.error ? `: ${line.error}` : '';
  const msg = `${what} ${line.outcome} in ${line.durationMs} ms${tokens}${retry}${why}`;
  const record = Object.fromEntries(Object.entries(line).filter(([, v]) => v !== undefined));
  if (line.outcome === 'failed') logger.warn(record, msg);
  else logger.info(record, msg);
}
