// The status board: what a conversation shows of itself — its status and what it waits for (also as search
// attributes, so the Web UI and `temporal workflow list` can filter), its outcome, the steps it recorded, the
// latest outcomes traced into the history and the call in flight (the live details of the Web UI).
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { setCurrentDetails, upsertMemo, upsertSearchAttributes } from '@temporalio/workflow';
import { z } from 'zod';
import { stepRecordSchema, type ConversationState, type RunStatus, type StepRecord } from '../../shared/contract';
import { HermesIterations, HermesModel, HermesScope, HermesStatus, HermesSummary, HermesWaitingFor } from '../../shared/search-attributes';
import { SUMMARY_MEMO, summarySearchText } from '../../shared/session-summary';

const MAX_STEPS_KEPT = 20;
const OUTCOMES_KEPT = 3;
/**
 * Model steps between progress upserts. Counted, not timed: a decision on workflow time diverged in replay on the
 * production server (the soak, bench/RESULTS.md) — a workflow task that timed out under load and was retried gave
 * the retry another start time than its replay saw, so the replay skipped an upsert the history held.
 */
const PROGRESS_EVERY_STEPS = 5;
/** The endings whose answer is the model's final summary of a forced stop: an empty one is said as such. */
const NO_ANSWER_TOLD: ReadonlySet<RunStatus> = new Set(['stopped_repeating', 'budget_exhausted']);

export function statusCarry() {
  return z.object({ steps: z.array(stepRecordSchema()), missingAttributes: z.array(z.string()).optional() });
}
export type StatusCarry = z.infer<ReturnType<typeof statusCarry>>;

type WaitingFor = ConversationState['waitingFor'];

export interface BoardSource {
  /** Search attributes off (input.searchAttributes === false). */
  quiet: boolean;
  /** The Markdown of the Web UI's details (view.ts). */
  details(): string;
  /** What HermesModel and HermesIterations say now. */
  progress(): { model: string; iteration: number };
}

export class StatusBoard {
  #status: RunStatus = 'running';
  #waitingFor: WaitingFor = null;
  #outcome: { reason?: string; error?: string } = {};
  #noAnswer = false;
  #steps: StepRecord[];
  #recentOutcomes: string[] = [];
  #inFlight: string | undefined;
  #publishedAtIteration = 0;
  /**
   * The search attributes the namespace lacks, as the run's start learnt from its worker (undefined until then): a
   * workflow task that upserts one the namespace does not have is refused by the server, again and again.
   */
  #missing: ReadonlySet<string> | undefined;

  constructor(
    carried: StatusCarry | undefined,
    private readonly src: BoardSource,
  ) {
    this.#steps = carried?.steps ?? [];
    if (carried) this.#missing = new Set(carried.missingAttributes);
  }

