// Crash recovery proved, not assumed: a real `hermes worker` process is SIGKILLed in the middle of a step and a
// new worker process picks the conversation up from the shared dev server.
//  - a non-idempotent tool (terminal) cut off by the crash is not run again: the model is told its outcome
//    is unknown, and the tool calls that had completed before the crash are not repeated either; the next
//    worker kills the command's orphaned process group when it starts;
//  - the model call (idempotent by design) cut off by the crash is retried on the new worker.
// Where the time goes (each worker process also needs ~4-10 s to start: tsx + bundling the workflow code):
//  - terminal: the tool's heartbeat timeout (toolHeartbeatSec: 2), then ~10 s for the workflow task to leave
//    the dead worker's sticky queue (the SDK's default stickyQueueScheduleToStartTimeout);
//  - model call: the model activity's heartbeat timeout (modelHeartbeatSec: 2) plus its 1 s retry interval.
import { Client, Connection } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { isReferencePayload } from '@temporalio/common/lib/internal-non-workflow';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { Hermes } from '../src/client';
import { dataConverter } from '../src/codec';
import { fetchRunHistories } from '../src/inspect/step-context';
import { answer, toolCall, toolResult } from './helpers/harness';
import { MockModel, type Reply } from './helpers/mock-model';
import { cleanupsAfterEach, startWorkerProcess, workerEnv, type WorkerProcess } from './helpers/worker-process';
import { alive, waitFor } from './helpers/wait';

let counter = 0;
const cleanups = cleanupsAfterEach();

const killGroup = (pid: number) => {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: already gone
  }
};

/** A mock model, a client, a temp workspace and a unique task queue; `worker()` starts a worker process. */
async function setup(script: Reply[], extraEnv: Record<string, string> = {}) {
  const mock = await MockModel.start(script);
  cleanups.push(() => mock.close());
  const address = inject('temporalAddress');
  const connection = await Connection.connect({ address });
  cleanups.push(() => connection.close());
  const converter = dataConverter(extraEnv); // the payload store when the test sets one
  const client = new Client({ connection, ...(converter ? { dataConverter: converter } : {}) });
  const taskQueue = `crash-${process.pid}-${++counter}-${Date.now().toString(36)}`;
  const hermes = await Hermes.connect({ client, taskQueue });
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'hermes-crash-'));
  cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
  // Both worker processes of a test share it, as workers on one host do.
  const processDir = mkdtempSync(path.join(os.tmpdir(), 'hermes-crash-procs-'));
  cleanups.push(() => rmSync(processDir, { recursive: true, force: true }));
  const env = workerEnv(
    { address, taskQueue, baseURL: mock.baseURL, workspace },
    {
      HERMES_PROCESS_DIR: processDir,
      // Host pids ($$) and the orphan sweep: neither bwrap nor the isolation launcher, under which a command
      // dies with its worker anyway (terminal-isolation.test.ts).
      HERMES_SANDBOX: 'none',
      HERMES_UNSHARE_PATH: '/nonexistent/unshare',
      ...extraEnv,
    },
  );
  const worker = (): WorkerProcess => startWorkerProcess(env, workspace);
  return { mock, hermes, client, workspace, worker };
}

/** Milliseconds as seconds, for the timing log. */
const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

