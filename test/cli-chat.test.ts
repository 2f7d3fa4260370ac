// `hermes chat` as a person uses it: type a message, answer the model's clarify question at the inline
// prompt, read the answer, end with an empty line.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { answer, createHarness, toolCall, toolResult, type Harness } from './helpers/harness';
import { waitFor } from './helpers/wait';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

describe('hermes chat', () => {
  it('asks a clarify question inline and prints the answer', async () => {
    h = await createHarness([toolCall('clarify', { question: 'Which name should I use?' }, 'q1'), answer('Hello, Ada Lovelace.')]);
    const { code, stdout } = await h.run(async () => {
      const child = spawn(process.execPath, [path.resolve('bin/hermes.js'), 'chat'], {
        env: { ...process.env, TEMPORAL_ADDRESS: inject('temporalAddress'), HERMES_TASK_QUEUE: h.taskQueue },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      try {
        await waitFor('the chat prompt', () => stderr.includes('you> '));
        child.stdin.write('Greet me by my full name\n');
        await waitFor('the clarify question', () => stderr.includes('? Which name should I use?'));
        child.stdin.write('Ada Lovelace\n');
        await waitFor('the answer', () => stdout.includes('hermes> Hello, Ada Lovelace.'));
        await waitFor('the next prompt', () => stderr.split('you> ').length > 2);
        child.stdin.write('\n');
        return { code: await exited, stdout };
      } finally {
        child.kill();
      }
    });
    expect(code).toBe(0);
    expect(stdout).toContain('hermes> Hello, Ada Lovelace.');
    expect(toolResult(h.mock.requests[1]!.messages, 'q1')).toBe('Ada Lovelace');
    expect(h.mock.requests[0]!.messages.at(-1)).toMatchObject({ role: 'user', content: 'Greet me by my full name' });
  });
});
