// The CLI against a cluster (TEMPORAL_ADDRESS set), telling the truth: no worker is said while it waits (and a
// worker started then completes the run); `status` reports Temporal's closed states; the model-step numbers run
// and status print are the ones `inspect --step` takes; a prompt from stdin works up to the payload limit and is
// refused clearly above it.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { MAX_PROMPT_BYTES } from '../src/client';
import { answer, createHarness, toolCall, type Harness } from './helpers/harness';
import { cleanEnv, HERMES_BIN, spawnHermes } from './helpers/spawn-hermes';
import { stateWhen, waitFor } from './helpers/wait';

let h: Harness | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await h?.close();
  h = undefined;
});

const exec = promisify(execFile);
const temporal = (...args: string[]) => exec(inject('temporalCliPath'), [...args, '--address', inject('temporalAddress')]);

const clusterEnv = (taskQueue: string) => ({ TEMPORAL_ADDRESS: inject('temporalAddress'), HERMES_TASK_QUEUE: taskQueue });

/** `hermes …` as a child whose output can be watched while it runs. */
function started(args: string[], env: Record<string, string>, stdinFile?: string) {
  const child = spawn(
    stdinFile ? 'bash' : process.execPath,
    stdinFile ? ['-c', `BIG=$(cat "$F"); echo "$BIG" | "$NODE" "$BIN" ${args.join(' ')}`] : [HERMES_BIN, ...args],
    {
      env: cleanEnv({ ...env, ...(stdinFile ? { F: stdinFile, NODE: process.execPath, BIN: HERMES_BIN } : {}) }),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  const out = { stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out.stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out.stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, out, exited };
}

describe('no worker, clear word', () => {
  // Event order, not a stopwatch: the line comes while the CLI waits and before any worker exists, once; then a
  // worker started completes the run. When it is looked for (WORKER_CHECK_AFTER_MS): pollers.test.ts.
  it('run says, while it waits, that no worker polls the task queue; a worker started then completes the run', async () => {
    h = await createHarness([answer('done at last')]);
    const run = started(['run', 'say', 'done'], clusterEnv(h.taskQueue));
    const said = await waitFor(
      'the no-worker line',
      () => /no worker is polling task queue (\S+) on (\S+) — start one with `npx hermes worker`/.exec(run.out.stderr) ?? undefined,
      60_000,
    );
    expect(run.child.exitCode, run.out.stderr).toBeNull(); // still waiting for the conversation
    expect(run.out.stderr.indexOf('conversation ')).toBeLessThan(run.out.stderr.indexOf('no worker is polling'));
    expect(said[1]).toBe(h.taskQueue);
    expect(said[2]).toBe(inject('temporalAddress'));
    const code = await h.run(() => run.exited);
    expect(code, run.out.stderr).toBe(0);
    expect(run.out.stdout).toContain('done at last');
    expect(run.out.stderr.match(/no worker is polling/g)).toHaveLength(1);
  });

  it('run --no-wait exits 3 instead of waiting, leaving the conversation queued', async () => {
    h = await createHarness([answer('later')]);
    const r = await spawnHermes(['run', '--no-wait', 'later please'], { env: clusterEnv(h.taskQueue), timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(`no worker is polling task queue ${h.taskQueue}`);
    const id = /conversation (\S+)/.exec(r.stderr)![1]!;
    const result = await h.run(() => h!.hermes.get(id).result());
    expect(result.answer).toBe('later');
  });
});

describe('status tells what Temporal knows', () => {
  it('a cancelled conversation is cancelled, a terminated one terminated', async () => {
    h = await createHarness([
      { content: 'too late', delayMs: 20_000 },
      { content: 'too late', delayMs: 20_000 },
    ]);
    await h.run(async () => {
      const a = await h!.hermes.start({ prompt: 'wait' });
      const b = await h!.hermes.start({ prompt: 'wait too' });
      await stateWhen(a, (s) => s.status === 'running');
      await stateWhen(b, (s) => s.status === 'running');
      await a.cancel();
      await a.result();
      await b.workflow.terminate('enough');
      for (const [id, word] of [
        [a.id, 'cancelled'],
        [b.id, 'terminated'],
      ] as const) {
        const text = await spawnHermes(['status', id], { env: clusterEnv(h!.taskQueue) });
        expect(text.stdout, text.stderr).toMatch(new RegExp(`^${id}: ${word}`));
        const json = await spawnHermes(['status', id, '--json'], { env: clusterEnv(h!.taskQueue) });
        expect(JSON.parse(json.stdout)).toMatchObject({ status: word, temporalStatus: word.toUpperCase() });
      }
    });
  });
});

describe('hermes status of a failed run', () => {
  it('names the reason and the error, and a reader that stops early is no crash', async () => {
    h = await createHarness([{ status: 401, body: { error: { message: 'Incorrect API key provided' } } }]);
    await h.run(async () => {
      const run = await h!.hermes.start({ prompt: 'fail' });
      await run.result();
      const text = await spawnHermes(['status', run.id], { env: clusterEnv(h!.taskQueue) });
      expect(text.stdout, text.stderr).toMatch(new RegExp(`^${run.id}: failed \\(Temporal: FAILED\\)`));
      expect(text.stdout).toMatch(/^ModelAuth: model endpoint .* answered 401/m);
      // A reader that has gone before the first line (`| true`; `| head -2` on a longer status): no stack trace.
      const piped = await exec('bash', ['-c', `"$NODE" "$BIN" status ${run.id} | true; echo "exit \${PIPESTATUS[0]}" >&2`], {
        env: cleanEnv({ ...clusterEnv(h!.taskQueue), NODE: process.execPath, BIN: HERMES_BIN }),
      });
      expect(piped.stderr).not.toMatch(/EPIPE/);
      expect(piped.stderr).toMatch(/exit 0/);
    });
  });
});

describe('hermes run without a terminal to ask on', () => {
  it('says which command waits for approval and the exact command that decides it', async () => {
    h = await createHarness([toolCall('terminal', { command: 'rm -rf build' }, 'rm1'), answer('left it alone')]);
    await h.run(async () => {
      const run = started(['run', 'clean', 'up'], clusterEnv(h!.taskQueue));
      const id = (await waitFor('the conversation line', () => /conversation (\S+)/.exec(run.out.stderr)?.[1], 30_000))!;
      await waitFor('the approval line', () => run.out.stderr.includes(`decide: hermes approve ${id} rm1 [--deny]`), 30_000);
      expect(run.out.stderr).toContain('waiting for approval (recursive rm): terminal rm -rf build');
      await h!.hermes.get(id).approve('rm1', 'deny');
      expect(await run.exited).toBe(0);
      expect(run.out.stdout).toContain('left it alone');
    });
  });
});

describe('a conversation cancelled with the stock CLI', () => {
  it('run tells the iterations and tokens it had spent, and result() says them without a worker too (from the history)', async () => {
    const usage = { prompt_tokens: 400, completion_tokens: 50 };
    h = await createHarness([
      { ...toolCall('list_dir', { path: '.' }), usage },
      { content: 'never: cancelled', delayMs: 30_000 },
    ]);
    const run = started(['run', 'look, then think long'], { ...clusterEnv(h.taskQueue), HERMES_WORKSPACE: h.workspace });
    const code = await h.run(async () => {
      const id = (await waitFor('the conversation line', () => /conversation (\S+)/.exec(run.out.stderr)?.[1], 30_000))!;
      await h!.mock.waitForRequest(2, 30_000);
      await temporal('workflow', 'cancel', '--workflow-id', id);
      return run.exited;
    });
    expect(code, run.out.stderr).toBe(3);
    const last = run.out.stderr
      .trim()
      .split('\n')
      .find((l) => l.startsWith('status: '));
    // Two iterations (the second cut by the cancel), the first call's 450 tokens: not made-up zeros.
    expect(last, run.out.stderr).toMatch(/^status: cancelled \(Cancelled\) · iterations: 2 · tokens: 450 · workflow id: /);
    const id = /workflow id: (\S+)/.exec(last!)![1]!;
    // No worker polls now: the totals come from the history.
    const r = await h.hermes.get(id).result();
    expect(r).toMatchObject({ status: 'cancelled', iterations: 2, modelCalls: 2, toolCalls: 1, runs: 1 });
    expect(r.usage).toMatchObject({ promptTokens: 400, completionTokens: 50, totalTokens: 450 });
    // With a worker they come from the state query (a replay of the closed run): the same.
    const replayed = await h.run(() => h!.hermes.get(id).result());
    expect({ ...replayed, error: undefined }).toEqual({ ...r, error: undefined });
  }, 90_000);
});

describe('one step numbering', () => {
  it('run and status print the model-step number that inspect --step takes, and all name the model alike', async () => {
    h = await createHarness([toolCall('list_dir', { path: '.' }, 'l1'), toolCall('list_dir', { path: '.' }, 'l2'), answer('two looks')]);
    writeFileSync(path.join(h.workspace, 'a.txt'), 'a');
    const env = { ...clusterEnv(h.taskQueue), HERMES_WORKSPACE: h.workspace };
    const run = await h.run(() => spawnHermes(['run', 'look twice', '--workspace', h!.workspace], { env }));
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.split('\n').filter((l) => /\[\s*\d+\]/.test(l));
    // model, tool, model, tool, model: steps 1-5; model steps 1-3.
    expect(lines.map((l) => /\[\s*(\d+)\] (\w+)\s+(.*?):/.exec(l)!.slice(1).join(' '))).toEqual([
      '1 model mock-model (model step 1)',
      '2 tool list_dir',
      '3 model mock-model (model step 2)',
      '4 tool list_dir',
      '5 model mock-model (model step 3)',
    ]);
    const id = /workflow id: (\S+)/.exec(run.stderr)![1]!;
    const status = await h.run(() => spawnHermes(['status', id], { env }));
    expect(status.stdout).toContain('[  5] model mock-model (model step 3): answer');
    expect(status.stdout).toContain('[  3] model mock-model (model step 2)');
    const view = await h.run(() => spawnHermes(['inspect', id, '--step', '3'], { env }));
    expect(view.code, view.stderr).toBe(0);
    expect(view.stdout).toMatch(/^model step 3 · model mock-model · profile default/);
    expect(view.stdout).toContain('l2');
    const table = await h.run(() => spawnHermes(['inspect', id], { env }));
    expect(
      table.stdout
        .split('\n')
        .filter((l) => /^\d+\s+\d+\s/.test(l))
        .map((l) =>
          l
            .split(/\s{2,}/)
            .slice(0, 4)
            .join('|'),
        ),
    ).toEqual(['1|1|model|model mock-model', '1|1|tool|list_dir', '2|1|model|model mock-model', '2|1|tool|list_dir', '3|1|model|model mock-model']);
    const beyond = await h.run(() => spawnHermes(['inspect', id, '--step', '4'], { env }));
    expect(beyond.code).toBe(1);
    expect(beyond.stderr).toContain('model step 4 not found');
  });
});

describe('large input', () => {
  const big = (bytes: number) => {
    const file = path.join(os.tmpdir(), `hermes-big-${process.pid}-${bytes}.txt`);
    // Multi-byte text: the limit is on UTF-8 bytes, not characters. (echo adds the newline that run - drops.)
    const unit = 'é'.repeat(49) + 'x\n'; // 100 bytes
    writeFileSync(file, unit.repeat(Math.floor(bytes / 100)).slice(0, -1));
    return file;
  };

  it('echo "$BIG" | hermes run - works just under the limit', async () => {
    h = await createHarness([answer('read it all')]);
    const file = big(MAX_PROMPT_BYTES - 100);
    const run = started(['run', '-', '--quiet'], clusterEnv(h.taskQueue), file);
    const code = await h.run(() => run.exited);
    expect(code, run.out.stderr).toBe(0);
    expect(run.out.stdout).toContain('read it all');
    const user = h.mock.requests[0]!.messages.find((m: { role: string }) => m.role === 'user') as { content: string };
    expect(Buffer.byteLength(user.content)).toBe(MAX_PROMPT_BYTES - 101);
  }, 90_000);

  it('is refused up front above it, with the limit named and a pointer to the workspace', async () => {
    const file = big(MAX_PROMPT_BYTES + 1000);
    // Nothing listens on port 1: the refusal comes before any connection.
    const run = started(['run', '-'], { TEMPORAL_ADDRESS: '127.0.0.1:1' }, file);
    expect(await run.exited).toBe(2);
    expect(run.out.stderr).toContain('over the limit of 1.50 MB (1500000 bytes)');
    expect(run.out.stderr).toContain('put the text in a file in the workspace');
    const viaFile = await spawnHermes(['run', '--prompt-file', file], { env: { TEMPORAL_ADDRESS: '127.0.0.1:1' } });
    expect(viaFile.code).toBe(2);
    expect(viaFile.stderr).toContain('over the limit');
  });

  it('Hermes.start refuses it too, before anything reaches the server', async () => {
    h = await createHarness();
    await expect(h.hermes.start({ prompt: 'x'.repeat(MAX_PROMPT_BYTES + 1) })).rejects.toThrow(/over the limit of 1\.50 MB.*workspace/);
  });
});