  carry(): StatusCarry {
    const missing = [...(this.#missing ?? [])];
    return { steps: this.#steps, ...(missing.length ? { missingAttributes: missing } : {}) };
  }

  /** Whether the run still has to learn which search attributes it may set (a fresh run before its start's answer). */
  get learning(): boolean {
    return this.#missing === undefined && !this.src.quiet;
  }

  /**
   * What the start's local activity said the namespace lacks. The status the run has had since its constructor was
   * held until now (publish() while learning): published now.
   */
  attributesKnown(missing: readonly string[] = []): void {
    this.#missing = new Set(missing);
    this.publish();
  }

  get status(): RunStatus {
    return this.#status;
  }
  get waitingFor(): WaitingFor {
    return this.#waitingFor;
  }
  get outcome(): { reason?: string; error?: string } {
    return this.#outcome;
  }
  get steps(): readonly StepRecord[] {
    return this.#steps;
  }
  get recentOutcomes(): readonly string[] {
    return this.#recentOutcomes;
  }
  get inFlight(): string | undefined {
    return this.#inFlight;
  }

  set(status: RunStatus, waitingFor: WaitingFor = null): void {
    const changed = status !== this.#status || waitingFor !== this.#waitingFor;
    this.#status = status;
    this.#waitingFor = waitingFor;
    if (changed) this.publish();
    this.refresh();
  }

  /** The run's outcome, once it has one. */
  end(status: RunStatus, outcome: { reason?: string; error?: string }, answer = ''): void {
    this.#outcome = outcome;
    this.#noAnswer = NO_ANSWER_TOLD.has(status) && !answer.trim();
    this.set(status);
  }

  /**
   * What HermesStatus and the details say: the status, or `<status>_no_answer` for a stop whose final summary came
   * back empty — the workflow is COMPLETED either way (it carries an answer), and a green COMPLETED with nothing in
   * it must not read as a good run.
   */
  get shownStatus(): string {
    return this.#noAnswer ? `${this.#status}_no_answer` : this.#status;
  }

  /** Workflow cancellation: the search attribute says so before the run ends as cancelled. */
  cancelled(): void {
    this.#status = 'cancelled';
    this.#waitingFor = null;
    this.publish();
    this.refresh();
  }

  /** `modelStep` numbers as the history's summaries and `hermes inspect --step` do: the model calls so far. */
  record(step: Omit<StepRecord, 'step' | 'modelStep'>, modelStep: number): void {
    const last = this.#steps[this.#steps.length - 1];
    this.#steps.push({ step: last ? last.step + 1 : 1, ...(modelStep ? { modelStep } : {}), ...step });
    if (this.#steps.length > MAX_STEPS_KEPT) this.#steps.splice(0, this.#steps.length - MAX_STEPS_KEPT);
    this.refresh();
  }

  noteOutcome(text: string): void {
    this.#recentOutcomes.push(text);
    if (this.#recentOutcomes.length > OUTCOMES_KEPT) this.#recentOutcomes.shift();
    this.refresh();
  }

  inFlightNow(what: string | undefined): void {
    this.#inFlight = what;
    this.refresh();
  }
  inFlightDone(what: string): void {
    if (this.#inFlight === what) this.#inFlight = undefined;
  }

  /** HermesStatus / HermesWaitingFor make conversations filterable in the Web UI and `temporal workflow list`. */
  publish(): void {
    const missing = this.#leftOut();
    if (!missing) return;
    const { model, iteration } = this.src.progress();
    this.#publishedAtIteration = iteration;
    upsertAllBut(missing, [
      { key: HermesStatus, value: this.shownStatus },
      { key: HermesWaitingFor, value: this.#waitingFor },
      { key: HermesModel, value: model },
      { key: HermesIterations, value: iteration },
    ]);
  }

  /**
   * After a model step: the iteration count (and the profile, which a fallback may have changed), every
   * PROGRESS_EVERY_STEPS model steps between status changes (which publish it too). Every upsert is a history
   * event and a visibility write on the server: once per step it cost ~0.3 KB of history and ~8 % of the loop's
   * speed (bench/RESULTS.md).
   */
  publishProgress(): void {
    const missing = this.#leftOut();
    if (!missing) return;
    const { model, iteration } = this.src.progress();
    if (iteration - this.#publishedAtIteration < PROGRESS_EVERY_STEPS) return;
    this.#publishedAtIteration = iteration;
    upsertAllBut(missing, [
      { key: HermesModel, value: model },
      { key: HermesIterations, value: iteration },
    ]);
  }

  /**
   * Session search: the turns' summary and the scope it is found in (search-summary.ts), once per turn. The Text
   * attribute gets only normalized words (a PostgreSQL visibility store parses it as a tsvector: a "Q: " in it
   * kept the run's close out of visibility for good); the readable text goes to the memo, which visibility lists
   * with each run, for snippets and the Web UI.
   */
  publishSummary(summary: string, scope: string): void {
    const missing = this.#leftOut();
    if (!missing) return;
    upsertAllBut(missing, [
      { key: HermesSummary, value: summarySearchText(summary) },
      { key: HermesScope, value: scope },
    ]);
    upsertMemo({ [SUMMARY_MEMO]: summary });
  }

  /** The attributes to leave out of an upsert; undefined while the run may set none (quiet, or still learning). */
  #leftOut(): ReadonlySet<string> | undefined {
    return this.src.quiet ? undefined : this.#missing;
  }

  /** The live summary on the workflow page of the Temporal Web UI. */
  refresh(): void {
    setCurrentDetails(this.src.details());
  }
}

/** Only the attributes the namespace has: the others would fail the workflow task. */
function upsertAllBut(missing: ReadonlySet<string>, updates: SearchAttributeUpdatePair[]): void {
  const kept = missing.size ? updates.filter((u) => !missing.has(u.key.name)) : updates;
  if (kept.length) upsertSearchAttributes(kept);
}
