// Matching a model-written regular expression against file lines without letting it hang the worker.
// JavaScript runs regular expressions synchronously: /(a+)+$/ on a long line would block the worker's event loop
// — every conversation on it — for minutes. Matching runs inside a vm context with a timeout, which interrupts
// it. Entering the context with a timeout costs ~0.1 ms (a watchdog thread), so files are matched in batches.
import * as vm from 'node:vm';
import { ToolError } from '../handler';

/** Time one batch of files may take to match. */
export const PATTERN_TIMEOUT_MS = 2_000;
const BATCH_FILES = 64;
const BATCH_CHARS = 512 * 1024;

export interface LineHit {
  file: string;
  /** 0-based. */
  line: number;
  text: string;
}

const MATCH = new vm.Script(
  'out.length = 0;' +
    'for (let f = 0; f < files.length && out.length < 2 * max; f++) {' +
    '  const ls = files[f].lines;' +
    '  for (let i = 0; i < ls.length && out.length < 2 * max; i++) if (re.test(ls[i])) out.push(f, i);' +
    '}',
);

export class LineMatcher {
  private readonly box: vm.Context;
  private pending: Array<{ file: string; lines: string[] }> = [];
  private chars = 0;
  private found = 0;

  constructor(
    private readonly re: RegExp,
    private readonly max: number,
  ) {
    // One context per search: creating one costs about a millisecond.
    this.box = vm.createContext({ re, files: [], max: 0, out: [] as number[] });
  }

  get done(): boolean {
    return this.found >= this.max;
  }

  /** Queues a file's lines; returns the hits of the batch when this file completes one. */
  add(file: string, lines: string[], chars: number): LineHit[] {
    this.pending.push({ file, lines });
    this.chars += chars;
    return this.pending.length >= BATCH_FILES || this.chars >= BATCH_CHARS ? this.flush() : [];
  }

  /** Matches what is queued, in order, up to the search's max_results. */
  flush(): LineHit[] {
    const files = this.pending;
    this.pending = [];
    this.chars = 0;
    if (files.length === 0 || this.done) return [];
    Object.assign(this.box, { files, max: this.max - this.found });
    try {
      MATCH.runInContext(this.box, { timeout: PATTERN_TIMEOUT_MS });
    } catch (err) {
      if (!/timed out/i.test((err as Error).message)) throw err;
      const where = files.length === 1 ? files[0]!.file : `${files[0]!.file} … ${files[files.length - 1]!.file}`;
      throw new ToolError(
        `the pattern ${JSON.stringify(this.re.source)} took over ${PATTERN_TIMEOUT_MS / 1000} s on ${where} (catastrophic ` +
          'backtracking); simplify it (avoid nested quantifiers such as (a+)+) or narrow the path',
      );
    }
    const out = this.box.out as number[];
    const hits: LineHit[] = [];
    for (let k = 0; k < out.length; k += 2) {
      const f = files[out[k]!]!;
      hits.push({ file: f.file, line: out[k + 1]!, text: f.lines[out[k + 1]!]! });
    }
    this.found += hits.length;
    return hits;
  }
}
