// The workflow checks its own input: whatever the stock `temporal` CLI, the Web UI or a Schedule sends, a bad
// input ends the conversation at once as `failed`/`BadInput` with a message naming the field — it never
// fails a workflow task (which would leave the conversation Running, wedged) and never runs a step.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, expectTypeOf, inject, it } from 'vitest';
import { answerUpdate } from '../src/shared/messages';
import {
  conversationInputSchema,
  conversationResultSchema,
  conversationStateSchema,
  issuesText,
  type ConversationWorkflow,
} from '../src/shared/contract';
import type { conversationWorkflow } from '../src/workflows/conversation';
import { answer, createHarness, toolCall, type Harness } from './helpers/harness';
import { stateWhen } from './helpers/wait';

const exec = promisify(execFile);
let h: Harness;
afterEach(async () => {
  await h?.close();
  h = undefined!; // closed: the next test makes its own
});

const BAD: Array<[string, string, RegExp]> = [
  ['null', 'null', /no input/],
  ['a number', '42', /\(input\): Invalid input: expected object/],
  ['a number as prompt', '{"prompt":123}', /prompt: Invalid input: expected string/],
  ['negative maxIterations', '{"prompt":"x","limits":{"maxIterations":-1}}', /limits\.maxIterations: Too small/],
  ['text maxIterations', '{"prompt":"x","limits":{"maxIterations":"abc"}}', /limits\.maxIterations: Invalid input: expected number/],
  ['workspace /', '{"prompt":"x","workspace":"/"}', /workspace \/ is outside this worker's workspace roots/],
  ['a relative workspace', '{"prompt":"x","workspace":"src"}', /workspace: must be an absolute path/],
  ['a negative timeout', '{"prompt":"x","limits":{"terminalTimeoutSec":-5}}', /limits\.terminalTimeoutSec: Too small/],
  ['tools as a string', '{"prompt":"x","tools":"terminal"}', /tools: Invalid input: expected array/],
  ['an unknown tool', '{"prompt":"x","tools":["files","nope"]}', /tools: unknown tools or toolsets: nope/],
  ['an empty prompt', '{"prompt":"  "}', /prompt: must not be empty/],
  ['a misspelt field', '{"promt":"x"}', /Unrecognized key: "promt"/],
  // The carried state is the second argument only (continue-as-new's); inside the input it is a misspelt field.
  ['a carried state inside the input', '{"prompt":"x","carried":{"messages":"no"}}', /Unrecognized key: "carried"/],
];
/** Inputs the default payload converter cannot even decode, and a second argument nobody should send. */
const UNREADABLE: Array<[string, string[], RegExp]> = [
  ['an unknown encoding', ['--input-meta', 'encoding=made/up', '--input', '"x"'], /could not be decoded: Unknown encoding: made\/up/],
  ['raw bytes', ['--input-meta', 'encoding=binary/plain', '--input', '"x"'], /raw bytes, not JSON/],
  ['two inputs', ['--input', '"a"', '--input', '"b"'], /carried state \(second argument, for continue-as-new only\)/],
];

function temporal(...args: string[]) {
  return exec(inject('temporalCliPath'), [...args, '--address', inject('temporalAddress')]);
}

async function historyOf(id: string) {
  const events = (await h.client.workflow.getHandle(id).fetchHistory()).events ?? [];
  return events.map((e) => String(e.eventType));
}

describe('the workflow input contract', () => {
  it('ends every bad input from the stock CLI at once as BadInput, naming the field', async () => {
    h = await createHarness([]);
    const stamp = Date.now().toString(36);
    await h.run(async () => {
      await Promise.all(
        [...BAD.map(([what, json, message]): [string, string[], RegExp] => [what, ['--input', json], message]), ...UNREADABLE].map(
          async ([what, input, message], i) => {
            const id = `bad-${stamp}-${i}`;
            await temporal('workflow', 'start', '--type', 'conversationWorkflow', '--task-queue', h.taskQueue, '--workflow-id', id, ...input);
            const handle = h.hermes.get(id);
            const result = await handle.result();
            expect(result, what).toMatchObject({ status: 'failed', reason: 'BadInput', iterations: 0, modelCalls: 0 });
            expect(result.error, what).toMatch(message);
            conversationResultSchema().parse(result);
            const state = conversationStateSchema().parse(await handle.state());
            expect(state, what).toMatchObject({ status: 'failed', reason: 'BadInput' });
            const d = await handle.workflow.describe();
            // A failed conversation is a FAILED workflow (the reason is the failure type; the result rides in its details).
            expect(d.status.name, what).toBe('FAILED');
            expect(d.searchAttributes.HermesStatus, what).toEqual(['failed']);
            const events = await historyOf(id);
            expect(
              events.filter((e) => /WORKFLOW_TASK_FAILED|ACTIVITY_TASK_SCHEDULED/.test(e)),
              what,
            ).toEqual([]);
          },
        ),
      );
    });
    expect(h.mock.requests).toHaveLength(0);
  });

  it('runs a bare string input as the prompt', async () => {
    h = await createHarness([answer('hello from a string prompt')]);
    const id = `bare-${Date.now().toString(36)}`;
    const result = await h.run(async () => {
      await temporal(
        'workflow',
        'start',
        '--type',
        'conversationWorkflow',
        '--task-queue',
        h.taskQueue,
        '--workflow-id',
        id,
        '--input',
        '"say hello"',
      );
      return h.hermes.get(id).result();
    });
    expect(result).toMatchObject({ status: 'completed', answer: 'hello from a string prompt' });
    expect(h.mock.requests[0]!.messages.at(-1)).toMatchObject({ role: 'user', content: 'say hello' });
  });

  it('checks the input of a Schedule action the same way', async () => {
    h = await createHarness([answer('scheduled answer')]);
    const scheduleId = `contract-${Date.now().toString(36)}`;
    const fire = async (args: unknown[]) => {
      const schedule = await h.client.schedule.create({
        scheduleId: `${scheduleId}-${args.length}-${typeof args[0]}`,
        spec: { intervals: [{ every: '1 day' }] },
        action: { type: 'startWorkflow', workflowType: 'conversationWorkflow', taskQueue: h.taskQueue, args },
        state: { triggerImmediately: true },
      });
      try {
        for (let i = 0; i < 200; i++) {
          const action = (await schedule.describe()).info.recentActions[0];
          if (action) return h.hermes.get(action.action.workflow.workflowId).result();
          await new Promise((r) => setTimeout(r, 100));
        }
        throw new Error('the schedule did not fire');
      } finally {
        await schedule.delete();
      }
    };
    const [bad, good] = await h.run(() => Promise.all([fire([{ prompt: 'x', limits: { maxIterations: -1 } }]), fire(['what is scheduled?'])]));
    expect(bad).toMatchObject({ status: 'failed', reason: 'BadInput', error: expect.stringMatching(/limits\.maxIterations: Too small/) });
    expect(good).toMatchObject({ status: 'completed', answer: 'scheduled answer' });
  });

  it('rejects update arguments that do not parse, with the field, and records nothing', async () => {
    h = await createHarness([toolCall('clarify', { question: 'Which one?' }, 'q1'), answer('done')]);
    const result = await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'ask me' });
      await stateWhen(handle, (s) => s.pendingQuestion !== null);
      for (const args of [{ text: 5 }, { text: '  ' }, 7]) {
        // The reason, not retryable, and no stack trace of the workflow's source for the Web UI to show.
        await expect(handle.workflow.executeUpdate(answerUpdate, { args: [args as never] })).rejects.toMatchObject({
          cause: { message: expect.stringMatching(/^invalid answer: expected \{"text": "..."\}: (text|\(input\)): /), nonRetryable: true, stack: '' },
        });
      }
      await temporal('workflow', 'update', 'execute', '--workflow-id', handle.id, '--name', 'answer', '--input', '"the second one"');
      return handle.result();
    });
    expect(result.status).toBe('completed');
    expect(h.mock.requests[1]!.messages.find((m) => m.role === 'tool')?.content).toBe('the second one');
  });

  it('takes a step cap up to 1,000,000, and 0 for none; 1,000,001 is refused with the field named', () => {
    const limits = (maxIterations: number) => conversationInputSchema().safeParse({ prompt: 'x', limits: { maxIterations } });
    expect(limits(1_000_000).success).toBe(true);
    expect(limits(0).success).toBe(true);
    const over = limits(1_000_001);
    expect(over.success).toBe(false);
    expect(issuesText(over.error!)).toMatch(/^limits\.maxIterations: Too big: expected number to be <=1000000$/);
    expect(issuesText(limits(-1).error!)).toMatch(/^limits\.maxIterations: Too small: expected number to be >=0$/);
  });

  it("names the workflow's signature in a type that starters import instead of the workflow", () => {
    expectTypeOf<typeof conversationWorkflow>().toEqualTypeOf<ConversationWorkflow>();
  });

  it('accepts what the client sends, and the schema derives the types the client uses', () => {
    expect(conversationInputSchema().safeParse({ prompt: 'x', limits: { maxIterations: 5 }, tools: ['files'] }).success).toBe(true);
    expect(conversationInputSchema().safeParse({ mode: 'chat' }).success).toBe(true);
  });
});
