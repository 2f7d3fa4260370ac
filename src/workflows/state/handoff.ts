// Where a continued run takes over: the run before it hands over, in the memo of the next run, the step it
// reached and what it carried, so the next run's Web UI page — whose input is the original prompt and an opaque
// payload-store reference — does not read as a fresh start. Shown in the current details (state/details.ts).
import { workflowInfo } from '@temporalio/workflow';

/** The memo field of a continued run: the handover from the run before it. */
export const HANDOFF_MEMO = 'hermesContinuedFrom';

export interface Handoff {
  runId: string;
  /** The last step record's number and the iteration count when the run continued. */
  step: number;
  iteration: number;
  messages: number;
  /** Characters of the carried state's JSON. */
  chars: number;
  /** Whether the carried state went to the payload store (the history holds a reference) or inline. */
  inPayloadStore: boolean;
}

export function handoffOf(h: Omit<Handoff, 'runId' | 'inPayloadStore'>, store: { stored: boolean; threshold?: number }): Handoff {
  // The codec stores a payload at or past its threshold; the JSON text's length stands in for its byte size.
  const inPayloadStore = store.stored && h.chars >= (store.threshold ?? 0);
  return { runId: workflowInfo().runId, ...h, inPayloadStore };
}

/** The details line of a continued run, from its memo; empty for a first run. */
export function handoffText(): string {
  const info = workflowInfo();
  const h = info.memo?.[HANDOFF_MEMO] as Partial<Handoff> | undefined;
  if (!info.continuedFromExecutionRunId || typeof h !== 'object' || h === null || typeof h.runId !== 'string') return '';
  const kb = Math.round((h.chars ?? 0) / 1024).toLocaleString('en-US');
  const where = h.inPayloadStore ? 'in the payload store (the input shows its reference)' : 'inline in the input';
  return `continues run \`${h.runId}\` after step ${h.step} (iteration ${h.iteration}): carried ${h.messages} messages, ${kb} KB of state, ${where}`;
}
