// Graceful shutdown, proved with real `hermes worker` processes: SIGTERM during a long terminal command. The worker
// turns unready at once (its /readyz answers 503: the Worker is draining), stops polling, gives the running tool its
// grace period (--grace), then stops it and exits; the conversation goes on on the other worker without
// repeating the steps that had completed. Compare test/crash.test.ts (SIGKILL: nothing can be cleaned up).
import { Client, Connection } from '@temporalio/client';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { Hermes } from '../src/client';
import { answer, toolResult } from './helpers/harness';
import { MockModel, type Reply } from './helpers/mock-model';
import { cleanupsAfterEach, startWorkerProcess, workerEnv, type WorkerProcess } from './helpers/worker-process';
import { alive, waitFor } from './helpers/wait';
import { HERMES_BIN } from './helpers/spawn-hermes';

let counter = 0;
const cleanups = cleanupsAfterEach();

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

async function probe(port: number, route: string): Promise<{ status: number; body: Record<string, unknown> } | 'refused'> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}${route}`, { signal: AbortSignal.timeout(3_000) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  } catch {
    return 'refused';
  }
}

async function setup(script: Reply[]) {
  const mock = await MockModel.start(script);
  cleanups.push(() => mock.close());
  const address = inject('temporalAddress');
  const connection = await Connection.connect({ address });
  cleanups.push(() => connection.close());
  const client = new Client({ connection });
  const taskQueue = `shutdown-${process.pid}-${++counter}-${Date.now().toString(36)}`;
  const hermes = await Hermes.connect({ client, taskQueue });
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'hermes-shutdown-'));
  cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
  const processDir = mkdtempSync(path.join(os.tmpdir(), 'hermes-shutdown-procs-'));
  cleanups.push(() => rmSync(processDir, { recursive: true, force: true }));
  const env = workerEnv(
    { address, taskQueue, baseURL: mock.baseURL, workspace },
    // Host pids ($$) for the check that the command was stopped.
    { HERMES_PROCESS_DIR: processDir, HERMES_SANDBOX: 'none', HERMES_UNSHARE_PATH: '/nonexistent/unshare' },
  );
  const worker = (args: string[] = []): WorkerProcess => startWorkerProcess(env, workspace, 30_000, HERMES_BIN, args);
  return { mock, hermes, workspace, worker };
}

const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

describe('graceful shutdown (SIGTERM to hermes worker)', () => {
  it('turns unready, stops the running tool after its grace period, exits; the other worker finishes without repeating steps', async () => {
    const GRACE_SEC = 3;
    const SLEEP_SEC = 40; // far beyond a take-over on a loaded machine: nothing waits for it to end
    const slow = `echo $$ > pid.txt; echo start >> side.txt; sleep ${SLEEP_SEC}; echo end >> side.txt`;
    const { mock, hermes, workspace, worker } = await setup([
      { toolCalls: [{ id: 'c1', name: 'terminal', arguments: { command: 'echo one >> side.txt' } }] },
      { toolCalls: [{ id: 'c2', name: 'terminal', arguments: { command: slow } }] },
      answer('finished on the other worker'),
    ]);
    const read = (f: string) => (existsSync(path.join(workspace, f)) ? readFileSync(path.join(workspace, f), 'utf8') : '');
    const healthPort = await freePort();

    const first = worker(['--grace', String(GRACE_SEC), '--health-port', String(healthPort)]);
    await first.ready;
    // Said right after the start line.
    await waitFor('the health line', () => new RegExp(`health on http://127\\.0\\.0\\.1:${healthPort}/healthz`).test(first.output()));
    expect(await probe(healthPort, '/healthz')).toMatchObject({ status: 200, body: { status: 'ok', pid: first.pid } });
    const ready = await waitFor('the first worker to be ready', async () => {
      const r = await probe(healthPort, '/readyz');
      return r !== 'refused' && r.status === 200 && r;
    });
    expect(ready.body).toMatchObject({ ready: true });
    expect(Object.values(ready.body.workers as Record<string, string>)).toEqual(['RUNNING']);

    const handle = await hermes.start({ prompt: 'do the two steps', workspace });
    await waitFor('the slow tool to start', () => /^start$/m.test(read('side.txt')));
    const tStart = Date.now();
    const toolPid = Number(read('pid.txt').trim());
    expect(toolPid).toBeGreaterThan(0);
    cleanups.push(() => {
      try {
        process.kill(-toolPid, 'SIGKILL');
      } catch {
        // gone
      }
    });
    // The other worker polls before the first one stops: the take-over is not waiting for a start-up.
    const second = worker();
    await second.ready;
    // What the first one ran so far: both steps' model calls and the first command.
    expect(mock.requests).toHaveLength(2);

    const tTerm = Date.now();
    first.child.kill('SIGTERM');
    // Unready at once (the Worker drains), while it is still alive and its tool still runs.
    const draining = await waitFor('the first worker to turn unready', async () => {
      const r = await probe(healthPort, '/readyz');
      return r !== 'refused' && r.status === 503 && r;
    });
    const tUnready = Date.now();
    expect(draining.body).toMatchObject({ ready: false, why: expect.stringMatching(/is (STOPPING|DRAINING|DRAINED)/) });
    expect(alive(toolPid)).toBe(true);
    const exit = await first.exited;
    const tExit = Date.now();
    const resumed = await mock.waitForRequest(3, 30_000);
    const result = await handle.result();
    const tDone = Date.now();
    console.log(
      `[shutdown] SIGTERM ${sec(tTerm - tStart)} into the ${SLEEP_SEC} s command; unready after ${sec(tUnready - tTerm)}; ` +
        `exited after ${sec(tExit - tTerm)} (grace ${GRACE_SEC} s); model asked again ${sec(resumed.at - tTerm)} after SIGTERM; ` +
        `result ${sec(tDone - tTerm)} after SIGTERM`,
    );

    expect(exit).toEqual({ code: 0, signal: null });
    expect(first.output()).toMatch(new RegExp(`SIGTERM: stopped polling; running tools get ${GRACE_SEC} s to finish`));
    // It gave the tool its grace period, then stopped it and exited: within the grace period and the few seconds a
    // stop takes, long before the command would have ended by itself.
    expect(tExit - tTerm).toBeGreaterThanOrEqual(GRACE_SEC * 1000 - 200);
    expect(tExit - tTerm).toBeLessThan((GRACE_SEC + 10) * 1000);
    expect(alive(toolPid)).toBe(false);
    // The other worker took over at once: the next model call came before the command would have finished.
    expect(resumed.at).toBeLessThan(tStart + SLEEP_SEC * 1000);
    expect(result.status, JSON.stringify(result)).toBe('completed');
    expect(result.answer).toBe('finished on the other worker');
    // No step repeated: three model calls in all, the first command ran once, the stopped one was not run again.
    expect(mock.requests).toHaveLength(3);
    expect(read('side.txt').split('\n').filter(Boolean)).toEqual(['one', 'start']);
    const third = mock.requests[2]!.messages;
    expect(toolResult(third, 'c1')).toMatch(/exit code: 0/);
    expect(toolResult(third, 'c2')).toMatch(/^Error: terminal was stopped before it finished: the worker running it shut down/);
    mock.assertDone();
  }, 90_000);

  it('lets a tool that finishes within the grace period finish: its result is recorded as usual', async () => {
    const { mock, hermes, workspace, worker } = await setup([
      {
        toolCalls: [
          {
            id: 'c1',
            name: 'terminal',
            arguments: {
              command: 'echo start >> side.txt; for i in $(seq 600); do [ -f go ] && break; sleep 0.1; done; echo done >> side.txt; echo finished',
            },
          },
        ],
      },
      answer('the command finished'),
    ]);
    const read = () => (existsSync(path.join(workspace, 'side.txt')) ? readFileSync(path.join(workspace, 'side.txt'), 'utf8') : '');
    const first = worker(['--grace', '20']);
    await first.ready;
    const handle = await hermes.start({ prompt: 'run it', workspace });
    await waitFor('the tool to start', () => /^start$/m.test(read()));
    const second = worker();
    await second.ready;
    const tTerm = Date.now();
    first.child.kill('SIGTERM');
    await waitFor('the shutdown to begin', () => /SIGTERM: stopped polling/.test(first.output()));
    // The worker waits for the running command: still there a second later, the command not stopped.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(first.child.exitCode).toBeNull();
    expect(read()).toBe('start\n');
    const tGo = Date.now();
    writeFileSync(path.join(workspace, 'go'), '');
    const exit = await first.exited;
    const tExit = Date.now();
    const result = await handle.result();
    console.log(
      `[shutdown: tool finished in time] the command was let go ${sec(tGo - tTerm)} after SIGTERM; the worker exited ${sec(tExit - tGo)} later (grace 20 s)`,
    );
    expect(exit).toEqual({ code: 0, signal: null });
    expect(read()).toBe('start\ndone\n');
    expect(tExit).toBeGreaterThan(tGo);
    expect(result.status, JSON.stringify(result)).toBe('completed');
    expect(mock.requests).toHaveLength(2);
    expect(toolResult(mock.requests[1]!.messages, 'c1')).toMatch(/^finished\nexit code: 0$/);
    mock.assertDone();
  }, 90_000);
});
