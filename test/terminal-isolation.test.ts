// Terminal commands outside bubblewrap (src/tools/isolation.ts), with real processes:
//  - they cannot read the worker's environment (a variable planted in a real worker process), and without
//    isolation they could (the same probe finds it: the check can fail);
//  - what they leave running (`sleep &`, `nohup … &`, `setsid …`) ends with the call — after a normal exit, an
//    interrupt and a timeout — under the namespace launcher, under bwrap, and (by the token sweep) without
//    either; under the launcher it also dies with a SIGKILLed worker;
//  - a running command's heartbeat details, as a client sees them (describe → pending activities).
// Processes are found on the host by a marker in their command line (`sleep 300.<unique>`). Timeouts here are
// safety nets: what is checked is the order (dead before or after the call returns) and the outcome.
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { chmodSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { Hermes } from '../src/client';
import { terminal } from '../src/tools/terminal/handler';
import { isolationWarning, probeIsolation, type Isolation } from '../src/tools/isolation';
import { probeBwrap, type BwrapProbe, type SandboxChoice } from '../src/tools/sandbox';
import type { ToolContext } from '../src/tools/handler';
import { answer, createHarness, toolCall, toolResult, type Harness } from './helpers/harness';
import { MockModel, type Reply } from './helpers/mock-model';
import { processesWith, sleepMarker, sleepsWith } from './helpers/procs';
import { waitFor } from './helpers/wait';
import { cleanupsAfterEach, startWorkerProcess, workerEnv } from './helpers/worker-process';

// What this machine offers, found out by the code under test; cases that need what is missing are skipped,
// saying why (bubblewrap: `apt-get install bubblewrap`; the launcher: util-linux and user namespaces, or root).
let ISO: Isolation = { kind: 'none', reason: 'not probed yet' };
let BWRAP: BwrapProbe = { ok: false, bwrap: 'bwrap', reason: 'not probed yet' };
beforeAll(async () => {
  [ISO, BWRAP] = await Promise.all([probeIsolation(), probeBwrap()]);
});
const needs = (ctx: { skip: (condition: boolean, note?: string) => void }, what: 'namespace' | 'bwrap') => {
  if (what === 'namespace') ctx.skip(ISO.kind !== 'namespace', `no pid namespace here: ${ISO.kind === 'none' ? ISO.reason : ''}`);
  else ctx.skip(!BWRAP.ok, `bubblewrap does not work here: ${BWRAP.ok ? '' : BWRAP.reason}`);
};
const NO_ISOLATION: Isolation = { kind: 'none', reason: 'forced by the test' };

const cleanups = cleanupsAfterEach();
/** A marker whose processes a failed test does not leave behind. */
function marker(): string {
  const m = sleepMarker();
  cleanups.push(() => {
    for (const p of processesWith(m)) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  });
  return m;
}
const gone = (...markers: string[]) => markers.every((m) => processesWith(m).length === 0);
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
    if (ISO.kind === 'namespace') {
      expect(ISO.description).toMatch(/pid and mount namespaces/);
      expect(isolationWarning(ISO, false)).toBeUndefined();
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
    { name: 'the namespace launcher', needs: 'namespace', choice: () => ({ mode: 'none', network: false, isolation: ISO }) },
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

/** A mock model, a client and a task queue, and a `hermes worker` process for them (started, not awaited). */
async function workerProcess(script: Reply[], extraEnv: Record<string, string>) {
  const mock = await MockModel.start(script);
  cleanups.push(() => mock.close());
  const address = inject('temporalAddress');
  const connection = await Connection.connect({ address });
  cleanups.push(() => connection.close());
  const taskQueue = `iso-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const hermes = await Hermes.connect({ client: new Client({ connection }), taskQueue });
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'hermes-iso-'));
  cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
  const processDir = mkdtempSync(path.join(os.tmpdir(), 'hermes-iso-procs-'));
  cleanups.push(() => rmSync(processDir, { recursive: true, force: true }));
  const worker = startWorkerProcess(
    workerEnv({ address, taskQueue, baseURL: mock.baseURL, workspace }, { HERMES_PROCESS_DIR: processDir, HERMES_SANDBOX: 'none', ...extraEnv }),
    workspace,
  );
  return { mock, hermes, workspace, worker };
}

describe("the worker's environment (worker processes)", () => {
  const planted = `planted-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  const credential = `credential-${Math.random().toString(36).slice(2, 14)}`;
  // The worker's environ through its pid ($PPID, when bash is the worker's child), then every readable environ.
  const snoop =
    `echo "ppid: $(tr '\\0' '\\n' 2>/dev/null < /proc/$PPID/environ | grep -c HERMES_PROBE_)"; ` +
    `tr '\\0' '\\n' 2>/dev/null < /proc/$PPID/environ | grep HERMES_PROBE_PLANTED; ` +
    `echo "scan: $(for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' 2>/dev/null < "$f"; done | grep -c '${planted}')"`;
  const env = { HERMES_PROBE_PLANTED: planted, HERMES_PROBE_CREDENTIAL: credential };

  it('a command outside bwrap cannot read it (without isolation it could); under the launcher it dies with a SIGKILLed worker', async (c) => {
    needs(c, 'namespace');
    const m = [marker(), marker(), marker()];
    const slow = `setsid sleep ${m[0]} & nohup sleep ${m[1]} >/dev/null 2>&1 & sleep ${m[2]}`;
    const isolated = await workerProcess(
      [
        toolCall('terminal', { command: snoop }, 'none'),
        answer('done'),
        ...(BWRAP.ok ? [toolCall('terminal', { command: snoop }, 'bwrap'), answer('done')] : []),
        toolCall('terminal', { command: slow }, 'slow'),
      ],
      env,
    );
    // The control: the same probe on a worker without isolation finds the planted variable.
    const exposed = await workerProcess([toolCall('terminal', { command: snoop }, 'none'), answer('done')], {
      ...env,
      HERMES_UNSHARE_PATH: '/nonexistent/unshare',
    });
    await Promise.all([isolated.worker.ready, exposed.worker.ready]);
    expect(exposed.worker.output()).toMatch(/terminal commands run without any process isolation: they run as .*\/nonexistent\/unshare is not/);
    expect(isolated.worker.output()).not.toMatch(/without any process isolation/);

    const [inNs, onHost] = await Promise.all(
      [isolated, exposed].map(async (w) => {
        await (await w.hermes.start({ prompt: 'snoop', workspace: w.workspace })).result();
        return toolResult(w.mock.requests[1]!.messages, 'none')!;
      }),
    );
    expect(onHost).toMatch(/^ppid: 2\nHERMES_PROBE_PLANTED=planted-[\s\S]*scan: [1-9]\d*\nexit code: 0$/);
    expect(inNs).toBe('ppid: 0\nscan: 0\nexit code: 0');
    expect(inNs).not.toContain('[REDACTED'); // nothing read and then hidden by the redactor

    if (BWRAP.ok) {
      await (await isolated.hermes.start({ prompt: 'snoop in bwrap', workspace: isolated.workspace, sandbox: 'bwrap' })).result();
      expect(toolResult(isolated.mock.requests[3]!.messages, 'bwrap')).toBe('ppid: 0\nscan: 0\nexit code: 0');
    }

    // setpriv --pdeathsig: the launcher dies with the worker, and the namespace with it.
    await isolated.hermes.start({ prompt: 'sleep', workspace: isolated.workspace });
    await waitFor('the three sleeps', () => m.every((x) => sleepsWith(x).length === 1), 30_000);
    isolated.worker.child.kill('SIGKILL');
    await isolated.worker.exited;
    await waitFor('the sleeps to die with the worker', () => gone(...m), 10_000);
  }, 90_000);
});

describe('heartbeat details', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('a running command shows its command, elapsed time, output so far and last line (redacted, cut); a model call its step', async () => {
    const secret = 'hermes-probe-secret-4f1c2a9b';
    const sleeping = marker();
    // The secret is printed whole but appears in the command only in two halves (else the model activity's
    // redaction of tool-call arguments would already have replaced it).
    const command = `printf 'first line\\n'; printf '%s%s\\n' hermes-probe- secret-4f1c2a9b; sleep ${sleeping} # ${'x'.repeat(300)}`;
    h = await createHarness([{ toolCalls: [{ id: 't', name: 'terminal', arguments: { command } }], delayMs: 1_500 }]);
    const harness = h;
    const pending = async (type: string) => {
      const d = await harness.client.workflow.getHandle(id).describe();
      const p = d.raw.pendingActivities?.find((a) => a.activityType?.name === type);
      const payload = p?.heartbeatDetails?.payloads?.[0];
      return payload ? defaultPayloadConverter.fromPayload<Record<string, unknown>>(payload) : undefined;
    };
    let id = '';
    const { model, tool } = await h.run(
      async () => {
        const handle = await harness.hermes.start({ prompt: 'go' });
        id = handle.id;
        const model = await waitFor('the model call to heartbeat', () => pending('callModel'));
        const tool = await waitFor('a heartbeat a second into the command', async () => {
          const d = await pending('runTool');
          return d && (d.elapsedSec as number) >= 1 && d;
        });
        await handle.interrupt({ reason: 'seen enough' });
        await waitFor('the command to die', () => gone(sleeping), 10_000);
        return { model, tool };
      },
      { sandbox: 'none', redact: { values: [secret] } },
    );
    expect(Object.keys(model).sort()).toEqual(['attempt', 'elapsedSec', 'failures', 'model', 'step']);
    expect(model.failures).toEqual([]);
    expect(model).toMatchObject({ step: expect.any(Number), model: 'default: mock-model', attempt: 1 });
    expect(tool).toMatchObject({
      command: expect.stringMatching(/^printf 'first line\\n'; printf '%s%s\\n' hermes-probe- secret-4f1c2a9b; sleep [\d.]+ # x+…$/),
      outputBytes: 'first line\n'.length + `${secret}\n`.length,
      lastLine: expect.stringMatching(/^\[REDACTED/),
      sandbox: ISO.kind,
    });
    expect((tool.command as string).length).toBe(200);
    expect(JSON.stringify(tool)).not.toContain(secret);
    expect(tool.elapsedSec).toBeGreaterThanOrEqual(1);
  });
});
