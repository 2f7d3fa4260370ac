// Human in the loop against the real dev server: interrupt, approvals, chat, budgets, live state.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { ConversationState } from '../src/shared/contract';
import { answer, createHarness, toolCall, toolResult, type Harness } from './helpers/harness';
import { processesWith, sleepMarker, sleepsWith } from './helpers/procs';
import { alive, stateWhen, waitFor } from './helpers/wait';

const run = promisify(execFile);
let h: Harness;
afterEach(async () => {
  await h?.close();
});

describe('interrupt', () => {
  it('kills the running tool before the conversation ends, skips the later calls and ends as interrupted', async () => {
    // Found by a marker in its command line: in a pid namespace (the isolation launcher) `$$` is not a host pid.
    const marker = sleepMarker(30);
    h = await createHarness([
      {
        toolCalls: [
          { id: 'slow', name: 'terminal', arguments: { command: `sleep ${marker}; echo slow >> side.txt` } },
          { id: 'later', name: 'terminal', arguments: { command: 'echo later >> side.txt' } },
        ],
      },
    ]);
    const result = await h.run(
      async () => {
        const handle = await h.hermes.start({ prompt: 'go' });
        const [sleep] = await waitFor('the tool to start', () => sleepsWith(marker).length === 1 && sleepsWith(marker));
        expect(alive(sleep!.pid)).toBe(true);
        await handle.interrupt({ reason: 'user pressed stop' });
        const result = await handle.result();
        // Event order: the command is dead when the conversation has ended (the tool activity waits for its
        // process group), 30 s before the sleep would have ended on its own (then side.txt would say "slow").
        expect(processesWith(marker)).toEqual([]);
        return result;
        // Outside bwrap; test/sandbox.test.ts interrupts sandboxed commands.
      },
      { sandbox: 'none' },
    );
    expect(result.status).toBe('interrupted');
    expect(result.reason).toBe('user pressed stop');
    // Neither the rest of the cut command nor the later call ran: in a pid namespace bash is the init and ignores
    // SIGTERM, so the launcher is killed first (the whole namespace with it) — else bash could run the rest of the
    // `;` line between the SIGTERM that ends its sleep and the SIGKILL.
    expect(existsSync(path.join(h.workspace, 'side.txt'))).toBe(false);
    h.mock.assertDone();
  });

  it('redirects: the message becomes the next user message and the loop goes on', async () => {
    h = await createHarness([
      {
        toolCalls: [
          { id: 'slow', name: 'terminal', arguments: { command: 'echo started > started.txt; sleep 30' } },
          { id: 'after', name: 'write_file', arguments: { path: 'after.txt', content: 'x' } },
        ],
      },
      answer('ok, summarised instead'),
    ]);
    const result = await h.run(
      async () => {
        const handle = await h.hermes.start({ prompt: 'go' });
        await waitFor('the tool to start', () => existsSync(path.join(h.workspace, 'started.txt')));
        await handle.interrupt({ message: 'Stop that and just summarise.' });
        return handle.result();
      },
      { tuning: { maxCachedWorkflows: 0 } },
    );
    expect(result.status).toBe('completed');
    expect(result.answer).toBe('ok, summarised instead');
    const msgs = h.mock.requests[1]!.messages;
    expect(msgs.at(-1)).toMatchObject({ role: 'user', content: 'Stop that and just summarise.' });
    expect(toolResult(msgs, 'slow')).toMatch(/cancelled by interrupt/);
    expect(toolResult(msgs, 'after')).toMatch(/not run: cancelled by interrupt/);
    expect(existsSync(path.join(h.workspace, 'after.txt'))).toBe(false);
  });

  it('takes an interrupt payload of any shape: a bare string redirects, wrong types are ignored', async () => {
    h = await createHarness([
      toolCall('terminal', { command: 'echo one > started1.txt; sleep 30' }, 's1'),
      toolCall('terminal', { command: 'echo two > started2.txt; sleep 30' }, 's2'),
      answer('redirected, then stopped'),
    ]);
    const result = await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'go' });
      const raw = h.client.workflow.getHandle(handle.id);
      await waitFor('the first tool', () => existsSync(path.join(h.workspace, 'started1.txt')));
      await raw.signal('interrupt', 'Do the second thing instead.'); // as `temporal workflow signal --input '"…"'`
      await waitFor('the second tool', () => existsSync(path.join(h.workspace, 'started2.txt')));
      await raw.signal('interrupt', { message: 5, reason: ['no'] }); // wrong types: a plain interrupt
      return handle.result();
    });
    expect(result.status).toBe('interrupted');
    expect(h.mock.requests[1]!.messages.at(-1)).toMatchObject({ role: 'user', content: 'Do the second thing instead.' });
    expect(h.mock.requests).toHaveLength(2);
  });

  it('works from the stock temporal CLI: signal interrupt, query state', async () => {
    h = await createHarness([toolCall('terminal', { command: 'echo go > started.txt; sleep 30' })]);
    const cli = inject('temporalCliPath');
    const address = inject('temporalAddress');
    const result = await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'go' });
      await waitFor('the tool to start', () => existsSync(path.join(h.workspace, 'started.txt')));
      const q = await run(cli, ['workflow', 'query', '--address', address, '--workflow-id', handle.id, '--type', 'state', '--output', 'json']);
      const state = JSON.parse(q.stdout);
      const s = (state.queryResult?.[0] ?? state) as ConversationState;
      expect(s.status).toBe('running');
      expect(s.lastStep?.name).toBeDefined();
      await expect(
        run(cli, ['workflow', 'update', 'execute', '--address', address, '--workflow-id', handle.id, '--name', 'answer', '--input', '{"text":"x"}']),
      ).rejects.toMatchObject({ stderr: expect.stringMatching(/no question is pending/) });
      await run(cli, [
        'workflow',
        'signal',
        '--address',
        address,
        '--workflow-id',
        handle.id,
        '--name',
        'interrupt',
        '--input',
        '{"reason":"from the CLI"}',
      ]);
      return handle.result();
    });
    expect(result).toMatchObject({ status: 'interrupted', reason: 'from the CLI' });
  });

  it('cancelling the workflow kills the tool and ends as cancelled', async () => {
    const marker = sleepMarker(30);
    h = await createHarness([toolCall('terminal', { command: `sleep ${marker}` })]);
    const result = await h.run(
      async () => {
        const handle = await h.hermes.start({ prompt: 'go' });
        await waitFor('the tool to start', () => sleepsWith(marker).length === 1);
        await handle.cancel();
        await waitFor('the process to die', () => processesWith(marker).length === 0, 5_000);
        return handle.result();
      },
      { sandbox: 'none' },
    );
    expect(result.status).toBe('cancelled');
  });
});

