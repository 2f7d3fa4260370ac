// A bundle with one workflow that only waits: what the SDK alone keeps per cached workflow (scenario 4).
import { condition, defineSignal, setHandler } from '@temporalio/workflow';

export const stopIdle = defineSignal('stop');

export async function idleWorkflow(): Promise<void> {
  let stop = false;
  setHandler(stopIdle, () => void (stop = true));
  await condition(() => stop);
}
