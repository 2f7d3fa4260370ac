// Client-side tools across processes: `hermes serve` and `hermes worker` as a user runs them, against the run's dev
// server. The turn that handed a client call back waits in its history; its worker is SIGKILLed and its serve
// stopped, and the client's results — sent to another serve process, served by another worker process — let the
// same turn answer. No process memory carries the wait.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { answer, toolResult } from './helpers/harness';
import { MockModel } from './helpers/mock-model';
import { cleanupsAfterEach, startWorkerProcess, workerEnv } from './helpers/worker-process';
import { spawnListening } from './helpers/spawn-hermes';

const cleanups = cleanupsAfterEach();

const post = async (url: string, session: string, messages: unknown[]) => {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Hermes-Session-Id': session },
    body: JSON.stringify({
      model: 'hermes',
      messages,
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
    }),
  });
  return { status: res.status, body: (await res.json()) as any };
};

describe('hermes serve client tools (processes)', () => {
  it('results sent after the worker was SIGKILLed and serve restarted reach the waiting turn, which answers once', async () => {
    const mock = await MockModel.start([{ toolCalls: [{ id: 'p1', name: 'get_weather', arguments: { city: 'Rome' } }] }, answer('Warm in Rome.')]);
    cleanups.push(() => mock.close());
    const workspace = mkdtempSync(path.join(os.tmpdir(), 'hermes-serve-tools-'));
    cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
    const taskQueue = `serve-tools-${process.pid}-${Date.now().toString(36)}`;
    const env = workerEnv({ address: inject('temporalAddress'), taskQueue, baseURL: mock.baseURL, workspace }, { HERMES_SANDBOX: 'none' });
    const session = `tools-proc-${Date.now().toString(36)}`;
    const user = { role: 'user', content: 'Weather in Rome?' };

    const firstWorker = startWorkerProcess(env, workspace);
    await firstWorker.ready;
    const firstServe = await spawnListening(['serve', '--port', '0'], { env, cwd: workspace }, cleanups, /^hermes serve on (http:\/\/\S+) /m);
    const asked = await post(firstServe.url, session, [user]);
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    expect(asked.body.choices[0].finish_reason).toBe('tool_calls');
    expect(asked.body.choices[0].message.tool_calls[0]).toMatchObject({ id: 'p1', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } });

    // Nothing of the first pair is left: the worker dies as a machine does, the serve process stops.
    firstWorker.child.kill('SIGKILL');
    await firstWorker.exited;
    firstServe.child.kill('SIGTERM');
    await new Promise((r) => firstServe.child.once('exit', r));

    const secondWorker = startWorkerProcess(env, workspace);
    await secondWorker.ready;
    const secondServe = await spawnListening(['serve', '--port', '0'], { env, cwd: workspace }, cleanups, /^hermes serve on (http:\/\/\S+) /m);
    const done = await post(secondServe.url, session, [
      user,
      asked.body.choices[0].message,
      { role: 'tool', tool_call_id: 'p1', content: 'warm, 30 °C' },
    ]);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'Warm in Rome.' } });
    expect(done.body.hermes).toMatchObject({ status: 'completed', turn: 1 });
    // Two model calls in all: the one that asked, the one that answered with the client's result.
    expect(mock.requests).toHaveLength(2);
    expect(toolResult(mock.requests[1]!.messages, 'p1')).toBe('warm, 30 °C');
    mock.assertDone();
  }, 180_000);
});
