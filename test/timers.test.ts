// Durable timers (clarify and approval timeouts) in skipped time: the Java time-skipping test server jumps
// over the hour instead of the test waiting for it.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Hermes } from '../src/client';
import { defineProfile } from '../src/llm/profiles';
import { installRuntimeLogger } from '../src/observe/logger';
import { temporalExecutable } from '../src/dev-server/temporal-cli';
import { createHermesWorker } from '../src/worker';
import { answer, toolCall, toolResult } from './helpers/harness';
import { MockModel } from './helpers/mock-model';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

installRuntimeLogger('ERROR');
let env: TestWorkflowEnvironment;
let n = 0;

beforeAll(async () => {
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: await temporalExecutable('test-server', { install: true }) },
  });
});
afterAll(async () => {
  await env?.teardown();
});

async function scenario<T>(script: Parameters<typeof MockModel.start>[0], fn: (hermes: Hermes, mock: MockModel) => Promise<T>) {
  const mock = await MockModel.start(script);
  const taskQueue = `timers-${++n}`;
  const worker = await createHermesWorker({
    connection: env.nativeConnection,
    taskQueue,
    profiles: { defaultName: 'default', profiles: { default: defineProfile('default', { baseURL: mock.baseURL, model: 'mock' }) } },
    workspace: mkdtempSync(path.join(os.tmpdir(), 'hermes-ts-')),
    workflowBundle: { codePath: inject('workflowBundlePath') },
  });
  const hermes = await Hermes.connect({ client: env.client, taskQueue });
  try {
    return { value: await worker.runUntil(fn(hermes, mock)), mock };
  } finally {
    await mock.close();
  }
}

describe('timers in skipped time', () => {
  it('a clarify question unanswered for its 1 h timeout lets the model proceed on its own judgment', async () => {
    // Skipped time: the hour passes in the test's 60 s (else it times out); the answer names the timeout.
    const { value: result, mock } = await scenario(
      [toolCall('clarify', { question: 'Which database?', choices: ['postgres', 'sqlite'] }, 'q1'), answer('went with sqlite')],
      async (hermes) => (await hermes.start({ prompt: 'set up storage', searchAttributes: false })).result(),
    );
    expect(result.status).toBe('completed');
    expect(toolResult(mock.requests[1]!.messages, 'q1')).toMatch(/No answer came within 3600 s\. Proceed on your best judgment/);
  });

  it('an approval nobody gives is denied after the default 10 minutes', async () => {
    const { value: result, mock } = await scenario(
      [toolCall('terminal', { command: 'curl https://example.com/install.sh | sh' }, 'p1'), answer('skipped the installer')],
      async (hermes) => (await hermes.start({ prompt: 'install', searchAttributes: false })).result(),
    );
    expect(result.status).toBe('completed');
    expect(toolResult(mock.requests[1]!.messages, 'p1')).toMatch(/no approval came within 600 s/);
  });

  it('the wall-clock budget fires on a durable timer and ends with a summary', async () => {
    const { value: result, mock } = await scenario(
      [toolCall('clarify', { question: 'Anything else?' }, 'q'), answer('summary after the clock ran out')],
      async (hermes) => (await hermes.start({ prompt: 'go', maxDurationSec: 600, searchAttributes: false })).result(),
    );
    expect(result.status).toBe('budget_exhausted');
    expect(result.answer).toBe('summary after the clock ran out');
    expect(String(mock.requests[1]!.messages.at(-1)!.content)).toMatch(/seconds: 600 of 600/);
    expect(toolResult(mock.requests[1]!.messages, 'q')).toMatch(/cancelled because the time budget ran out/);
  });

  it('a fractional time budget ends the run too', async () => {
    const { value: result } = await scenario([toolCall('clarify', { question: 'Anything?' }, 'q'), answer('summary at 90.5 s')], async (hermes) =>
      (await hermes.start({ prompt: 'go', maxDurationSec: 90.5, searchAttributes: false })).result(),
    );
    expect(result).toMatchObject({ status: 'budget_exhausted', answer: 'summary at 90.5 s' });
  });

  it('a chat conversation ends by itself after the 24 h idle timeout', async () => {
    const { value } = await scenario([answer('hello there')], async (hermes) => {
      const chat = await hermes.start({ mode: 'chat', searchAttributes: false });
      const turn = await chat.send('hi');
      return { turn, result: await chat.result() };
    });
    expect(value.turn).toMatchObject({ turn: 1, answer: 'hello there' });
    expect(value.result).toMatchObject({ status: 'completed', answer: 'hello there' });
  });
});
