// `hermes serve` on the production server: an OpenAI-compatible session request goes to a worker process and comes
// back with the answer; the same session's second request is the conversation's second turn.
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { answer } from '../helpers/harness';
import { startServeProcess } from '../helpers/serve-process';
import { cleanupsAfterEach } from '../helpers/worker-process';
import { clusterSetup } from './cluster';

const cleanups = cleanupsAfterEach();

describe('hermes serve on PostgreSQL', () => {
  it('a session round trip: two requests, two turns of one conversation, answered by a worker process', async () => {
    const { mock, env, workspace, worker, client } = await clusterSetup(cleanups, 'serve', [answer('first answer'), answer('second answer')]);
    const w = worker();
    await w.ready;
    const { url } = await startServeProcess(cleanups, env, workspace);
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
});
