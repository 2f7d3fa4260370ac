// SIGTERM (`timeout`, systemd, a container stop) ends the long-running commands mid-step: `hermes run` and
// `hermes chat` detach (the conversation goes on durably; the next worker resumes it) and exit 143, after
// stopping the in-process worker and the embedded server they started. The real CLI as a child process
// (`node bin/hermes.js`, not npx, which does not pass SIGTERM on). What is checked is the order — the command is
// gone while the step it follows is still running (a model call gated on the exit, or cut by it) — not a
// stopwatch; `terminate` gives up after 15 s, three times the CLI's own 4.5 s cap, as a hang guard.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { answer, createHarness, type Harness } from './helpers/harness';
import { MockModel, type Reply } from './helpers/mock-model';
import { cleanEnv, freePort, HERMES_BIN, portOpen } from './helpers/spawn-hermes';
import { waitFor } from './helpers/wait';

let tmp: string;
let h: Harness | undefined;
const mocks: MockModel[] = [];
const children: ChildProcess[] = [];

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'hermes-signals-test-'));
});
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await Promise.all(mocks.splice(0).map((m) => m.close()));
  await h?.close();
  h = undefined;
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** `hermes …` as a child whose output can be watched while it runs; `stdin: true` keeps a pipe to write to. */
function started(args: string[], env: Record<string, string>, o: { cwd?: string; stdin?: boolean } = {}) {
  const child = spawn(process.execPath, [HERMES_BIN, ...args], {
    env: cleanEnv(env),
    cwd: o.cwd ?? process.cwd(),
    stdio: [o.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const out = { stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out.stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out.stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  return { child, out, exited };
}

/** Sends SIGTERM; resolves with the exit and the milliseconds from the signal to the exit. */
async function terminate(p: ReturnType<typeof started>) {
  const t0 = Date.now();
  p.child.kill('SIGTERM');
  const bounded = await Promise.race([p.exited, new Promise<undefined>((r) => setTimeout(() => r(undefined), 15_000))]);
  if (!bounded) p.child.kill('SIGKILL');
  const e = bounded ?? (await p.exited);
  return { ...e, ms: e.at - t0, stillRunningAfter15s: !bounded };
}

const clusterEnv = (taskQueue: string) => ({ TEMPORAL_ADDRESS: inject('temporalAddress'), HERMES_TASK_QUEUE: taskQueue });

async function embeddedEnv(script: Reply[]) {
  const mock = await MockModel.start(script);
  mocks.push(mock);
  const [port, uiPort] = [await freePort(), await freePort()];
  const cliPath = inject('temporalCliPath');
  const home = mkdtempSync(path.join(tmp, 'home-'));
  const env = {
    OPENAI_BASE_URL: mock.baseURL,
    OPENAI_API_KEY: 'sk-test',
    HERMES_MODEL: 'mock-model',
    HERMES_HOME: home,
    HERMES_WORKSPACE: mkdtempSync(path.join(tmp, 'ws-')),
    ...(cliPath ? { TEMPORAL_CLI_PATH: cliPath } : {}),
    HERMES_TEMPORAL_PORT: String(port),
    HERMES_UI_PORT: String(uiPort),
  };
  return { mock, env, port, uiPort, cwd: mkdtempSync(path.join(tmp, 'cwd-')) };
}

describe('SIGTERM', () => {
  it('hermes run (embedded) detaches mid-step with 143, stops its worker and server; the next worker resumes the conversation', async () => {
    const { mock, env, port, uiPort, cwd } = await embeddedEnv([
      { content: 'never seen: the detach cuts this call', delayMs: 60_000 },
      answer('resumed after the detach'),
    ]);
    const run = started(['run', 'take your time'], env, { cwd });
    await waitFor('the model call in flight', () => mock.requests.length >= 1, 90_000);
    const id = /conversation (\S+)/.exec(run.out.stderr)![1]!;

    const e = await terminate(run);
    console.log(`hermes run (embedded): SIGTERM to exit ${e.ms} ms`);
    const why = `exit ${e.code}/${e.signal} after ${e.ms} ms\n--- stderr\n${run.out.stderr}`;
    expect(e.stillRunningAfter15s, why).toBe(false);
    expect(e.code, why).toBe(143);
    expect(run.out.stderr).toContain(`SIGTERM: detached from ${id}`);
    expect(run.out.stderr).toContain(`hermes status ${id}`);
    expect(run.out.stderr).toContain(`hermes interrupt ${id}`);
    // The in-process worker let go of the model call; the embedded server is gone.
    await waitFor('the cut model call', () => mock.requests[0]!.aborted === true, 5_000);
    expect(await portOpen(port)).toBe(false);
    expect(await portOpen(uiPort)).toBe(false);

    // The conversation is durable: `hermes worker` on the same home restarts the server and finishes it.
    const worker = started(['worker'], env, { cwd });
    await waitFor('the worker', () => /^hermes worker on /m.test(worker.out.stderr), 90_000);
    const connection = await Connection.connect({ address: `127.0.0.1:${port}` });
    try {
      const result = await new Client({ connection }).workflow.getHandle(id).result();
      expect(result).toMatchObject({ status: 'completed', answer: 'resumed after the detach' });
    } finally {
      await connection.close();
    }
    const w = await terminate(worker);
    expect(w.stillRunningAfter15s, worker.out.stderr).toBe(false);
    expect(await portOpen(port)).toBe(false);
  }, 240_000);

  it('hermes run with no worker (cluster) detaches at once; the conversation stays queued and a worker completes it', async () => {
    h = await createHarness([answer('done after all')]);
    const run = started(['run', 'hello'], clusterEnv(h.taskQueue));
    const id = (await waitFor('the conversation line', () => /conversation (\S+)/.exec(run.out.stderr)?.[1], 30_000))!;
    const e = await terminate(run);
    console.log(`hermes run (cluster, no worker): SIGTERM to exit ${e.ms} ms`);
    const why = `exit ${e.code}/${e.signal} after ${e.ms} ms\n--- stderr\n${run.out.stderr}`;
    expect(e.stillRunningAfter15s, why).toBe(false);
    expect(e.code, why).toBe(143);
    expect(run.out.stderr).toContain(`SIGTERM: detached from ${id}`);
    const result = await h.run(() => h!.hermes.get(id).result());
    expect(result.answer).toBe('done after all');
  }, 120_000);

  it('hermes status waiting on a conversation no worker runs ends with 143', async () => {
    h = await createHarness([]);
    const handle = await h.hermes.start({ prompt: 'nobody runs this' });
    const status = started(['status', handle.id], clusterEnv(h.taskQueue));
    // Connected and waiting for the state query (the no-worker line comes after 5 s of it).
    await waitFor('the no-worker line', () => /no worker is polling/.test(status.out.stderr), 30_000);
    const e = await terminate(status);
    const why = `exit ${e.code}/${e.signal} after ${e.ms} ms\n--- stderr\n${status.out.stderr}`;
    expect(e.stillRunningAfter15s, why).toBe(false);
    expect(e.code, why).toBe(143);
    await handle.workflow.terminate('test over');
  }, 60_000);

  it('following a slow step piles no listeners on the stop signal (the SDK adds one per call and never removes it)', async () => {
    h = await createHarness([{ content: 'after a while', delayMs: 8_000 }]);
    await h.run(async () => {
      const run = started(['run', 'take your time'], clusterEnv(h!.taskQueue));
      const e = await run.exited;
      expect(e.code, run.out.stderr).toBe(0);
      expect(run.out.stdout).toContain('after a while');
      expect(run.out.stderr).not.toMatch(/MaxListenersExceededWarning/);
    });
  }, 60_000);

  it('SIGINT stays what it was: the first interrupts the conversation, a second detaches with 130', async () => {
    h = await createHarness([{ content: 'cut by the interrupt', delayMs: 15_000 }]);
    await h.run(async () => {
      const run = started(['run', 'slowly'], clusterEnv(h!.taskQueue));
      await h!.mock.waitForRequest(1, 30_000);
      run.child.kill('SIGINT');
      const e = await run.exited;
      expect(run.out.stderr).toContain('(interrupting; Ctrl-C again to detach)');
      expect(e.code, run.out.stderr).toBe(3);
      expect(run.out.stderr).toMatch(/status: interrupted/);
    });
    // With no worker the interrupt waits in the conversation; the second Ctrl-C leaves it.
    const again = started(['run', 'nobody runs this'], clusterEnv(h.taskQueue));
    const id = (await waitFor('the conversation line', () => /conversation (\S+)/.exec(again.out.stderr)?.[1], 30_000))!;
    again.child.kill('SIGINT');
    await waitFor('the interrupt line', () => again.out.stderr.includes('(interrupting; Ctrl-C again to detach)'), 10_000);
    again.child.kill('SIGINT');
    const e = await again.exited;
    expect(e.code, again.out.stderr).toBe(130);
    expect(again.out.stderr).toContain(`Ctrl-C again: detached from ${id}`);
    await h.hermes.get(id).workflow.terminate('test over');
  }, 120_000);

  it('hermes chat detaches mid-turn with 143 and does not end the conversation', async () => {
    // The model answers only once the chat command has exited: the turn is still running when it goes.
    let exited!: () => void;
    const chatGone = new Promise<void>((resolve) => (exited = resolve));
    h = await createHarness([() => chatGone.then(() => answer('a reply after the detach'))]);
    await h.run(async () => {
      const chat = started(['chat'], clusterEnv(h!.taskQueue), { stdin: true });
      await waitFor('the chat line', () => /^chat /m.test(chat.out.stderr), 30_000);
      // A new chat starts its workflow with the first message (which becomes its summary), then names it.
      chat.child.stdin!.write('hello there\n');
      const id = (await waitFor('the chat id', () => /\(chat (\S+)\)/.exec(chat.out.stderr)?.[1], 30_000))!;
      expect(await (await h!.hermes.get(id).workflow.describe()).staticSummary()).toBe('chat: hello there');
      await h!.mock.waitForRequest(1, 20_000);
      const e = await terminate(chat);
      exited();
      const why = `exit ${e.code}/${e.signal} after ${e.ms} ms\n--- stderr\n${chat.out.stderr}`;
      expect(e.stillRunningAfter15s, why).toBe(false);
      expect(e.code, why).toBe(143);
      expect(chat.out.stderr).toContain(`SIGTERM: detached from ${id}`);
      expect(chat.out.stderr).toContain(`hermes chat --id ${id}`);
      // The turn goes on without the chat command; the conversation waits for the next message.
      const handle = h!.hermes.get(id);
      await waitFor('the turn to finish', async () => (await handle.state()).status === 'idle', 20_000);
      expect((await handle.temporalStatus()) === 'RUNNING').toBe(true);
      await handle.end();
    });
  }, 120_000);
});
