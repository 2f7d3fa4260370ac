// The steering commands of the `hermes` CLI against a cluster (TEMPORAL_ADDRESS set: no embedded server,
// the test's own worker does the work).
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { ConversationState } from '../src/shared/contract';
import { answer, createHarness, toolCall, toolResult, type Harness } from './helpers/harness';
import { stateWhen } from './helpers/wait';

const exec = promisify(execFile);
let h: Harness;
afterEach(async () => {
  await h?.close();
});

function hermes(...args: string[]) {
  return exec(process.execPath, [path.resolve('bin/hermes.js'), ...args], {
    env: { ...process.env, TEMPORAL_ADDRESS: inject('temporalAddress'), HERMES_TASK_QUEUE: h.taskQueue },
  });
}

describe('hermes CLI steering', () => {
  it('status, answer, approve and interrupt drive a running conversation', async () => {
    h = await createHarness([
      toolCall('clarify', { question: 'Which dir?' }, 'q1'),
      toolCall('terminal', { command: 'rm -rf old' }, 'rm1'),
      toolCall('terminal', { command: 'touch started; sleep 30' }, 's1'),
      answer('redirected and done'),
    ]);
    mkdirSync(path.join(h.workspace, 'old'));
    const result = await h.run(async () => {
      const handle = await h.hermes.start({ prompt: 'tidy up' });
      await stateWhen(handle, (s) => s.pendingQuestion !== null);
      const status = JSON.parse((await hermes('status', handle.id, '--json')).stdout) as ConversationState;
      expect(status.pendingQuestion?.question).toBe('Which dir?');
      const text = (await hermes('status', handle.id)).stdout;
      expect(text).toContain('question (q1): Which dir?');

      await hermes('answer', handle.id, 'the', 'old', 'one');
      await stateWhen(handle, (s) => s.pendingApprovals.length > 0);
      await expect(hermes('answer', handle.id, 'again')).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/no question is pending/) });
      await hermes('approve', handle.id, 'rm1', '--approve');

      await stateWhen(handle, () => existsSync(path.join(h.workspace, 'started')));
      await hermes('interrupt', handle.id, '--message', 'forget it, answer now');
      return handle.result();
    });
    expect(result.status).toBe('completed');
    expect(toolResult(h.mock.requests[1]!.messages, 'q1')).toBe('the old one');
    expect(existsSync(path.join(h.workspace, 'old'))).toBe(false);
    expect(h.mock.requests[3]!.messages.at(-1)!.content).toBe('forget it, answer now');
  });
});
