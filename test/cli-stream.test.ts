// `hermes run` on a terminal writes the answer word by word while the model streams it; `--no-stream` and a piped
// stdout get it when it is complete; `hermes watch` follows a conversation started elsewhere.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createHarness, toolCall, type Harness } from './helpers/harness';
import { cleanEnv, HERMES_BIN, spawnHermes } from './helpers/spawn-hermes';

const ANSWER = 'one two three four five six seven eight nine ten';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const clusterEnv = (taskQueue: string) => ({ TEMPORAL_ADDRESS: inject('temporalAddress'), HERMES_TASK_QUEUE: taskQueue });

/** `hermes …` on a pseudo-terminal (util-linux `script`): stdout and stderr both reach it, in the order written. */
function onTerminal(args: string[], env: Record<string, string>): Promise<string> {
  const command = [process.execPath, HERMES_BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qefc', command, '/dev/null'], { env: cleanEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
  return new Promise((resolve) => child.once('close', () => resolve(out.replace(/\r/g, ''))));
}

/** Where in the terminal's text the model step line of the answer is. */
const stepLine = (out: string, step = 1) => out.search(new RegExp(`model mock-model \\(model step ${step}\\)`));

describe('streamed display', () => {
  it('a terminal gets the answer word by word, before the step is over, and once', async () => {
    // A todo step first: by the time the answer streams, the display is surely following.
    h = await createHarness([
      toolCall('todo', { todos: [{ id: '1', content: 'count', status: 'in_progress' }] }),
      { content: ANSWER, wordDelayMs: 300 },
    ]);
    const out = await h.run(() => onTerminal(['run', 'count to ten'], clusterEnv(h!.taskQueue)));
    expect(stepLine(out, 2), out).toBeGreaterThan(0);
    // The words were on the screen before the step line, which comes once the model call has returned.
    expect(out.indexOf('one two three'), out).toBeGreaterThanOrEqual(0);
    expect(out.indexOf('one two three')).toBeLessThan(stepLine(out, 2));
    expect(out.split(ANSWER).length - 1, out).toBe(1);
  }, 60_000);

  it('--no-stream: the answer comes after the step line, as before', async () => {
    h = await createHarness([{ content: ANSWER, wordDelayMs: 20 }]);
    const out = await h.run(() => onTerminal(['run', '--no-stream', 'count to ten'], clusterEnv(h!.taskQueue)));
    expect(out.indexOf(ANSWER), out).toBeGreaterThan(stepLine(out));
    expect(out.split(ANSWER).length - 1).toBe(1);
  }, 60_000);

  it('piped stdout gets the final answer alone', async () => {
    h = await createHarness([{ content: ANSWER, wordDelayMs: 20 }]);
    const r = await h.run(() => spawnHermes(['run', 'count to ten'], { env: clusterEnv(h!.taskQueue) }));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${ANSWER}\n`);
  }, 60_000);

  it('hermes watch follows a conversation started with the plain Temporal client (as a schedule or the stock CLI would)', async () => {
    // The reply streams once the watcher has printed its first event, however slowly the machine starts it.
    let watching!: () => void;
    const watcherUp = new Promise<void>((resolve) => (watching = resolve));
    h = await createHarness([async () => (await watcherUp, { content: ANSWER, wordDelayMs: 200 })]);
    await h.run(async () => {
      const id = `watched-${Date.now()}`;
      await h!.client.workflow.start('conversationWorkflow', {
        workflowId: id,
        taskQueue: h!.taskQueue,
        args: [{ prompt: 'count to ten', tools: [] }],
      });
      const child = spawn(process.execPath, [HERMES_BIN, 'watch', id, '--json'], {
        env: cleanEnv(clusterEnv(h!.taskQueue)),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
        watching();
      });
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
      expect(code, stderr).toBe(0);
      const events = stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; channel?: string; text?: string; status?: string });
      const deltas = events.filter((e) => e.type === 'delta' && e.channel === 'answer');
      expect(deltas.length, stdout).toBeGreaterThan(2);
      expect(deltas.map((d) => d.text).join('')).toBe(ANSWER);
      expect(events.at(-1)).toMatchObject({ type: 'status', status: 'completed' });
      const text = await spawnHermes(['watch', id], { env: clusterEnv(h!.taskQueue) });
      expect(text.stdout).toContain(ANSWER);
      expect(text.stderr).toContain('status: completed');
    });
  }, 60_000);
});
