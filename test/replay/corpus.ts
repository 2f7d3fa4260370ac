// The replay corpus (test/fixtures/histories/, written by `npm run record-histories`) and what each history shows,
// read from its events — so the negative controls can say which histories a change must break without naming any:
// re-recording the corpus changes the files, not these rules.
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const HISTORIES = path.resolve('test/fixtures/histories');
/** Differences the input check accepts, per history file: see the file's own note. */
export const KNOWN_DIFFERENCES = path.resolve('test/fixtures/known-differences.json');

export interface CorpusEntry {
  file: string;
  workflowId: string;
  history: temporal.api.history.v1.IHistory;
  /** The workflow type that ran. */
  type: string;
  /** A conversation's first run: not a continue-as-new run, no carried state (a continued run carries its prompt and tools). */
  fresh: boolean;
  /** The start input named no tools: the conversation got the defaults. */
  defaultTools: boolean;
  /** The tools each `callModel` offered, in order. */
  offered: string[][];
  /** Some model reply asked for two or more tool calls, and the run scheduled something after it. */
  parallelReply: boolean;
}

const decode = (p: Payload | null | undefined): unknown => (p ? defaultPayloadConverter.fromPayload(p) : undefined);

export function loadCorpus(): CorpusEntry[] {
  return readdirSync(HISTORIES)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const history = historyFromJSON(JSON.parse(readFileSync(path.join(HISTORIES, file), 'utf8')));
      const events = history.events ?? [];
      const started = events[0]?.workflowExecutionStartedEventAttributes;
      const input = (started?.input?.payloads ?? []).map((p) => decode(p as Payload));
      const scheduled = new Map<string, string>();
      const offered: string[][] = [];
      let parallelAt = -1;
      events.forEach((e, i) => {
        const s = e.activityTaskScheduledEventAttributes;
        if (s) {
          scheduled.set(String(e.eventId), s.activityType?.name ?? '');
          if (s.activityType?.name === 'callModel') offered.push((decode(s.input?.payloads?.[0] as Payload) as { tools?: string[] }).tools ?? []);
        }
        const done = e.activityTaskCompletedEventAttributes;
        if (done && scheduled.get(String(done.scheduledEventId)) === 'callModel' && parallelAt < 0) {
          const calls = (decode(done.result?.payloads?.[0] as Payload) as { message?: { tool_calls?: unknown[] } } | undefined)?.message?.tool_calls;
          if ((calls?.length ?? 0) > 1) parallelAt = i;
        }
      });
      const first = input[0];
      return {
        file,
        // Replayed under the recorded workflow id: a workflow that derives ids from its own (the delivery child,
        // `<id>-delivery`) replays only under it. Histories that do not record it use the file name.
        workflowId: started?.workflowId || file.replace(/\.json$/, ''),
        history,
        type: started?.workflowType?.name ?? '',
        fresh: !started?.continuedExecutionRunId && input.length <= 1,
        defaultTools: typeof first === 'string' || (typeof first === 'object' && first !== null && !('tools' in first)),
        offered,
        parallelReply:
          parallelAt >= 0 &&
          events.slice(parallelAt + 1).some((e) => e.activityTaskScheduledEventAttributes || e.startChildWorkflowExecutionInitiatedEventAttributes),
      };
    });
}

/**
 * Differences the input check accepts for histories kept across a behaviour change (docs/versioning.md), from
 * test/fixtures/known-differences.json when it exists: `{ "note": why, "differences": { "<history file>":
 * ["<a difference exactly as the replay test prints it>", …] } }`.
 */
export function knownDifferences(): Record<string, string[]> {
  if (!existsSync(KNOWN_DIFFERENCES)) return {};
  const { differences } = JSON.parse(readFileSync(KNOWN_DIFFERENCES, 'utf8')) as { differences?: Record<string, string[]> };
  return differences ?? {};
}