describe('clarify', () => {
  it('publishes the question, takes the answer as the tool result, and rejects answers with nothing pending', async () => {
    h = await createHarness([toolCall('clarify', { question: 'Which branch?', choices: ['main', 'dev'] }, 'q1'), answer('deployed dev')]);
    const result = await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'deploy' });
      const s = await stateWhen(handle, (x) => x.pendingQuestion !== null);
      expect(s).toMatchObject({ status: 'waiting', waitingFor: 'clarify' });
      expect(s.pendingQuestion).toEqual({ callId: 'q1', question: 'Which branch?', choices: ['main', 'dev'] });
      const desc = await handle.workflow.describe();
      expect(desc.typedSearchAttributes.getAll().find((p) => p.key.name === 'HermesWaitingFor')?.value).toBe('clarify');
      await expect(handle.answer('   ')).rejects.toThrow(/must not be empty/);
      expect(await handle.answer('dev, please')).toEqual({ callId: 'q1' });
      await expect(handle.answer('again')).rejects.toThrow(/no question is pending/);
      return handle.result();
    });
    expect(result.status).toBe('completed');
    expect(toolResult(h.mock.requests[1]!.messages, 'q1')).toBe('dev, please');
  });

  it('is not offered in scheduled runs', async () => {
    h = await createHarness([answer('ok')]);
    await h.run(async () => (await h.hermes.start({ prompt: 'nightly', scheduled: true })).result());
    expect(h.mock.requests[0]!.tools).not.toContain('clarify');
    expect(h.mock.requests[0]!.tools).toContain('todo');
  });
});

