// `hermes mcp` over stdio, driven by the MCP SDK's own client as a desktop assistant drives it: the client spawns
// `node bin/hermes.js mcp` against the run's dev server, a `hermes worker` process does the work with a scripted
// model. A task is started, waited for with task_result, its answer and transcript read; a clarify question is
// answered with answer_question, a chat's turns come back by task_result and send_message, an approval is given
// with approve, a running command is cut short by interrupt; search_conversations finds the task; bad input is an
// error result, and the server goes on answering after it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { answer, toolCall, toolResult } from './helpers/harness';
import { MockModel } from './helpers/mock-model';
import { cleanEnv, HERMES_BIN } from './helpers/spawn-hermes';
import { cleanupsAfterEach, startWorkerProcess, workerEnv } from './helpers/worker-process';
import { waitFor } from './helpers/wait';

const cleanups = cleanupsAfterEach();

type Result = CallToolResult & { structuredContent?: Record<string, any> };
const text = (r: Result) => (r.content[0] as { text: string }).text;

describe('hermes mcp (stdio)', () => {
  it('starts a task, waits for it, reads its answer and transcript; answers a question, chats, approves, interrupts; bad input is an error result', async () => {
    const mock = await MockModel.start([
      toolCall('read_file', { path: 'notes.txt' }, 'r1'),
      // Held a while, so the wait below sees the task running and reports progress.
      { content: 'The notes say the zebrafish tank needs cleaning.', delayMs: 1_500 },
      toolCall('clarify', { question: 'Which colour should the tank be?' }, 'q1'),
      answer('Painting it teal.'),
      answer('Hello there.'),
      answer('Second turn done.'),
      toolCall('terminal', { command: 'rm -rf build' }, 't1'),
      answer('Removed the build folder.'),
      toolCall('terminal', { command: 'echo started > started.txt; sleep 30' }, 's1'),
      answer('Summarised instead.'),
    ]);
    cleanups.push(() => mock.close());
    const workspace = mkdtempSync(path.join(os.tmpdir(), 'hermes-mcp-stdio-'));
    cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
    writeFileSync(path.join(workspace, 'notes.txt'), 'Clean the zebrafish tank on Friday.\n');
    mkdirSync(path.join(workspace, 'build'));
    const taskQueue = `mcp-stdio-${Date.now().toString(36)}`;
    const address = inject('temporalAddress');
    const worker = startWorkerProcess(workerEnv({ address, taskQueue, baseURL: mock.baseURL, workspace }), workspace);
    await worker.ready;

    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [HERMES_BIN, 'mcp'],
      cwd: workspace,
      env: cleanEnv({ TEMPORAL_ADDRESS: address, HERMES_TASK_QUEUE: taskQueue, HERMES_MODEL: 'mock', HERMES_LOG_LEVEL: 'warn' }) as Record<
        string,
        string
      >,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: 'hermes-test', version: '1.0.0' });
    cleanups.push(() => client.close());
    await client.connect(transport);
    const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<Result>;

    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(tools).toEqual(
      ['answer_question', 'approve', 'interrupt', 'search_conversations', 'send_message', 'start_task', 'task_result', 'task_status'].sort(),
    );

    // A task: started at once, then waited for (the wait returns when the run closes, long before waitSec).
    const started = await call('start_task', { prompt: 'What do my notes say?', maxIterations: 5 });
    expect(started.isError, text(started)).toBeFalsy();
    const id = started.structuredContent!.id as string;
    expect(id).toMatch(/^hermes-/);
    const progress: Array<{ progress: number; message?: string }> = [];
    const done = (await client.callTool({ name: 'task_result', arguments: { id, waitSec: 60 } }, undefined, {
      onprogress: (p) => void progress.push(p),
    })) as Result;
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]!.message).toMatch(/^running/);
    expect(done.isError, text(done)).toBeFalsy();
    expect(done.structuredContent).toMatchObject({
      id,
      finished: true,
      status: 'completed',
      answer: 'The notes say the zebrafish tank needs cleaning.',
    });
    // The tool really ran: the model saw the file's text as the tool result.
    expect(toolResult(mock.requests[1]!.messages, 'r1')).toContain('Clean the zebrafish tank on Friday.');
    expect(mock.requests[0]!.body.messages.at(-1).content).toContain('What do my notes say?');
    const status = await call('task_status', { id });
    expect(status.structuredContent).toMatchObject({ id, finished: true, status: 'completed', temporalStatus: 'COMPLETED' });

    // Its transcript, as a resource of the template.
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates).toEqual(['hermes://conversations/{id}']);
    expect(started.structuredContent!.transcript).toBe(`hermes://conversations/${id}`);
    const transcript = await client.readResource({ uri: started.structuredContent!.transcript as string });
    const body = (transcript.contents[0] as { text: string }).text;
    expect(body).toContain('[user] What do my notes say?');
    expect(body).toContain('[assistant calls] read_file({"path":"notes.txt"})');
    expect(body).toContain('[assistant] The notes say the zebrafish tank needs cleaning.');

    const listed = (await client.listResources()).resources.map((r) => r.uri);
    expect(listed).toContain(`hermes://conversations/${id}`);

    // Bad input is an error result naming the problem, never a dead server.
    const noSuch = await call('task_status', { id: 'hermes-no-such-conversation' });
    expect(noSuch.isError).toBe(true);
    expect(text(noSuch)).toContain('no conversation "hermes-no-such-conversation"');
    for (const [name, args] of [
      ['task_result', { id: 'hermes-no-such-conversation', waitSec: 5 }],
      ['answer_question', { id: 'hermes-no-such-conversation', text: 'yes' }],
      ['interrupt', { id: 'hermes-no-such-conversation' }],
    ] as const) {
      const r = await call(name, args);
      expect({ name, isError: r.isError, text: text(r) }).toMatchObject({ name, isError: true, text: expect.stringContaining('no conversation') });
    }
    const badType = await call('task_result', { id, waitSec: 'soon' });
    expect(badType.isError).toBe(true);
    expect(text(badType)).toMatch(/waitSec/);
    const tooLong = await call('task_result', { id, waitSec: 100_000 });
    expect(tooLong.isError).toBe(true);
    const badModel = await call('start_task', { prompt: 'x', model: 'no-such-profile' });
    expect(badModel.isError).toBe(true);
    expect(text(badModel)).toContain('model "no-such-profile" is not a model profile of this server: use one of default');
    const ended = await call('answer_question', { id, text: 'yes' });
    expect(ended.isError).toBe(true);
    expect(text(ended)).toContain(`${id} has ended (completed)`);
    await expect(client.readResource({ uri: 'hermes://conversations/hermes-no-such-conversation' })).rejects.toThrow(/no conversation/);

    // A task that asks: task_result returns when it waits for the answer, answer_question gives it, and it ends.
    const asking = await call('start_task', { prompt: 'Paint the tank.' });
    const askId = asking.structuredContent!.id as string;
    const waiting = await call('task_result', { id: askId, waitSec: 60 });
    expect(waiting.structuredContent).toMatchObject({
      id: askId,
      finished: false,
      status: 'waiting',
      waitingFor: 'clarify',
      pendingQuestion: { callId: 'q1', question: 'Which colour should the tank be?' },
    });
    const answered = await call('answer_question', { id: askId, text: 'Teal, please.' });
    expect(answered.isError, text(answered)).toBeFalsy();
    expect(answered.structuredContent).toMatchObject({ answered: 'q1' });
    const painted = await call('task_result', { id: askId, waitSec: 60 });
    expect(painted.structuredContent).toMatchObject({ finished: true, status: 'completed', answer: 'Painting it teal.' });
    expect(toolResult(mock.requests[3]!.messages, 'q1')).toContain('Teal, please.');

    // A chat: task_result returns once the turn is answered (the conversation stays open); send_message sends the next.
    const chat = await call('start_task', { prompt: 'Hi!', mode: 'chat' });
    const chatId = chat.structuredContent!.id as string;
    expect(chat.structuredContent).toMatchObject({ mode: 'chat' });
    const first = await call('task_result', { id: chatId, waitSec: 60 });
    expect(first.structuredContent).toMatchObject({
      finished: false,
      status: 'idle',
      mode: 'chat',
      answer: 'Hello there.',
      lastTurn: { turn: 1, status: 'completed' },
    });
    const second = await call('send_message', { id: chatId, text: 'And now?', waitSec: 60 });
    expect(second.isError, text(second)).toBeFalsy();
    expect(second.structuredContent).toMatchObject({ sent: true, turn: 2, status: 'completed', answer: 'Second turn done.' });
    expect(mock.requests[5]!.body.messages.at(-1).content).toContain('And now?');
    const toTask = await call('send_message', { id: askId, text: 'more' });
    expect(toTask.isError).toBe(true);
    expect(text(toTask)).toContain('has ended');

    // An approval: task_result returns when the command waits for it; approve lets it run.
    const risky = await call('start_task', { prompt: 'Remove the build folder.' });
    const riskyId = risky.structuredContent!.id as string;
    const held = await call('task_result', { id: riskyId, waitSec: 60 });
    expect(held.structuredContent).toMatchObject({ finished: false, status: 'waiting', waitingFor: 'approval' });
    const pending = (held.structuredContent!.pendingApprovals as Array<{ callId: string; command: string }>)[0]!;
    expect(pending).toMatchObject({ callId: 't1', command: 'rm -rf build' });
    expect(existsSync(path.join(workspace, 'build'))).toBe(true);
    const wrong = await call('approve', { id: riskyId, callId: 'no-such-call' });
    expect(wrong.isError).toBe(true);
    const approved = await call('approve', { id: riskyId, callId: 't1', decision: 'approve' });
    expect(approved.isError, text(approved)).toBeFalsy();
    expect((await call('task_result', { id: riskyId, waitSec: 60 })).structuredContent).toMatchObject({
      finished: true,
      status: 'completed',
      answer: 'Removed the build folder.',
    });
    expect(existsSync(path.join(workspace, 'build'))).toBe(false);

    // An interrupt with a message: the command in flight is cut short and the task goes on with the message.
    const slow = await call('start_task', { prompt: 'Run the slow job.' });
    const slowId = slow.structuredContent!.id as string;
    await waitFor('the slow command to start', () => existsSync(path.join(workspace, 'started.txt')));
    const cut = await call('interrupt', { id: slowId, message: 'Stop that and just summarise.' });
    expect(cut.isError, text(cut)).toBeFalsy();
    expect(cut.structuredContent).toMatchObject({ id: slowId, interrupted: true, continuesWith: 'the message' });
    expect((await call('task_result', { id: slowId, waitSec: 60 })).structuredContent).toMatchObject({
      finished: true,
      status: 'completed',
      answer: 'Summarised instead.',
    });
    expect(mock.requests[9]!.messages.at(-1)).toMatchObject({ role: 'user', content: 'Stop that and just summarise.' });
    expect(toolResult(mock.requests[9]!.messages, 's1')).toMatch(/cancelled by interrupt/);

    // The search of hermes search: the first task, by a word of its answer (visibility is eventually consistent).
    const found = await waitFor(
      'the task in the full-text index',
      async () => {
        const r = await call('search_conversations', { query: 'zebrafish' });
        return (r.structuredContent?.hits as Array<{ id: string }> | undefined)?.length ? r : undefined;
      },
      30_000,
    );
    expect((found.structuredContent!.hits as Array<{ id: string }>).map((h) => h.id)).toEqual([id]);
    expect(text(found)).toContain('zebrafish');

    expect(mock.errors).toEqual([]);
    expect(mock.requests).toHaveLength(10);
    expect(stderr).toMatch(/hermes mcp: on stdio/);
  }, 120_000);
});
