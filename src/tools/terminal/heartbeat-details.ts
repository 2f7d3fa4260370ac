// What a running terminal command tells in its heartbeats (handler-helpers/heartbeat-text.ts says where they are seen): which command,
// for how long, how much output, its last line and what it runs under — never the output itself.
import type { Confinement } from '../sandbox';
import { cut, shown } from '../handler-helpers/heartbeat-text';

export interface TerminalHeartbeat {
  /** The command line, redacted, on one line, cut to 200 characters. */
  command: string;
  elapsedSec: number;
  /** stdout and stderr so far, in bytes (the result keeps at most 1 MB of it). */
  outputBytes: number;
  /** The last non-empty line of output so far (after a carriage return: what a progress bar shows), redacted and cut. */
  lastLine: string;
  /** bwrap, the namespace launcher, or none (src/tools/isolation.ts). */
  sandbox: Confinement;
}

/** The tail of the output the last line is taken from; redacted as a whole, so a key block before it still counts. */
const WINDOW_CHARS = 8192;

// Escape sequences (colours, cursor moves) and other control characters; \n and \r are kept for the line split.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-_]|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

export class TerminalProgress {
  private recent = '';
  /** Whether text before `recent` was dropped: its first line may start in the middle. */
  private dropped = false;
  private bytes = 0;
  private lineAt = -1;
  private line = '';
  private readonly command: string;
  private readonly started = Date.now();

  constructor(
    command: string,
    private readonly sandbox: Confinement,
    private readonly redact: (text: string) => string = (t) => t,
  ) {
    this.command = shown(command, redact);
  }

  push(chunk: string): void {
    this.bytes += Buffer.byteLength(chunk);
    this.recent += chunk;
    if (this.recent.length > 2 * WINDOW_CHARS) {
      this.recent = this.recent.slice(-WINDOW_CHARS);
      this.dropped = true;
    }
  }

  /** The heartbeat details now; the last line is worked out again only when there is new output. */
  details(): TerminalHeartbeat {
    if (this.lineAt !== this.bytes) {
      this.lineAt = this.bytes;
      this.line = this.lastLine();
    }
    return {
      command: this.command,
      elapsedSec: Math.floor((Date.now() - this.started) / 1000),
      outputBytes: this.bytes,
      lastLine: this.line,
      sandbox: this.sandbox,
    };
  }

  private lastLine(): string {
    const partialStart = this.dropped || this.recent.length > WINDOW_CHARS;
    const text = this.redact(this.recent.slice(-WINDOW_CHARS).replace(CONTROL, ''));
    const lines = text.split('\n');
    let i = lines.length - 1;
    while (i >= 0 && lines[i]!.trim() === '') i--;
    if (i < 0) return '';
    const parts = lines[i]!.split('\r').filter((p) => p.trim() !== '');
    let line = parts.at(-1) ?? '';
    // A line longer than the window: its first word may be the end of something longer, a secret's included.
    if (i === 0 && partialStart && parts.length <= 1) line = line.replace(/^\S*\s*/, '');
    return cut(line.trim());
  }
}
