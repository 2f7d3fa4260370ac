// `hermes serve` on the production server: an OpenAI-compatible session request goes to a worker process and comes
// back with the answer; the same session's second request is the conversation's second turn. A request whose turn
// waits for an approval is answered at once with the wait, which visibility (SQL) lists too.
import OpenAI from 'openai';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { answer, toolCall } from '../helpers/harness';
import { spawnListening } from '../helpers/spawn-hermes';
import { cleanupsAfterEach } from '../helpers/worker-process';
import { clusterSetup, temporal } from './cluster';
import { waitFor } from '../helpers/wait';

const cleanups = cleanupsAfterEach();

describe('hermes serve on PostgreSQL', () => {
  it('a session round trip: two requests, two turns of one conversation, answered by a worker process', async () => {
    const { mock, env, workspace, worker, client } = await clusterSetup(cleanups, 'serve', [answer('first answer'), answer('second answer')]);
    const w = worker();
    await w.ready;
    const { url } = await spawnListening(['serve', '--port', '0'], { env, cwd: workspace }, cleanups, /^hermes serve on (http:\/\/\S+) /m);
    const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 0, timeout: 120_000 });
    const session = `serve-${Date.now().toString(36)}`;
    const ask = (content: string) =>
      openai.chat.completions.create({ model: 'hermes', messages: [{ role: 'user', content }] }, { headers: { 'X-Hermes-Session-Id': session } });

    const one = await ask('the first question');
    expect(one.choices[0]!.message.content).toBe('first answer');
    const two = await ask('the second question');
    expect(two.choices[0]!.message.content).toBe('second answer');

    // The second turn's model call saw the first turn: one conversation, carried on.
    const users = mock.requests[1]!.messages.filter((m: { role: string }) => m.role === 'user').map((m: { content: string }) => m.content);
    expect(users).toEqual(['the first question', 'the second question']);
    const view = (await (await fetch(`${url}/v1/sessions/${session}`)).json()) as { state: { turn: number }; last_turn: { answer: string } };
    expect(view.state.turn).toBe(2);
    expect(view.last_turn.answer).toBe('second answer');
    const running: string[] = [];
    for await (const x of client.workflow.list({ query: `TaskQueue = "${env.HERMES_TASK_QUEUE}"` })) running.push(x.workflowId);
    expect(running).toHaveLength(1);
    mock.assertDone();
  }, 180_000);

  it('a request that waits for an approval is answered at once; visibility lists it waiting; the denial is its answer', async () => {
    const { mock, env, workspace, worker } = await clusterSetup(cleanups, 'serve-approval', []);
    const victim = path.join(workspace, 'victim');
    mkdirSync(victim);
    mock.push(toolCall('terminal', { command: `rm -rf ${victim}` }, 'rm1'), answer('left it'));
    const w = worker();
    await w.ready;
    const { url } = await spawnListening(['serve', '--port', '0'], { env, cwd: workspace }, cleanups, /^hermes serve on (http:\/\/\S+) /m);
    const session = `approval-${Date.now().toString(36)}`;
    const turn = fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Hermes-Session-Id': session },
      body: JSON.stringify({ model: 'hermes', messages: [{ role: 'user', content: 'clean up' }] }),
    });
    const said = await Promise.race([turn, new Promise<undefined>((r) => setTimeout(r, 60_000))]);
    expect(said, 'the request was not answered while the approval was pending').toBeDefined();
    expect(await said!.json()).toMatchObject({ hermes: { status: 'waiting', waiting_for: 'approval', call_id: 'rm1' } });
    // The stock CLI finds it by the waiting search attribute (PostgreSQL visibility, updated as the turn waits).
    const listed = () => temporal('workflow', 'list', '--query', `HermesWaitingFor = 'approval' AND TaskQueue = '${env.HERMES_TASK_QUEUE}'`);
    await waitFor(
      'the session listed as waiting for an approval',
      async () => ((await listed()).includes(`hermes-session-${session}`) ? true : undefined),
      30_000,
    );
    const deny = await fetch(`${url}/v1/sessions/${session}/approve`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ call_id: 'rm1', decision: 'deny' }),
    });
    expect(deny.status).toBe(200);
    expect(await (await fetch(`${url}/v1/sessions/${session}?wait=60`)).json()).toMatchObject({ last_turn: { answer: 'left it' } });
    expect(existsSync(victim)).toBe(true);
    mock.assertDone();
  }, 180_000);
});
