// The sandboxed terminal (src/tools/sandbox.ts): the classifier is a guard rail, bubblewrap is the boundary.
// Real dev server, scripted model, workers in-process. Commands the classifier lets through (or that need an
// approval, given here with approvalMode 'allow') really run, aimed at a decoy directory outside the workspace:
// the decoy must survive. The sandbox tests need a working bwrap; without one they are skipped, saying why.
import { MockActivityEnvironment } from '@temporalio/testing';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
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
import type { ConversationInput } from '../src/shared/contract';
import type { ToolCallInput, ToolCallResult } from '../src/shared/wire';
import type { ToolContext } from '../src/tools/handler';
import { spawnHermes } from './helpers/spawn-hermes';
import { answer, createHarness, toolCall, toolResult, type Harness } from './helpers/harness';
import { processesWith } from './helpers/procs';
import { waitFor } from './helpers/wait';

/** Checked synchronously at load, so the suite can be skipped with the reason in its name. */
function bwrapWorks(): { ok: true } | { ok: false; why: string } {
  const r = spawnSync(bwrapBinary(), [...bwrapArgs({ workspace: os.tmpdir(), network: false }), 'true'], { encoding: 'utf8', timeout: 10_000 });
  if (r.error) return { ok: false, why: `${bwrapBinary()}: ${r.error.message}` };
  return r.status === 0 ? { ok: true } : { ok: false, why: r.stderr.trim() || `exit ${r.status}` };
}
const BWRAP = bwrapWorks();
const SANDBOX_SUITE = BWRAP.ok ? 'sandboxed terminal (bubblewrap)' : `sandboxed terminal — SKIPPED, bubblewrap does not work here: ${BWRAP.why}`;
if (!BWRAP.ok) console.warn(`[sandbox.test] skipping the sandbox tests: bubblewrap does not work here (${BWRAP.why}); .ci/run installs it`);

/** Outside the workspace and outside /tmp (which the sandbox replaces with a private one, so it would prove nothing). */
function decoyParent(): string {
  for (const d of ['/var/tmp', os.homedir()]) {
    try {
      const probe = mkdtempSync(path.join(d, 'hermes-decoy-probe-'));
      rmSync(probe, { recursive: true });
      return d;
    } catch {
      // not writable: next
    }
  }
  throw new Error('no writable directory outside /tmp for the decoy');
}

const decoys: string[] = [];
function makeDecoy(): string {
  const d = mkdtempSync(path.join(decoyParent(), 'hermes-decoy-'));
  mkdirSync(path.join(d, 'sub'));
  writeFileSync(path.join(d, 'keep.txt'), 'precious\n');
  writeFileSync(path.join(d, 'sub', 'deep.txt'), 'also precious\n');
  decoys.push(d);
  return d;
}
const decoyIntact = (d: string) =>
  existsSync(path.join(d, 'keep.txt')) && existsSync(path.join(d, 'sub', 'deep.txt')) && readdirSync(d).sort().join(',') === 'keep.txt,sub';

afterAll(() => {
  for (const d of decoys) rmSync(d, { recursive: true, force: true });
});

let h: Harness | undefined;

/**
 * Starts a conversation with the workflow input as given (sandbox, network, approvalMode) straight through the
 * Temporal client, the way the stock CLI or a Schedule would.
 */
