// One patch id per release of the workflow's behaviour. Every patched() call that returns true writes a marker
// event (and the SDK's TemporalChangeVersion upsert) into the history, so a run on code with a dozen separately
// patched changes paid for a dozen markers. A run started on the newest release records that release's marker
// once instead; runs recorded before it still replay through the older release's marker or the change's own id.
// A change belongs to the first release that covers it: `since(id, 2)` for changes made after release 1 shipped
// (its runs carry their own marker for the change), `since(id)` for those release 1 already covers.
// Patches that fire only when their case happens (a fallthrough, a streak of invalid calls, a compression) keep
// their own id: most runs never record them. The next release adds its id at the front of RELEASES.
import { patched } from '@temporalio/workflow';

/** Newest first. */
const RELEASES = ['hermes-release-2', 'hermes-release-1'] as const;
export const RELEASE_1 = RELEASES[1];
export const LATEST_RELEASE = RELEASES[0];

/**
 * True for a run started on release `release` (default 1) or later, or one recorded on code that already had
 * the change `patchId`. Releases are asked newest first, so a new run records only the newest marker.
 */
export function since(patchId: string, release: 1 | 2 = 1): boolean {
  const covering = RELEASES.slice(0, RELEASES.length - release + 1);
  return covering.some((id) => patched(id)) || patched(patchId);
}