describe('crash recovery (worker process SIGKILLed mid-step)', () => {
  it('does not repeat completed tools nor re-run the interrupted non-idempotent one; the model hears the outcome is unknown', async () => {
    const t0 = Date.now();
    const slow = 'echo $$ > pid.txt; echo start >> side.txt; sleep 60; echo end >> side.txt';
    const { mock, hermes, workspace, worker } = await setup([
      { toolCalls: [{ id: 'c1', name: 'terminal', arguments: { command: 'echo one >> side.txt' } }] },
      { toolCalls: [{ id: 'c2', name: 'terminal', arguments: { command: slow } }] },
      answer('recovered after the crash'),
    ]);
    const side = path.join(workspace, 'side.txt');
    const pidFile = path.join(workspace, 'pid.txt');
    const read = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8') : '');
    let toolPid: number | undefined;
    cleanups.push(() => {
      const pid = toolPid ?? Number(read(pidFile).trim());
      if (pid > 0) killGroup(pid);
    });

    const first = worker();
    await first.ready;
    const handle = await hermes.start({ prompt: 'do the two steps', workspace, toolHeartbeatSec: 2 });
    await waitFor('the slow tool to start', () => /^start$/m.test(read(side)));
    toolPid = Number(read(pidFile).trim());
    expect(toolPid).toBeGreaterThan(0);
    const tKill = Date.now();
    first.child.kill('SIGKILL');
    const exit = await first.exited;
    const tExit = Date.now();
    // A SIGKILLed worker cannot clean up: the terminal tool's detached process group (bash + sleep) survives
    // it, orphaned, until the next worker on this host starts and kills it (else it would write `end` in 60 s).
    expect(alive(toolPid)).toBe(true);

    const second = worker();
    await second.ready;
    const tReady = Date.now();
    expect(second.output()).toMatch(/killed a terminal command left running by a worker that died: echo \$\$ > pid.txt/);
    // Killed with SIGKILL before the worker took work; on a loaded machine the group can take a moment to be gone.
    await waitFor('the orphaned command to be gone', () => !alive(toolPid), 10_000);
    const resumed = await mock.waitForRequest(3, 40_000);
    const result = await handle.result();
    const tDone = Date.now();
    console.log(
      `[crash: terminal] first worker up in ${first.startupMs} ms; killed at ${sec(tKill - t0)}; second worker up ` +
        `${sec(tReady - tKill)} after the kill; model asked again ${sec(resumed.at - tKill)} after the kill; ` +
        `result ${sec(tDone - tKill)} after the kill; total ${sec(tDone - t0)}`,
    );

    expect(exit.signal).toBe('SIGKILL');
    expect(resumed.at).toBeGreaterThan(tExit); // so it was the new worker that carried on
    expect(result.status, JSON.stringify(result)).toBe('completed');
    expect(result.answer).toBe('recovered after the crash');
    const lines = read(side).split('\n').filter(Boolean);
    expect(lines.filter((l) => l === 'one')).toHaveLength(1);
    expect(lines.filter((l) => l === 'start')).toHaveLength(1);
    expect(lines).not.toContain('end');
    expect(lines).toEqual(['one', 'start']);

    expect(mock.requests).toHaveLength(3);
    const third = mock.requests[2]!.messages;
    expect(toolResult(third, 'c1')).toBeDefined();
    expect(toolResult(third, 'c2')).toMatch(/^Error: the outcome of terminal is unknown: the worker running it stopped responding/);
    mock.assertDone();
  }, 60_000);

  it('retries the model call cut off by the crash on the new worker', async () => {
    const t0 = Date.now();
    let first: WorkerProcess | undefined;
    let tKill = 0;
    const { mock, hermes, workspace, worker } = await setup([
      // Step 1, first attempt: the worker dies while the model is still "thinking".
      () => {
        tKill = Date.now();
        first!.child.kill('SIGKILL');
        return { toolCalls: [{ id: 'lost', name: 'read_file', arguments: { path: 'data.txt' } }], delayMs: 3_000 };
      },
      // Step 1 again, on the new worker.
      { toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'data.txt' } }] },
      answer('the file says hello'),
    ]);
    writeFileSync(path.join(workspace, 'data.txt'), 'hello from data.txt\n');

    first = worker();
    await first.ready;
    const handle = await hermes.start({ prompt: 'read data.txt', workspace, toolHeartbeatSec: 2, modelHeartbeatSec: 2 });
    await mock.waitForRequest(1);
    const exit = await first.exited;
    const tExit = Date.now();
    const second = worker();
    await second.ready;
    const tReady = Date.now();
    const retried = await mock.waitForRequest(2, 60_000);
    const result = await handle.result();
    const tDone = Date.now();
    console.log(
      `[crash: model call] first worker up in ${first.startupMs} ms; killed at ${sec(tKill - t0)}; second worker up ` +
        `${sec(tReady - tKill)} after the kill; retry reached the model ${sec(retried.at - tKill)} after the kill; ` +
        `result ${sec(tDone - tKill)} after the kill; total ${sec(tDone - t0)}`,
    );

    expect(exit.signal).toBe('SIGKILL');
    expect(retried.at).toBeGreaterThan(tExit); // so it was the new worker that asked again
    expect(result.status, JSON.stringify(result)).toBe('completed');
    expect(result.answer).toBe('the file says hello');
    expect(mock.requests).toHaveLength(3);
    // The same step was requested twice: the first attempt died with its worker, the retry asked again.
    expect(mock.requests[0]!.aborted).toBe(true);
    expect(mock.requests[1]!.messages).toEqual(mock.requests[0]!.messages);
    expect(mock.requests[1]!.tools).toEqual(mock.requests[0]!.tools);
    expect(toolResult(mock.requests[2]!.messages, 'r1')).toContain('hello from data.txt');
    expect(toolResult(mock.requests[2]!.messages, 'lost')).toBeUndefined();
    mock.assertDone();
  }, 60_000);

  it('SIGKILL right after a continue-as-new: the next worker carries on with the whole context, read from the payload store', async () => {
    const pages = 6;
    const store = mkdtempSync(path.join(os.tmpdir(), 'hermes-crash-store-'));
    cleanups.push(() => rmSync(store, { recursive: true, force: true }));
    // One reply for whichever request comes (the retried one included): read the next page until all are read.
    const next: Reply = (req) => {
      const read = req.messages.filter((m: { role: string }) => m.role === 'tool').length;
      const reply = read < pages ? toolCall('read_file', { path: `page${read}.txt` }, `p${read}`) : answer('all pages read');
      return { ...(reply as object), delayMs: 700 };
    };
    const { mock, hermes, client, workspace, worker } = await setup(
      Array.from({ length: pages + 4 }, () => next),
      // A small threshold, so this short conversation's carry goes to the store as a long one's would.
      { HERMES_PAYLOAD_STORE: store, HERMES_PAYLOAD_STORE_THRESHOLD: '4096' },
    );
    for (let i = 0; i < pages; i++) writeFileSync(path.join(workspace, `page${i}.txt`), `page ${i}: ${'abcdefgh'.repeat(500)}\n`);

    const first = worker();
    await first.ready;
    const handle = await hermes.start({ prompt: 'read the pages', workspace, maxHistoryEvents: 40, modelHeartbeatSec: 2 });
    const firstRun = (await handle.workflow.describe()).runId;
    const secondRun = await waitFor(
      'a continue-as-new',
      async () => {
        const d = await client.workflow.getHandle(handle.id).describe();
        return d.runId !== firstRun && d.runId;
      },
      30_000,
    );
    first.child.kill('SIGKILL');
    const exit = await first.exited;
    const tExit = Date.now();
    const killedAt = mock.requests.length;
    const second = worker();
    await second.ready;
    const result = await handle.result();

    expect(exit.signal).toBe('SIGKILL');
    expect(result.status, JSON.stringify(result)).toBe('completed');
    expect(result.answer).toBe('all pages read');
    // The new run starts from a reference, not the inline state…
    const [run2] = await fetchRunHistories({ workflow: client.workflow }, handle.id).then((runs) => runs.slice(1));
    expect(run2!.events![0]!.workflowExecutionStartedEventAttributes!.originalExecutionRunId).toBeDefined();
    const carry = run2!.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![1]! as Payload;
    expect(isReferencePayload(carry)).toBe(true);
    expect(readdirSync(store).length).toBeGreaterThan(0);
    // …and what the new worker sent the model is the whole context: every request extends the one before it
    // (the retried call equals the cut one), and the first request after the kill has every page read so far.
    const reqs = mock.requests;
    const after = reqs.filter((r) => r.at > tExit);
    expect(after.length).toBeGreaterThan(0);
    for (let i = 1; i < reqs.length; i++) expect(reqs[i]!.messages.slice(0, reqs[i - 1]!.messages.length)).toEqual(reqs[i - 1]!.messages);
    const firstAfter = after[0]!.messages.filter((m: { role: string }) => m.role === 'tool').length;
    expect(firstAfter).toBeGreaterThanOrEqual(killedAt - 1);
    for (let i = 0; i < firstAfter; i++) expect(toolResult(after[0]!.messages, `p${i}`)).toContain(`page ${i}: abcdefgh`);
    console.log(`[crash: after continue-as-new] killed in run ${secondRun} at request ${killedAt}; ${after.length} requests after the kill`);
  }, 90_000);
});