describe('approvals', () => {
  it('waits for approval of a dangerous command; deny means it never ran', async () => {
    h = await createHarness([toolCall('terminal', { command: 'rm -rf build' }, 'rm1'), answer('left it alone')]);
    mkdirSync(path.join(h.workspace, 'build'));
    const result = await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'clean up' });
      const s = await stateWhen(handle, (x) => x.pendingApprovals.length > 0);
      expect(s.status).toBe('waiting');
      expect(s.waitingFor).toBe('approval');
      expect(s.pendingApprovals[0]).toMatchObject({ callId: 'rm1', tool: 'terminal', command: 'rm -rf build', pattern: 'rm-recursive' });
      const desc = await handle.workflow.describe();
      expect(desc.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])).toEqual(
        expect.arrayContaining([
          ['HermesWaitingFor', 'approval'],
          ['HermesStatus', 'waiting'],
        ]),
      );
      await expect(handle.approve('nope', 'approve')).rejects.toThrow(/no pending approval for call "nope"/);
      await handle.approve('rm1', 'deny');
      return handle.result();
    });
    expect(result.status).toBe('completed');
    expect(existsSync(path.join(h.workspace, 'build'))).toBe(true);
    expect(toolResult(h.mock.requests[1]!.messages, 'rm1')).toMatch(/denied this command/);
  });

  it('runs the command once approved, and remembers the pattern when asked', async () => {
    h = await createHarness([
      toolCall('terminal', { command: 'rm -rf build' }, 'a1'),
      toolCall('terminal', { command: 'rm -rf dist' }, 'a2'),
      answer('cleaned'),
    ]);
    mkdirSync(path.join(h.workspace, 'build'));
    mkdirSync(path.join(h.workspace, 'dist'));
    const result = await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'clean up' });
      await stateWhen(handle, (x) => x.pendingApprovals.some((a) => a.callId === 'a1'));
      // `remember` must be a real boolean: the string "false" would otherwise count as true.
      const bad = await h.client.workflow
        .getHandle(handle.id)
        .executeUpdate('approve', { args: [{ callId: 'a1', decision: 'approve', remember: 'false' }] })
        .catch((e: Error) => e);
      expect(String((bad as Error).cause)).toMatch(/remember: Invalid input: expected boolean/);
      await handle.approve('a1', 'approve', true);
      return handle.result();
    });
    expect(result.status).toBe('completed');
    expect(existsSync(path.join(h.workspace, 'build'))).toBe(false);
    expect(existsSync(path.join(h.workspace, 'dist'))).toBe(false); // remembered: no second question
  });

  it('refuses hard-line commands without asking', async () => {
    h = await createHarness([toolCall('terminal', { command: 'rm -rf / --no-preserve-root' }, 'r1'), answer('refused')]);
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'go' })).result());
    expect(result.status).toBe('completed');
    expect(toolResult(h.mock.requests[1]!.messages, 'r1')).toMatch(/^Error: refused/);
  });

  it('denies when nobody approves before the timeout', async () => {
    h = await createHarness([toolCall('terminal', { command: 'chmod -R 777 .' }, 't1'), answer('ok')]);
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'go', approvalTimeoutSec: 1 })).result());
    expect(result.status).toBe('completed');
    expect(toolResult(h.mock.requests[1]!.messages, 't1')).toMatch(/no approval came within 1 s/);
  });
});

