// Which of Hermes' search attributes this worker's namespace lacks, for the runs it starts: a workflow that upserts
// an attribute the namespace does not have (or has with another type) fails every workflow task and never ends,
// so the start's local activity tells each run which ones to leave out (src/activities/prepare-run.ts).
import type { NativeConnection } from '@temporalio/worker';
import { unusableAttributes } from './register-attributes';

/** After a namespace answered with some missing (or did not answer), it is asked again this much later. */
const RECHECK_MS = 60_000;
/** A listing that takes longer counts as no answer: a run's start must not wait on a server that hangs. */
const LIST_TIMEOUT_MS = 5_000;

export class AttributeCheck {
  #answer: { missing: string[] | undefined; at: number } | undefined;
  #asking: Promise<string[] | undefined> | undefined;

  constructor(
    private readonly list: () => Promise<Record<string, number>>,
    private readonly now: () => number = Date.now,
    private readonly recheckMs = RECHECK_MS,
    private readonly timeoutMs = LIST_TIMEOUT_MS,
  ) {}

  /**
   * The attributes the namespace cannot take; undefined when it could not be asked (the run then sets all of them,
   * as a worker that may not list them has no better guess). A complete namespace stays complete: not asked again.
   * Once there is an answer it is given at once; a stale one is refreshed in the background for the next run.
   */
  async missing(): Promise<string[] | undefined> {
    const a = this.#answer;
    if (a && (a.missing?.length === 0 || this.now() - a.at < this.recheckMs)) return a.missing;
    const asking = this.ask();
    return a ? a.missing : asking;
  }

  private ask(): Promise<string[] | undefined> {
    this.#asking ??= within(this.list(), this.timeoutMs)
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

function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

export function namespaceAttributeCheck(connection: NativeConnection, namespace: string): AttributeCheck {
  return new AttributeCheck(async () => {
    const res = await connection.operatorService.listSearchAttributes({ namespace });
    return { ...(res.customAttributes ?? {}), ...(res.systemAttributes ?? {}) } as Record<string, number>;
  });
}
