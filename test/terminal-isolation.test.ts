// Terminal commands outside bubblewrap (src/tools/isolation.ts), with real processes and no server: what they
// leave running (`sleep &`, `nohup … &`, `setsid …`) ends with the call — after a normal exit, an interrupt and a
// timeout — under the namespace launcher, under bwrap, and (by the token sweep) without either. On real workers
// (the worker's environment, a SIGKILLed worker, heartbeat details): terminal-isolation-worker.test.ts.
// Processes are found on the host by a marker in their command line (`sleep 300.<unique>`). Timeouts here are
// safety nets: what is checked is the order (dead before or after the call returns) and the outcome.
import { chmodSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { terminal } from '../src/tools/terminal/handler';
import { isolationWarning, probeIsolation, type Isolation } from '../src/tools/isolation';
import type { SandboxChoice } from '../src/tools/sandbox';
import type { ToolContext } from '../src/tools/handler';
import { cleanupsAfterEach } from './helpers/cleanups';
import { machineIsolation } from './helpers/isolation-probe';
import { processesWith, sleepsWith } from './helpers/procs';
import { waitFor } from './helpers/wait';

const cleanups = cleanupsAfterEach();
const machine = machineIsolation(cleanups);
const { needs, marker, gone } = machine;
const NO_ISOLATION: Isolation = { kind: 'none', reason: 'forced by the test' };
/** A shell loop that returns once `sleep <marker>` runs (pgrep sees the namespace's processes, or the host's). */
const until = (...markers: string[]) => markers.map((m) => `until pgrep -fx "sleep ${m}" >/dev/null; do sleep 0.02; done`).join('; ');

describe('detection', () => {
  it('finds a launcher that really isolates, or says why not', async () => {
    expect(await probeIsolation('/nonexistent/unshare')).toEqual({ kind: 'none', reason: '/nonexistent/unshare is not an executable file' });
    // An "unshare" that only runs its command: the probe does not take a launcher at its word.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-fake-unshare-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const fake = path.join(dir, 'unshare');
    writeFileSync(fake, '#!/bin/sh\nwhile [ "${1#--}" != "$1" ]; do shift; done\nexec "$@"\n');
    chmodSync(fake, 0o755);
    const faked = await probeIsolation(fake);
    expect(faked.kind).toBe('none');
    const warning = isolationWarning(faked, false)!;
    expect(warning).toMatch(
      /^terminal commands run without any process isolation: they run as .*, like the worker, and can read the worker's whole environment/,
    );
    expect(warning).toMatch(/model keys and Temporal credentials/);
    expect(isolationWarning(faked, true)).toMatch(/^terminal commands of runs that opt out of the sandbox \(sandbox: none\) run without/);
    if (machine.iso.kind === 'namespace') {
      expect(machine.iso.description).toMatch(/pid and mount namespaces/);
      expect(isolationWarning(machine.iso, false)).toBeUndefined();
    }
  });
});

describe('what a command leaves running ends with the call', () => {
  let ws: string;
  beforeAll(() => {
    ws = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hermes-iso-ws-')));
  });
  afterAll(() => rmSync(ws, { recursive: true, force: true }));
  const ctx = (sandbox: SandboxChoice, signal = new AbortController().signal): ToolContext => ({
    workspace: ws,
    signal,
    heartbeat: () => undefined,
    terminalTimeoutSec: 30,
    callId: 'c',
    processDir: path.join(os.tmpdir(), `hermes-test-procs-iso-${process.pid}`),
    sandbox,
  });
  const modes: Array<{ name: string; needs?: 'namespace' | 'bwrap'; choice: () => SandboxChoice }> = [
    { name: 'the namespace launcher', needs: 'namespace', choice: () => ({ mode: 'none', network: false, isolation: machine.iso }) },
    { name: 'no isolation (the token sweep)', choice: () => ({ mode: 'none', network: false, isolation: NO_ISOLATION }) },
    { name: 'bwrap', needs: 'bwrap', choice: () => ({ mode: 'bwrap', network: false }) },
  ];

  describe.each(modes)('$name', ({ name, needs: what, choice }) => {
    let sandbox: SandboxChoice;
    beforeEach((c) => {
      if (what) needs(c, what);
      sandbox = choice();
    });

    it('after a normal exit: sleep &, nohup … &, setsid …, (… &)', async () => {
      const m = [marker(), marker(), marker(), marker()];
      const command = `setsid sleep ${m[0]} & nohup sleep ${m[1]} >/dev/null 2>&1 & sleep ${m[2]} & (sleep ${m[3]} &); ${until(...m)}; echo left`;
      expect(await terminal({ command }, ctx(sandbox))).toBe('left\nexit code: 0');
      // In a pid namespace the kernel has killed them before unshare exits, so before the call returns.
      if (name === 'the namespace launcher') expect(m.map((x) => processesWith(x))).toEqual([[], [], [], []]);
      await waitFor('the background processes to be gone', () => gone(...m), 10_000);
    });

    it('after an interrupt, also when they ignore SIGTERM', async () => {
      const m = [marker(), marker(), marker(), marker()];
      const ac = new AbortController();
      const command = `trap "" TERM HUP; setsid sleep ${m[0]} & nohup sleep ${m[1]} >/dev/null 2>&1 & sleep ${m[2]} & sleep ${m[3]}`;
      const running = terminal({ command }, ctx(sandbox, ac.signal));
      await waitFor('the four sleeps', () => m.every((x) => sleepsWith(x).length === 1));
      ac.abort();
      await expect(running).rejects.toThrow();
      await waitFor('every one of them to be gone', () => gone(...m), 10_000);
    });

    it('after a timeout', async () => {
      const m = [marker(), marker()];
      const out = await terminal({ command: `setsid sleep ${m[0]} & ${until(m[0])}; echo started; sleep ${m[1]}`, timeout: 1 }, ctx(sandbox));
      expect(out).toBe('started\ntimed out after 1 s; the command and its child processes were killed');
      await waitFor('both to be gone', () => gone(...m), 10_000);
    });
  });
});