describe('chat mode', () => {
  it('answers two send updates in one workflow; the second request contains the first turn', async () => {
    h = await createHarness([answer('Hello, Ada.'), answer('Your name is Ada.')]);
    const { first, second, final } = await h.run(
      async () => {
        const handle = await h.hermes.start({ mode: 'chat' });
        const first = await handle.send('My name is Ada.');
        const second = await handle.send('What is my name?');
        await handle.end();
        return { first, second, final: await handle.result() };
      },
      { tuning: { maxCachedWorkflows: 0 } },
    );
    expect(first).toMatchObject({ turn: 1, status: 'completed', answer: 'Hello, Ada.' });
    expect(second).toMatchObject({ turn: 2, status: 'completed', answer: 'Your name is Ada.' });
    const contents = h.mock.requests[1]!.messages.map((m) => m.content);
    expect(contents).toEqual(expect.arrayContaining(['My name is Ada.', 'Hello, Ada.', 'What is my name?']));
    expect(final).toMatchObject({ status: 'completed', answer: 'Your name is Ada.' });
  });

  it('queues a message sent during a turn (default) and answers both in order', async () => {
    h = await createHarness([{ content: 'first answer', delayMs: 1000 }, answer('second answer')]);
    const [a, b] = await h.run(async () => {
      const chat = await h.hermes.start({ mode: 'chat' });
      const one = chat.send('one');
      await stateWhen(chat, (s) => s.status === 'running');
      const two = chat.send('two');
      const results = await Promise.all([one, two]);
      await chat.end();
      return results;
    });
    expect(a).toMatchObject({ turn: 1, status: 'completed', answer: 'first answer' });
    expect(b).toMatchObject({ turn: 2, status: 'completed', answer: 'second answer' });
    expect(h.mock.requests[1]!.messages.at(-1)).toMatchObject({ role: 'user', content: 'two' });
  });

  it('with busyPolicy interrupt, a new message cuts the running turn short', async () => {
    h = await createHarness([toolCall('terminal', { command: 'touch started; sleep 30' }, 'slow'), answer('handled two')]);
    const [a, b] = await h.run(async () => {
      const chat = await h.hermes.start({ mode: 'chat', busyPolicy: 'interrupt' });
      const one = chat.send('one');
      await waitFor('the tool to start', () => existsSync(path.join(h.workspace, 'started')));
      const two = chat.send('two');
      const results = await Promise.all([one, two]);
      await chat.end();
      return results;
    });
    expect(a).toMatchObject({ turn: 1, status: 'interrupted' });
    expect(b).toMatchObject({ turn: 2, status: 'completed', answer: 'handled two' });
    expect(toolResult(h.mock.requests[1]!.messages, 'slow')).toMatch(/cancelled by interrupt/);
  });

  it('rejects send outside chat mode and, with busyPolicy reject, while a turn runs', async () => {
    h = await createHarness([{ content: 'slow answer', delayMs: 1500 }]);
    await h.run(async () => {
      const task = await h.hermes.start({ prompt: 'go' });
      await expect(task.send('hi')).rejects.toThrow(/chat mode/);
      await task.result();
      // The first turn's reply waits until the second send was refused: no timer for a loaded machine to outlast.
      let release!: () => void;
      const refused = new Promise<void>((r) => (release = r));
      h.mock.push(async () => (await refused, { content: 'slow answer' }));
      const chat = await h.hermes.start({ mode: 'chat', busyPolicy: 'reject' });
      const firstTurn = chat.send('one');
      await stateWhen(chat, (s) => s.status === 'running');
      await expect(chat.send('two')).rejects.toThrow(/a turn is running/);
      release();
      expect((await firstTurn).answer).toBe('slow answer');
      await chat.end();
    });
  });
});

