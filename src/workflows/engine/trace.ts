// Outcomes that no event of their own would show: an approval that timed out or was denied, an interrupt, a
// stop for invalid or repeated calls, a budget used up, a model call that needed retries. Each becomes a row
// with a summary in the history (the Web UI's compact view, `temporal workflow show`), not only a line in the
// `state` query: the cheapest such row is a local activity's marker (one MarkerRecorded event in the same
// workflow task, ~0.3 KB), and these happen at most a few times a turn, so bytes per step stay flat.
import { CancellationScope } from '@temporalio/workflow';
import { localActivities, localActivityOptions } from './activity-options';
import type { StatusBoard } from '../state/status-board';

/** The Web UI cuts long summaries; the state query and the details keep the whole line. */
const SUMMARY_CHARS = 200;

export async function traceOutcome(board: StatusBoard, text: string): Promise<void> {
  board.noteOutcome(text);
  // Not cut by an interrupt or a cancel: the trace is of what that stop did.
  await CancellationScope.nonCancellable(() =>
    localActivities.outcome.executeWithOptions({ ...localActivityOptions, summary: text.slice(0, SUMMARY_CHARS) }, []),
  );
}
