// Replays run in this process (`hermes replay`, the CLI's query replays) report their own failure; core's line
// about the failed workflow task would repeat it as JSON with a stack, and it does not always name the replay's
// task queue. While one runs, the logger leaves such core lines out.
let running = 0;

/** Runs `fn` as a replay: core's workflow-task lines without a task queue are not logged meanwhile. */
export async function asReplay<T>(fn: () => Promise<T>): Promise<T> {
  running++;
  try {
    return await fn();
  } finally {
    running--;
  }
}

/** Whether a core line belongs to a replay running now (it names no task queue but a run). */
export function replayLine(m: { sdkComponent?: unknown; taskQueue?: unknown; runId?: unknown }): boolean {
  if (typeof m.taskQueue === 'string') return m.taskQueue.startsWith('fake_replay_queue');
  return running > 0 && m.sdkComponent === 'core' && typeof m.runId === 'string';
}
