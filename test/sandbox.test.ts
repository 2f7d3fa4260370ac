// The sandboxed terminal (src/tools/sandbox.ts) without a server: detecting bubblewrap, the worker default and a
// run's choice, the mounts, a tool call refused on a worker without a sandbox, and the handler under bwrap (a
// command that ignores SIGTERM, a private /tmp). Conversations in the sandbox on a real dev server, where the
// classifier's bypasses meet the boundary, and `hermes doctor`: sandbox-worker.test.ts.
import { MockActivityEnvironment } from '@temporalio/testing';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolActivities } from '../src/activities/tools';
import { terminal } from '../src/tools/terminal/handler';
import {
  bwrapArgs,
  bwrapBinary,
  parseSandboxSetting,
  probeBwrap,
  resolveWorkerSandbox,
  sandboxFor,
  SandboxUnavailableError,
  type SandboxChoice,
} from '../src/tools/sandbox';
import { probeIsolation } from '../src/tools/isolation';
import type { ToolCallInput, ToolCallResult } from '../src/shared/wire';
import type { ToolContext } from '../src/tools/handler';
import { processesWith } from './helpers/procs';
import { waitFor } from './helpers/wait';

/** Checked synchronously at load, so the suite can be skipped with the reason in its name. */
function bwrapWorks(): { ok: true } | { ok: false; why: string } {
  const r = spawnSync(bwrapBinary(), [...bwrapArgs({ workspace: os.tmpdir(), network: false }), 'true'], { encoding: 'utf8', timeout: 10_000 });
  if (r.error) return { ok: false, why: `${bwrapBinary()}: ${r.error.message}` };
  return r.status === 0 ? { ok: true } : { ok: false, why: r.stderr.trim() || `exit ${r.status}` };
}
const BWRAP = bwrapWorks();
/** src/tools/terminal/handler.ts: how long after SIGTERM the terminal SIGKILLs what is left of a command. */
const KILL_GRACE_MS = 2_000;
const HANDLER_SUITE = BWRAP.ok
  ? 'the terminal handler in bubblewrap'
  : `the terminal handler in bubblewrap — SKIPPED, bubblewrap does not work here: ${BWRAP.why}`;
if (!BWRAP.ok)
  console.warn(`[sandbox.test] skipping the bubblewrap handler tests: bubblewrap does not work here (${BWRAP.why}); .ci/run installs it`);

