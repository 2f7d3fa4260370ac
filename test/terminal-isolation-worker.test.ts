// Terminal commands outside bubblewrap (src/tools/isolation.ts) on real workers:
//  - they cannot read the worker's environment (a variable planted in a real worker process), and without
//    isolation they could (the same probe finds it: the check can fail); under the launcher what they leave
//    running dies with a SIGKILLed worker;
//  - a running command's heartbeat details, as a client sees them (describe → pending activities).
// Without a server (what a command leaves running ends with the call): terminal-isolation.test.ts.
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { Hermes } from '../src/client';
import { answer, createHarness, toolCall, toolResult, type Harness } from './helpers/harness';
import { machineIsolation } from './helpers/isolation-probe';
import { MockModel, type Reply } from './helpers/mock-model';
import { sleepsWith } from './helpers/procs';
import { waitFor } from './helpers/wait';
import { cleanupsAfterEach, startWorkerProcess, workerEnv } from './helpers/worker-process';

const cleanups = cleanupsAfterEach();
const machine = machineIsolation(cleanups);
const { needs, marker, gone } = machine;

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
        ...(machine.bwrap.ok ? [toolCall('terminal', { command: snoop }, 'bwrap'), answer('done')] : []),
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

    if (machine.bwrap.ok) {
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
    // The model's reply waits until its call's heartbeat was seen: no window for a loaded machine to miss.
    let release!: () => void;
    const seen = new Promise<void>((r) => (release = r));
    h = await createHarness([async () => (await seen, { toolCalls: [{ id: 't', name: 'terminal', arguments: { command } }] })]);
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
        release();
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
      sandbox: machine.iso.kind,
    });
    expect((tool.command as string).length).toBe(200);
    expect(JSON.stringify(tool)).not.toContain(secret);
    expect(tool.elapsedSec).toBeGreaterThanOrEqual(1);
  });
});
