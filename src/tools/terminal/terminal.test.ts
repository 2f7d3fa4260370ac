// terminal's handler (processes, timeouts, aborts, output caps) and its heartbeat details; no Temporal server.
import { describe, expect, it } from 'vitest';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { processesWith, sleepMarker, sleepsWith } from '../../../test/helpers/procs';
import { toolTestBed } from '../../../test/helpers/tool-context';
import { waitFor } from '../../../test/helpers/wait';
import { terminal } from './handler';
import { TerminalProgress } from './heartbeat-details';

const bed = toolTestBed();
const { ctx } = bed;

describe('terminal', () => {
  it('returns output and a non-zero exit code as data', async () => {
    const out = await terminal({ command: 'echo out; echo err >&2; exit 3' }, ctx());
    expect(out.split('\n').sort()).toEqual(['err', 'exit code: 3', 'out']);
    expect(out.endsWith('\nexit code: 3')).toBe(true);
    expect(await terminal({ command: 'true' }, ctx())).toBe('(no output)\nexit code: 0');
  });

  it('says why a command over 128 KiB cannot run (the kernel would answer a bare E2BIG), and runs one just under', async () => {
    await expect(terminal({ command: `echo ${'x'.repeat(200_000)}` }, ctx())).rejects.toThrow(
      /200005 bytes, more than one command line may be \(128 KiB\): write it to a file/,
    );
    expect(await terminal({ command: `echo ${'x'.repeat(128 * 1024 - 14)} | wc -c` }, ctx())).toBe('131059\nexit code: 0');
  });

  it('runs in the workspace or a cwd inside it', async () => {
    await fs.mkdir(path.join(bed.ws, 'sub'));
    expect(await terminal({ command: 'pwd' }, ctx())).toBe(`${bed.ws}\nexit code: 0`);
    expect(await terminal({ command: 'pwd', cwd: 'sub' }, ctx())).toBe(`${path.join(bed.ws, 'sub')}\nexit code: 0`);
  });

  // In a pid namespace (isolation.ts) `$$` and `$!` are the namespace's pids: the processes are found on the
  // host by a marker in their command line.
  it('kills the whole process group on timeout and returns the output so far', async () => {
    const [bg, fg] = [sleepMarker(30), sleepMarker(30)];
    const out = await terminal({ command: `sleep ${bg} & echo started; sleep ${fg}`, timeout: 1 }, ctx());
    expect(out).toBe('started\ntimed out after 1 s; the command and its child processes were killed');
    await waitFor('the command and its background child to die', () => processesWith(bg).length + processesWith(fg).length === 0, 5_000);
  }, 10_000);

  it('kills the process group and rejects with AbortError when aborted', async () => {
    const ac = new AbortController();
    const [bg, fg] = [sleepMarker(30), sleepMarker(30)];
    const run = terminal({ command: `sleep ${bg} & sleep ${fg}` }, ctx({ signal: ac.signal }));
    const settled = run.catch((e: unknown) => e);
    await waitFor('both sleeps', () => sleepsWith(bg).length === 1 && sleepsWith(fg).length === 1);
    await waitFor('a heartbeat', () => bed.heartbeats >= 1);
    ac.abort();
    const err = await settled;
    expect((err as Error).name).toBe('AbortError');
    // The background child got the same kill; under load it may take a moment to be gone.
    await waitFor('the command and its background child to die', () => processesWith(bg).length + processesWith(fg).length === 0, 5_000);
  }, 10_000);

  it('keeps head and tail of huge output within 1 MB', async () => {
    const out = await terminal({ command: "head -c 3000000 /dev/zero | tr '\\0' a; echo; echo END" }, ctx());
    expect(out.length).toBeLessThan(1024 * 1024 + 200);
    expect(out.startsWith('aaaa')).toBe(true);
    expect(out).toMatch(/\[\.\.\. \d+ characters dropped \.\.\.\]/);
    expect(out.endsWith('a\nEND\nexit code: 0')).toBe(true);
  });
});

describe('terminal heartbeat details (TerminalProgress)', () => {
  const redact = (t: string) => t.replaceAll('SECRETVALUE123', '[REDACTED:value]');

  it('redacts before it cuts: a secret across the cut is replaced whole, not shown in part', () => {
    const command = `echo ${'a'.repeat(184)} SECRETVALUE123 and more`; // the secret spans characters 190-204
    const p = new TerminalProgress(command, 'namespace', redact);
    const d = p.details();
    expect(d.command).toHaveLength(200);
    expect(d.command).not.toMatch(/SECR/);
    expect(d.command).toMatch(/ \[REDACTED…$/); // the placeholder is what got cut
    expect(d).toMatchObject({ elapsedSec: 0, outputBytes: 0, lastLine: '', sandbox: 'namespace' });
  });

  it('shows the last non-empty line: after a carriage return, without escape sequences, redacted', () => {
    const p = new TerminalProgress('make', 'none', redact);
    p.push('line one\nprogress 10%\rprogress 50%\r');
    expect(p.details().lastLine).toBe('progress 50%');
    p.push('\x1b[32mgreen\x1b[0m SECRETVALUE123\n\n');
    expect(p.details()).toMatchObject({
      lastLine: 'green [REDACTED:value]',
      outputBytes: Buffer.byteLength('line one\nprogress 10%\rprogress 50%\r\x1b[32mgreen\x1b[0m SECRETVALUE123\n\n'),
    });
    p.push('é\n');
    expect(p.details().outputBytes - Buffer.byteLength('line one\nprogress 10%\rprogress 50%\r\x1b[32mgreen\x1b[0m SECRETVALUE123\n\n')).toBe(3);
  });

  it('drops the first word of a line longer than its window (it may be the end of a secret) and cuts the line', () => {
    const p = new TerminalProgress('cat big', 'none');
    p.push(`${'y'.repeat(20_000)} visible end`);
    expect(p.details().lastLine).toBe('visible end');
    p.push(`\n${'z '.repeat(300)}`);
    expect(p.details().lastLine).toHaveLength(200);
  });
});