describe('sandbox detection and settings', () => {
  it('reports a missing binary, caches the verdict per binary, and asks again when told', async () => {
    const a = await probeBwrap('/nonexistent/bwrap');
    expect(a).toEqual({ ok: false, bwrap: '/nonexistent/bwrap', reason: 'bubblewrap is not installed: /nonexistent/bwrap does not exist' });
    expect(probeBwrap('/nonexistent/bwrap')).toBe(probeBwrap('/nonexistent/bwrap'));
    const onPath = await probeBwrap('no-such-bwrap-on-path');
    expect(onPath.ok === false && onPath.reason).toMatch(/not installed \(no `bwrap` on PATH; .*apt-get install bubblewrap\)/);
    const cached = probeBwrap('/nonexistent/bwrap');
    const fresh = probeBwrap('/nonexistent/bwrap', { fresh: true });
    expect(fresh).not.toBe(cached); // a new probe replaces the cached one…
    expect(probeBwrap('/nonexistent/bwrap')).toBe(fresh); // …and is then cached
  });

  it('reports a bwrap that cannot create its namespaces, with its stderr', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-fake-bwrap-'));
    const fake = path.join(dir, 'bwrap');
    writeFileSync(
      fake,
      '#!/bin/sh\necho "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces" >&2\nexit 1\n',
    );
    chmodSync(fake, 0o755);
    try {
      const p = await probeBwrap(fake);
      expect(p.ok).toBe(false);
      expect(p.ok === false && p.reason).toMatch(/^bubblewrap cannot create its namespaces here .*: bwrap: No permissions to creating new namespace/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(!BWRAP.ok)('finds a working bwrap here', async () => {
    const p = await probeBwrap();
    expect(p).toMatchObject({ ok: true, bwrap: bwrapBinary() });
  });

  it('resolves the worker default: auto falls back with a warning, bwrap refuses, none never probes', async () => {
    const none = '/nonexistent/bwrap';
    await expect(resolveWorkerSandbox({ setting: 'auto', bwrap: none, env: {} })).resolves.toMatchObject({
      setting: 'auto',
      mode: 'none',
      warning: 'terminal runs without a sandbox: bubblewrap is not installed: /nonexistent/bwrap does not exist',
    });
    await expect(resolveWorkerSandbox({ bwrap: none, env: { HERMES_SANDBOX: 'bwrap' } })).rejects.toThrow(
      new SandboxUnavailableError(
        'the worker requires the bubblewrap sandbox (HERMES_SANDBOX=bwrap) but bubblewrap is not installed: /nonexistent/bwrap does not exist',
      ),
    );
    const off = await resolveWorkerSandbox({ bwrap: none, env: { HERMES_SANDBOX: 'none', HERMES_SANDBOX_NETWORK: '1' } });
    // No bwrap probe for `none`; the process isolation outside bwrap is found out all the same (isolation.test.ts).
    expect(off).toEqual({
      setting: 'none',
      mode: 'none',
      network: true,
      bwrap: none,
      isolation: await probeIsolation(),
      ...(off.isolationWarning ? { isolationWarning: off.isolationWarning } : {}),
    });
    expect(await resolveWorkerSandbox({ env: { HERMES_BWRAP_PATH: none } })).toMatchObject({ setting: 'auto', bwrap: none, mode: 'none' });
    if (BWRAP.ok) expect(await resolveWorkerSandbox({ env: {} })).toMatchObject({ setting: 'auto', mode: 'bwrap', network: false });
    expect(() => parseSandboxSetting('docker')).toThrow('HERMES_SANDBOX=docker: expected one of auto, bwrap, none');
    expect(parseSandboxSetting(' BWRAP ')).toBe('bwrap');
    expect(parseSandboxSetting('')).toBeUndefined();
  });

  it("lets a run choose over the worker's default", () => {
    const worker = { setting: 'auto' as const, mode: 'bwrap' as const, network: false, bwrap: '/usr/bin/bwrap' };
    expect(sandboxFor(worker, undefined)).toEqual({ mode: 'bwrap', network: false, bwrap: '/usr/bin/bwrap' });
    expect(sandboxFor(worker, { mode: 'none' })).toMatchObject({ mode: 'none' });
    expect(sandboxFor(worker, { network: true })).toMatchObject({ mode: 'bwrap', network: true });
    expect(sandboxFor({ ...worker, mode: 'none', network: true }, { mode: 'bwrap' })).toMatchObject({ mode: 'bwrap', network: true });
    expect(sandboxFor(undefined, undefined)).toMatchObject({ mode: 'none', network: false });
  });

  it('builds the mounts in an order that keeps a workspace under /tmp visible, and drops the network only when asked', () => {
    const args = bwrapArgs({ workspace: '/tmp/ws', network: false, home: '/root' });
    const at = (flag: string, value: string) => args.findIndex((a, i) => a === flag && args[i + 1] === value);
    expect(at('--tmpfs', '/tmp')).toBeLessThan(at('--bind', '/tmp/ws'));
    expect(at('--ro-bind', '/')).toBe(0);
    for (const f of ['--unshare-net', '--unshare-pid', '--die-with-parent', '--cap-drop']) expect(args).toContain(f);
    expect(args).not.toContain('--new-session'); // would take the command out of the process group the terminal kills
    expect(bwrapArgs({ workspace: '/w', network: true })).not.toContain('--unshare-net');
    // A HOME the private /tmp would hide stays visible, read-only; one inside the workspace is already writable.
    expect(bwrapArgs({ workspace: '/w', network: false, home: '/tmp/home' }).join(' ')).toContain('--ro-bind-try /tmp/home /tmp/home');
    expect(bwrapArgs({ workspace: '/tmp/home', network: false, home: '/tmp/home/me' }).join(' ')).not.toContain('--ro-bind-try /tmp/home/me');
  });

  it('a tool call that asks for the sandbox on a worker without one is not run (the start check may have been elsewhere)', async () => {
    const ws = mkdtempSync(path.join(os.tmpdir(), 'hermes-ws-'));
    const acts = createToolActivities({
      workspace: ws,
      sandbox: { setting: 'auto', mode: 'none', network: false, bwrap: '/nonexistent/bwrap' },
    });
    const env = new MockActivityEnvironment();
    const input = { callId: 'c1', name: 'terminal', args: { command: 'touch ran' }, outputLimit: 10_000, terminalTimeoutSec: 30 };
    const runTool = (i: ToolCallInput) => env.run(acts.runTool, i) as Promise<ToolCallResult>;
    const refused = await runTool({ ...input, sandbox: { mode: 'bwrap' } });
    expect(refused.ok).toBe(false);
    expect(refused.content).toMatch(
      /not run: this conversation runs commands in the bubblewrap sandbox and this worker has none: bubblewrap is not installed/,
    );
    expect(existsSync(path.join(ws, 'ran'))).toBe(false);
    expect(await acts.checkSandbox()).toMatch(
      /^the run asks for the bubblewrap sandbox and this worker cannot provide it: bubblewrap is not installed/,
    );
    // Without a choice the worker's default (none) applies.
    expect((await runTool(input)).ok).toBe(true);
    expect(existsSync(path.join(ws, 'ran'))).toBe(true);
    rmSync(ws, { recursive: true, force: true });
  });
});

describe.skipIf(!BWRAP.ok)(HANDLER_SUITE, () => {
  let ws: string;
  const processDir = path.join(os.tmpdir(), `hermes-test-procs-sandbox-${process.pid}`);
  const ctx = (signal: AbortSignal, sandbox: SandboxChoice = { mode: 'bwrap', network: false }): ToolContext => ({
    workspace: ws,
    signal,
    heartbeat: () => undefined,
    terminalTimeoutSec: 30,
    callId: 'c',
    processDir,
    sandbox,
  });
  beforeAll(() => {
    ws = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hermes-ws-')));
  });
  afterAll(() => rmSync(ws, { recursive: true, force: true }));

  it('kills a command that ignores SIGTERM at once, and background processes end with the command', async () => {
    const marker = `61.${process.pid}${Date.now() % 1000}`;
    const ac = new AbortController();
    const running = terminal({ command: `trap "" TERM; sleep ${marker} & sleep ${marker}` }, ctx(ac.signal));
    await waitFor(
      'the sleeps',
      () => processesWith(marker).filter((p) => readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').startsWith('sleep')).length === 2,
    );
    ac.abort();
    await expect(running).rejects.toThrow();
    // Dead before the terminal's SIGKILL grace could have killed them: the namespace dies with bwrap.
    await waitFor('the sandbox to die', () => processesWith(marker).length === 0, KILL_GRACE_MS);
    // A process left in the background dies when the command ends (bwrap is the namespace's init).
    const bg = `62.${process.pid}${Date.now() % 1000}`;
    expect(await terminal({ command: `(sleep ${bg} &) ; echo left` }, ctx(new AbortController().signal))).toBe('left\nexit code: 0');
    await waitFor('the background sleep to end with the sandbox', () => processesWith(bg).length === 0, 2_000);
  });

  it('has a private /tmp (TMPDIR points there) and its own process table', async () => {
    writeFileSync(path.join(os.tmpdir(), `hermes-host-only-${process.pid}`), 'x');
    try {
      const out = await terminal(
        { command: `echo $TMPDIR; ls /tmp | grep -c hermes-host-only-${process.pid}; mktemp >/dev/null && echo mktemp-ok; ps -e -o pid= | wc -l` },
        ctx(new AbortController().signal),
      );
      expect(out).toMatch(/^\/tmp\n0\nmktemp-ok\n[1-5]\nexit code: 0$/);
    } finally {
      rmSync(path.join(os.tmpdir(), `hermes-host-only-${process.pid}`), { force: true });
    }
  });
});
