// One patch id per release of the workflow's behaviour. Every patched() call that returns true writes a marker
// event (and the SDK's TemporalChangeVersion upsert) into the history, so a run on code with a dozen separately
// patched changes paid for a dozen markers. A run started on this release records RELEASE_1 once instead; runs
// recorded before it still replay through each change's own patch id. Patches that fire only when their case
// happens (a fallthrough, a streak of invalid calls) keep their own id: most runs never record them.
// The next release that changes behaviour adds RELEASE_2 and checks it first the same way.
import { patched } from '@temporalio/workflow';

export const RELEASE_1 = 'hermes-release-1';

/** True for a run started on this release, or one recorded on code that already had the change `patchId`. */
export function since(patchId: string): boolean {
  return patched(RELEASE_1) || patched(patchId);
}