describe('budgets and live state', () => {
  it('stops at the token budget with a summary after one 80% warning', async () => {
    // Every mock reply costs 15 tokens: 15, 30, 45 (90% of 50 → warning), 60 (over → grace call).
    const calls = [1, 2, 3, 4].map((i) => toolCall('write_file', { path: `f${i}.txt`, content: String(i) }));
    h = await createHarness([...calls, answer('Summary: wrote four files.')]);
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'go', maxTokens: 50 })).result());
    expect(result.status).toBe('budget_exhausted');
    expect(result.answer).toBe('Summary: wrote four files.');
    expect(h.mock.requests).toHaveLength(5);
    const warningsIn = (i: number) => h.mock.requests[i]!.messages.filter((m) => /Budget notice/.test(String(m.content))).length;
    expect(warningsIn(2)).toBe(0);
    expect(warningsIn(3)).toBe(1);
    expect(warningsIn(4)).toBe(1);
    expect(String(h.mock.requests[4]!.messages.at(-1)!.content)).toMatch(/tokens: 60 of 50/);
  });

  it('without a step cap (maxIterations 0) goes past the default 90 steps and stops on its token budget', async () => {
    // 15 tokens a reply: the budget of 1,500 is used up by the 100th call; then one summary call. Distinct todo
    // lists, so the repetition guard has nothing to stop.
    const steps = Array.from({ length: 100 }, (_, i) => toolCall('todo', { todos: [{ id: '1', content: `step ${i + 1}`, status: 'in_progress' }] }));
    h = await createHarness([...steps, answer('Summary: 100 steps.')]);
    const { result, state } = await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'go on until the budget says stop', maxIterations: 0, maxTokens: 1_500 });
      return { result: await handle.result(), state: await handle.state() };
    });
    expect(result.status).toBe('budget_exhausted');
    expect(result.answer).toBe('Summary: 100 steps.');
    expect(result.iterations).toBe(100);
    expect(result.usage.totalTokens).toBe(101 * 15);
    expect(h.mock.requests).toHaveLength(101);
    expect(String(h.mock.requests[100]!.messages.at(-1)!.content)).toMatch(/tokens: 1500 of 1500/);
    // One budget notice, about tokens (none about iterations: there is no cap to warn about).
    const notices = h.mock.requests[100]!.messages.filter((m) => /Budget notice/.test(String(m.content))).map((m) => String(m.content));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/of your tokens budget/);
    expect(state).toMatchObject({
      maxIterations: 0,
      iterationsLeft: null,
      budgets: { iterations: null, tokens: { used: 1515, limit: 1500, left: 0 } },
    });
    h.mock.assertDone();
  }, 60_000);

  it('stops at the cost budget using the profile prices', async () => {
    const { defineProfile } = await import('../src/llm/profiles');
    h = await createHarness([toolCall('list_dir', {}), toolCall('list_dir', { depth: 2 }), answer('cost summary')], (baseURL) => ({
      defaultName: 'priced',
      // 10 prompt + 5 completion tokens per call → $0.001 + $0.001 = $0.002 per call.
      profiles: { priced: defineProfile('priced', { baseURL, model: 'm', inputPricePerMTok: 100, outputPricePerMTok: 200 }) },
    }));
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'go', maxCostUsd: 0.004 })).result());
    expect(result.status).toBe('budget_exhausted');
    expect(result.usage.costUsd).toBeCloseTo(0.006, 6);
    expect(h.mock.requests).toHaveLength(3);
    expect(h.mock.requests[2]!.tools ?? []).toHaveLength(0);
  });

  it('shows todo, budgets and recent steps in the state query', async () => {
    h = await createHarness([
      toolCall('todo', {
        todos: [
          { id: '1', content: 'read', status: 'completed' },
          { id: '2', content: 'write', status: 'in_progress' },
        ],
      }),
      { content: 'done', delayMs: 1000 },
    ]);
    await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'go', maxTokens: 1000, maxIterations: 10 });
      const s = await stateWhen(handle, (x) => x.todo.length === 2);
      expect(s.todo.map((t) => t.status)).toEqual(['completed', 'in_progress']);
      expect(s.budgets.iterations).toMatchObject({ limit: 10 });
      expect(s.budgets.tokens).toMatchObject({ limit: 1000 });
      expect(s.steps.some((x) => x.name === 'todo')).toBe(true);
      const steps: string[] = [];
      for await (const p of handle.progress(50)) steps.push(p.status);
      expect(steps.at(-1)).toBe('completed');
    });
    expect(toolResult(h.mock.requests[1]!.messages, h.mock.requests[1]!.messages.find((m) => m.role === 'tool')!.tool_call_id!)).toMatch(/1\/2 done/);
  });
});
