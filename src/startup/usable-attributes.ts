// Which of Hermes' search attributes this worker's namespace lacks, for the runs it starts: a workflow that upserts
// an attribute the namespace does not have (or has with another type) fails every workflow task and never ends,
// so the start's local activity tells each run which ones to leave out (src/activities/prepare-run.ts).
import type { NativeConnection } from '@temporalio/worker';
import { unusableAttributes } from './register-attributes';

/** After a namespace answered with some missing (or did not answer), it is asked again this much later. */
const RECHECK_MS = 60_000;

export class AttributeCheck {
  #answer: { missing: string[] | undefined; at: number } | undefined;
  #asking: Promise<string[] | undefined> | undefined;

  constructor(
    private readonly list: () => Promise<Record<string, number>>,
    private readonly now: () => number = Date.now,
    private readonly recheckMs = RECHECK_MS,
  ) {}

  /**
   * The attributes the namespace cannot take; undefined when it could not be asked (the run then sets all of them,
   * as a worker that may not list them has no better guess). A complete namespace stays complete: not asked again.
   */
  async missing(): Promise<string[] | undefined> {
    const a = this.#answer;
    if (a && (a.missing?.length === 0 || this.now() - a.at < this.recheckMs)) return a.missing;
    this.#asking ??= this.list()
      .then(
        (current) => unusableAttributes(current),
        () => undefined,
      )
      .then((missing) => {
        this.#answer = { missing, at: this.now() };
        this.#asking = undefined;
        return missing;
      });
    return this.#asking;
  }
}

export function namespaceAttributeCheck(connection: NativeConnection, namespace: string): AttributeCheck {
  return new AttributeCheck(async () => {
    const res = await connection.operatorService.listSearchAttributes({ namespace });
    return { ...(res.customAttributes ?? {}), ...(res.systemAttributes ?? {}) } as Record<string, number>;
  });
}
