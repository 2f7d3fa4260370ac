// Worker processes on the production server: two workers sharing one payload-store folder, one of them SIGKILLed
// in the middle of a tool — the other carries the conversation on, reading the context a continue-as-new left in
// the store — and a conversation that lives through a restart of the server (its PostgreSQL data kept).
import { existsSync, readdirSync, readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { answer, toolCall, toolResult } from '../helpers/harness';
import type { Reply } from '../helpers/mock-model';
import { portOpen } from '../helpers/spawn-hermes';
import { cleanupsAfterEach } from '../helpers/worker-process';
import { alive, waitFor } from '../helpers/wait';
import { canRestart, clusterSetup, restartServer } from './cluster';

const cleanups = cleanupsAfterEach();

const killGroup = (pid: number) => {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: already gone
  }
};

/** The parent pid of a process (from /proc), undefined once it is gone. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** Which of `pids` `pid` descends from. */
function ancestorAmong(pid: number, pids: number[]): number | undefined {
  for (let p: number | undefined = pid; p && p > 1; p = parentOf(p)) if (pids.includes(p)) return p;
  return undefined;
}

describe('worker processes on PostgreSQL', () => {
  it('two workers share the payload store; the one running a tool is SIGKILLed and the other takes over', async () => {
    const pages = 6;
    const store = mkdtempSync(path.join(os.tmpdir(), 'hermes-cluster-store-'));
    cleanups.push(() => rmSync(store, { recursive: true, force: true }));
    const slow = 'echo $$ > pid.txt; echo start >> side.txt; sleep 30; echo end >> side.txt';
    // Whichever request comes (a retried one included): read the pages, then the slow command, then the answer.
    const next: Reply = (req) => {
      const results = req.messages.filter((m: { role: string }) => m.role === 'tool').length;
      if (results < pages) return toolCall('read_file', { path: `page${results}.txt` }, `p${results}`);
      if (results === pages) return toolCall('terminal', { command: slow }, 'slow');
      return answer('carried on by the other worker');
    };
    const { mock, hermes, client, workspace, worker } = await clusterSetup(
      cleanups,
      'takeover',
      Array.from({ length: pages + 6 }, () => next),
      // A small threshold, so this short conversation's carried context goes to the store as a long one's would.
      { HERMES_PAYLOAD_STORE: store, HERMES_PAYLOAD_STORE_THRESHOLD: '4096' },
    );
    for (let i = 0; i < pages; i++) writeFileSync(path.join(workspace, `page${i}.txt`), `page ${i}: ${'abcdefgh'.repeat(500)}\n`);
    const read = (f: string) => (existsSync(path.join(workspace, f)) ? readFileSync(path.join(workspace, f), 'utf8') : '');
    let toolPid = 0;
    cleanups.push(() => toolPid > 0 && killGroup(toolPid));

    const workers = [worker(), worker()];
    await Promise.all(workers.map((w) => w.ready));
    const handle = await hermes.start({ prompt: 'read the pages, then run the slow step', workspace, maxHistoryEvents: 40, toolHeartbeatSec: 2 });
    await waitFor('the slow tool to start', () => /^start$/m.test(read('side.txt')), 60_000);
    toolPid = Number(read('pid.txt').trim());
    const runner = ancestorAmong(
      toolPid,
      workers.map((w) => w.pid),
    );
    expect(runner, `tool pid ${toolPid} under neither worker`).toBeDefined();
    const dead = workers.find((w) => w.pid === runner)!;
    const survivor = workers.find((w) => w !== dead)!;
    dead.child.kill('SIGKILL');
    expect((await dead.exited).signal).toBe('SIGKILL');
    const tKill = Date.now();

    const result = await handle.result();
    expect(result.status, JSON.stringify(result)).toBe('completed');
    expect(result.answer).toBe('carried on by the other worker');
    expect(survivor.child.exitCode).toBeNull();
    // The conversation moved on to a new run at least once, its context carried through the shared store.
    const runs: string[] = [];
    for await (const w of client.workflow.list({ query: `WorkflowId = "${handle.id}"` })) runs.push(w.runId);
    expect(runs.length).toBeGreaterThan(1);
    expect(readdirSync(store).length).toBeGreaterThan(0);
    // The interrupted command is not run again: the model hears its outcome is unknown.
    const last = mock.requests.at(-1)!;
    expect(last.at).toBeGreaterThan(tKill);
    expect(toolResult(last.messages, 'slow')).toMatch(/^Error: the outcome of terminal is unknown/);
    for (let i = 0; i < pages; i++) expect(toolResult(last.messages, `p${i}`)).toContain(`page ${i}: abcdefgh`);
    expect(read('side.txt').split('\n').filter(Boolean)).toEqual(['start']);
    expect(alive(toolPid)).toBe(true); // orphaned until a worker starts on this host (crash.test.ts); killed after
  }, 180_000);

  it.skipIf(!canRestart())(
    'a conversation lives through a server restart that keeps its data',
    async () => {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      // The first model call is in flight while the server stops and starts again and answers once it is back; that
      // answer may be lost with the server's connection (then the call is retried), so every reply depends only on
      // what the request holds: write the file, then the answer.
      const next: Reply = async (req) => {
        if (req.n === 1) await held;
        return req.messages.some((m: { role: string }) => m.role === 'tool')
          ? answer('done after the restart')
          : toolCall('write_file', { path: 'after.txt', content: 'written after the restart' }, 'w1');
      };
      const { mock, hermes, workspace, worker } = await clusterSetup(cleanups, 'restart', [next, next, next, next]);
      const w = worker();
      await w.ready;
      const handle = await hermes.start({ prompt: 'write the file', workspace, tools: ['write_file'] });
      await mock.waitForRequest(1, 60_000);
      await restartServer(async () => {
        expect(await portOpen(inject('clusterPort'))).toBe(false);
      });
      release();
      const result = await handle.result();
      expect(result.status, JSON.stringify(result)).toBe('completed');
      expect(result.answer).toBe('done after the restart');
      expect(readFileSync(path.join(workspace, 'after.txt'), 'utf8')).toBe('written after the restart');
      expect(w.child.exitCode).toBeNull(); // the same worker process, reconnected
      expect(mock.requests.length).toBeGreaterThanOrEqual(2);
      expect(toolResult(mock.requests.at(-1)!.messages, 'w1')).toBeDefined();
    },
    180_000,
  );
});