async function start(input: Pick<ConversationInput, 'sandbox' | 'network' | 'approvalMode'> & { prompt?: string }) {
  const id = `sandbox-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  await h!.client.workflow.start('conversationWorkflow', { workflowId: id, taskQueue: h!.taskQueue, args: [{ prompt: 'go', ...input }] });
  return h!.hermes.get(id);
}
const runToEnd = (input: Parameters<typeof start>[0]) => start(input).then((c) => c.result());
afterEach(async () => {
  await h?.close();
  h = undefined;
});

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

describe('a run that asks for the sandbox on a worker without one', () => {
  it('fails as SandboxUnavailable with the reason, before any model call', async () => {
    h = await createHarness([answer('must not be asked')]);
    const result = await h.run(
      async () => {
        const handle = await start({ prompt: 'run ls', sandbox: 'bwrap' });
        return handle.result();
      },
      { bwrapPath: '/nonexistent/bwrap' }, // auto: falls back to none for runs that do not ask
    );
    expect(result).toMatchObject({ status: 'failed', reason: 'SandboxUnavailable' });
    expect(result.error).toBe(
      'the run asks for the bubblewrap sandbox and this worker cannot provide it: bubblewrap is not installed: /nonexistent/bwrap does not exist',
    );
    expect(h.mock.requests).toHaveLength(0);
  });

  it('a worker that requires the sandbox refuses to start without it', async () => {
    h = await createHarness([]);
    await expect(h.newWorker({ sandbox: 'bwrap', bwrapPath: '/nonexistent/bwrap' })).rejects.toThrow(
      "the worker requires the bubblewrap sandbox (sandbox: 'bwrap') but bubblewrap is not installed: /nonexistent/bwrap does not exist",
    );
  });
});

describe('hermes doctor', () => {
  it('reports bubblewrap, the sandbox, the model endpoint without its key, and the workspace; exit 0', async () => {
    const key = 'sk-doctor-must-never-print-this-0123456789';
    const r = await spawnHermes(['doctor'], {
      env: {
        OPENAI_API_KEY: key,
        OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
        HERMES_MODEL: 'tiny',
        HERMES_WORKSPACE: os.tmpdir(),
        HERMES_BWRAP_PATH: process.env.HERMES_BWRAP_PATH, // the same bwrap as this suite's check
      },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`node +${process.version.replace(/\./g, '\\.')}`));
    expect(r.stdout).toMatch(/temporal CLI +\S+/);
    expect(r.stdout).toContain('model            profile "default": tiny at http://127.0.0.1:9/v1 (key variable OPENAI_API_KEY: set)');
    expect(r.stdout).toContain(`workspace        ${os.tmpdir()} (HERMES_WORKSPACE)`);
    expect(r.stdout).toMatch(/workspace roots +/);
    expect(r.stdout + r.stderr).not.toContain(key);
    if (BWRAP.ok) {
      expect(r.stdout).toMatch(/bubblewrap +works: \S+bwrap/);
      expect(r.stdout).toContain(
        'sandbox          terminal runs in the bubblewrap sandbox (HERMES_SANDBOX unset: auto; network off unless a run allows it)',
      );
    } else {
      expect(r.stdout).toMatch(/sandbox +terminal runs without a sandbox: /);
    }
    // Outside bwrap: the namespace launcher, or a warning of what commands can read (isolation.ts).
    const iso = await probeIsolation();
    expect(r.stdout).toMatch(
      iso.kind === 'namespace'
        ? /\n {3}isolation +(runs that opt out of the sandbox run commands|commands run) in their own .*pid and mount namespaces.*: they cannot read the worker's environment/
        : /\n! {2}isolation +terminal commands .*run without any process isolation/,
    );
  });

  it('exits 1 with the reason when HERMES_SANDBOX=bwrap and bubblewrap does not work; auto only warns', async () => {
    const env = { HERMES_SANDBOX: 'bwrap', HERMES_BWRAP_PATH: '/nonexistent/bwrap' };
    const r = await spawnHermes(['doctor'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('!  bubblewrap       does not work: bubblewrap is not installed: /nonexistent/bwrap does not exist');
    expect(r.stdout).toContain(
      '!! sandbox          a worker would refuse to start: the worker requires the bubblewrap sandbox (HERMES_SANDBOX=bwrap) but bubblewrap is not installed',
    );
    const auto = await spawnHermes(['doctor', '--json'], { env: { ...env, HERMES_SANDBOX: 'auto', HERMES_UNSHARE_PATH: '/nonexistent/unshare' } });
    expect(auto.code).toBe(0); // no isolation is loud, not fatal
    const checks = (JSON.parse(auto.stdout) as { checks: Array<{ name: string; ok: boolean; text: string }> }).checks;
    expect(checks.find((c) => c.name === 'sandbox')?.text).toBe(
      'terminal runs without a sandbox: bubblewrap is not installed: /nonexistent/bwrap does not exist (HERMES_SANDBOX=auto)',
    );
    const isolation = checks.find((c) => c.name === 'isolation');
    expect(isolation?.ok).toBe(false);
    expect(isolation?.text).toMatch(
      /^terminal commands run without any process isolation: .*can read the worker's whole environment .*No pid namespace here: \/nonexistent\/unshare is not an executable file/,
    );
  });
});

describe.skipIf(!BWRAP.ok)(SANDBOX_SUITE, () => {
  it('the workspace is writable, the rest is not: direct writes, /tmp/.. and cd .. all fail to reach outside', async () => {
    const decoy = makeDecoy();
    h = await createHarness([
      {
        toolCalls: [
          { id: 'in', name: 'terminal', arguments: { command: 'echo inside > inside.txt && cat inside.txt' } },
          { id: 'direct', name: 'terminal', arguments: { command: `echo x > ${decoy}/f` } },
          { id: 'dotdot', name: 'terminal', arguments: { command: `echo x > /tmp/..${decoy}/f` } },
          { id: 'cdup', name: 'terminal', arguments: { command: `cd .. && touch escaped-${path.basename(decoy)} && ls` } },
          { id: 'home', name: 'terminal', arguments: { command: `touch ${os.homedir()}/hermes-sandbox-${path.basename(decoy)}` } },
          { id: 'etc', name: 'terminal', arguments: { command: 'echo "127.0.0.1 evil" >> /etc/hosts' } },
        ],
      },
      answer('done'),
    ]);
    // approvalMode allow: the sandbox, not the approval rules, is what is tested.
    const result = await h.run(() => runToEnd({ sandbox: 'bwrap', approvalMode: 'allow' }), { sandbox: 'bwrap' });
    expect(result.status).toBe('completed');
    const msgs = h.mock.requests[1]!.messages;
    expect(toolResult(msgs, 'in')).toBe('inside\nexit code: 0');
    expect(readFileSync(path.join(h.workspace, 'inside.txt'), 'utf8')).toBe('inside\n');
    for (const id of ['direct', 'dotdot', 'home', 'etc']) expect(toolResult(msgs, id)).toMatch(/Read-only file system[\s\S]*exit code: 1$/);
    // The parent of the workspace (/tmp here) is the sandbox's private tmpfs: the file never reaches the host.
    expect(toolResult(msgs, 'cdup')).toMatch(/exit code: 0$/);
    expect(existsSync(path.join(path.dirname(h.workspace), `escaped-${path.basename(decoy)}`))).toBe(false);
    expect(existsSync(path.join(os.homedir(), `hermes-sandbox-${path.basename(decoy)}`))).toBe(false);
    expect(existsSync(path.join(decoy, 'f'))).toBe(false);
    expect(readFileSync('/etc/hosts', 'utf8')).not.toContain('127.0.0.1 evil');
    expect(decoyIntact(decoy)).toBe(true);
  });

  it('the classifier bypasses run (approvalMode allow) and cannot touch a decoy outside the workspace', async () => {
    const decoy = makeDecoy();
    const hasBusybox = spawnSync('sh', ['-c', 'command -v busybox']).status === 0;
    const b64 = Buffer.from(`rm -rf ${decoy}`).toString('base64');
    const bypasses: Record<string, string> = {
      var: `X=rm; $X -rf ${decoy}`,
      subst: `$(echo rm) -rf ${decoy}`,
      // Without busybox installed, a stand-in that runs its arguments, as busybox runs its applets.
      busybox: `${hasBusybox ? 'busybox' : 'printf "#!/bin/sh\\nexec \\"\\$@\\"\\n" > busybox && chmod +x busybox && ./busybox'} rm -rf ${decoy}`,
      perl: `perl -e 'system("rm -rf ${decoy}")'`,
      base64: `echo ${b64} | base64 -d | sh`,
      python: `python3 -c "import shutil; shutil.rmtree('${decoy}')"`,
      // Root inside the sandbox has no capabilities: it cannot make / writable again.
      remount: `mount -o remount,rw / && rm -rf ${decoy}`,
      // Nor can it see (or signal) the host's processes.
      kill: `kill -9 ${process.pid}; ps -e -o pid= | wc -l`,
    };
    h = await createHarness([
      { toolCalls: Object.entries(bypasses).map(([id, command]) => ({ id, name: 'terminal', arguments: { command } })) },
      answer('done'),
    ]);
    const result = await h.run(() => runToEnd({ sandbox: 'bwrap', approvalMode: 'allow' }), {
      sandbox: 'bwrap',
    });
    expect(result.status).toBe('completed');
    const msgs = h.mock.requests[1]!.messages;
    for (const id of ['var', 'subst', 'busybox', 'perl', 'base64', 'python']) {
      expect(toolResult(msgs, id), id).toMatch(/Read-only file system/);
    }
    expect(toolResult(msgs, 'remount')).toMatch(/mount: .*permission denied[\s\S]*exit code: 32$/);
    expect(toolResult(msgs, 'kill')).toMatch(/No such process[\s\S]*exit code: 0$/);
    expect(decoyIntact(decoy)).toBe(true);
  });

  it("a run's sandbox: 'none' runs on the host even on a bwrap worker (the same bypass does delete its decoy)", async () => {
    const decoy = makeDecoy();
    h = await createHarness([toolCall('terminal', { command: `X=rm; $X -rf ${decoy}` }, 'var'), answer('done')]);
    const result = await h.run(() => runToEnd({ sandbox: 'none', approvalMode: 'allow' }), { sandbox: 'bwrap' });
    expect(result.status).toBe('completed');
    expect(toolResult(h.mock.requests[1]!.messages, 'var')).toBe('(no output)\nexit code: 0');
    expect(existsSync(decoy)).toBe(false);
  });

  describe('network', () => {
    let server: http.Server;
    let url: string;
    beforeAll(async () => {
      server = http.createServer((_req, res) => res.end('hello-from-the-test-server\n'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const fetchCommand = () =>
      spawnSync('sh', ['-c', 'command -v curl']).status === 0
        ? `curl -sS -m 5 ${url}`
        : `exec 3<>/dev/tcp/127.0.0.1/${new URL(url).port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`;

    async function fetchIn(run: { network?: boolean }, worker: { sandboxNetwork?: boolean } = {}) {
      h = await createHarness([toolCall('terminal', { command: fetchCommand() }, 'net'), answer('done')]);
      const result = await h.run(() => runToEnd({ sandbox: 'bwrap', ...run }), {
        sandbox: 'bwrap',
        ...worker,
      });
      expect(result.status).toBe('completed');
      const out = toolResult(h.mock.requests[1]!.messages, 'net')!;
      await h.close();
      h = undefined;
      return out;
    }

    it('a sandboxed command cannot reach a server on the host without network allowed', async () => {
      const out = await fetchIn({});
      expect(out).not.toContain('hello-from-the-test-server');
      expect(out).toMatch(/(Couldn't connect|Connection refused|Network is unreachable)[\s\S]*exit code: [1-9]\d*$/);
      // The worker's default does not override the run's explicit "no".
      expect(await fetchIn({ network: false }, { sandboxNetwork: true })).not.toContain('hello-from-the-test-server');
    });

    it('reaches it with network: true (or a worker that allows network by default)', async () => {
      expect(await fetchIn({ network: true })).toMatch(/hello-from-the-test-server\n[\s\S]*exit code: 0$/);
      expect(await fetchIn({}, { sandboxNetwork: true })).toMatch(/hello-from-the-test-server/);
    });
  });

  it('an interrupt kills a sandboxed sleep 60 (bwrap leads the process group) within 2 s', async () => {
    const marker = `60.${process.pid}${Date.now() % 1000}`;
    h = await createHarness([toolCall('terminal', { command: `echo started > started.txt; sleep ${marker}; echo late > late.txt` }, 'slow')]);
    const result = await h.run(
      async () => {
        const handle = await start({ sandbox: 'bwrap' });
        await waitFor('the command to start', () => existsSync(path.join(h!.workspace, 'started.txt')));
        const procs = await waitFor('the sleep to run', () => {
          const p = processesWith(marker);
          return p.some((x) => readFileSync(`/proc/${x.pid}/cmdline`, 'utf8').startsWith('sleep\0')) ? p : undefined;
        });
        // bwrap (outside and as the namespace's init), bash and sleep: one process group, led by the outer bwrap.
        expect(procs.length).toBeGreaterThanOrEqual(4);
        const leader = procs.find((p) => p.pid === p.pgrp);
        expect(leader && readFileSync(`/proc/${leader.pid}/cmdline`, 'utf8').split('\0')[0]).toMatch(/bwrap$/);
        expect(new Set(procs.map((p) => p.pgrp)).size).toBe(1);
        const t0 = Date.now();
        await handle.interrupt({ reason: 'stop the sandboxed sleep' });
        await waitFor('the sandboxed processes to die', () => processesWith(marker).length === 0, 5_000);
        expect(Date.now() - t0).toBeLessThan(2_000);
        return handle.result();
      },
      { sandbox: 'bwrap' },
    );
    expect(result).toMatchObject({ status: 'interrupted', reason: 'stop the sandboxed sleep' });
    expect(existsSync(path.join(h.workspace, 'late.txt'))).toBe(false);
  });

  describe('the handler', () => {
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
      const t0 = Date.now();
      ac.abort();
      await expect(running).rejects.toThrow();
      await waitFor('the sandbox to die', () => processesWith(marker).length === 0, 5_000);
      expect(Date.now() - t0).toBeLessThan(1_000); // no 2 s SIGKILL grace needed: the namespace dies with bwrap
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
});
