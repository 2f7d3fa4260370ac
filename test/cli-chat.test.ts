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

/** `hermes chat` against the harness's task queue, its output collected as it comes. */
function chatProcess() {
  const child = spawn(process.execPath, [path.resolve('bin/hermes.js'), 'chat'], {
    env: { ...process.env, TEMPORAL_ADDRESS: inject('temporalAddress'), HERMES_TASK_QUEUE: h.taskQueue },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d) => (out.stdout += d));
  child.stderr.on('data', (d) => (out.stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { child, out, exited };
}

/** An AWS access key id's shape: redacted from what is typed (src/security/user-input.ts). */
const KEY = 'AKIAZ3Q7X5R2M9K4L8PD';

describe('hermes chat', () => {
  it('asks a clarify question inline and prints the answer', async () => {
    h = await createHarness([toolCall('clarify', { question: 'Which name should I use?' }, 'q1'), answer('Hello, Ada Lovelace.')]);
    const { code, stdout } = await h.run(async () => {
      const { child, out, exited } = chatProcess();
      try {
        await waitFor('the chat prompt', () => out.stderr.includes('you> '));
        child.stdin.write('Greet me by my full name\n');
        await waitFor('the clarify question', () => out.stderr.includes('? Which name should I use?'));
        child.stdin.write('Ada Lovelace\n');
        await waitFor('the answer', () => out.stdout.includes('hermes> Hello, Ada Lovelace.'));
        await waitFor('the next prompt', () => out.stderr.split('you> ').length > 2);
        child.stdin.write('\n');
        return { code: await exited, stdout: out.stdout };
      } finally {
        child.kill();
      }
    });
    expect(code).toBe(0);
    expect(stdout).toContain('hermes> Hello, Ada Lovelace.');
    expect(toolResult(h.mock.requests[1]!.messages, 'q1')).toBe('Ada Lovelace');
    expect(h.mock.requests[0]!.messages.at(-1)).toMatchObject({ role: 'user', content: 'Greet me by my full name' });
  });

  it('takes piped lines in order, one per question, and ends at the end of the input', async () => {
    h = await createHarness([
      answer('first answer'),
      toolCall('clarify', { question: 'Which file?' }, 'q1'),
      answer('second answer'),
      answer('third answer'),
    ]);
    const { code, stdout, stderr } = await h.run(async () => {
      const { child, out, exited } = chatProcess();
      // Everything at once, then the end of the input: as `hermes chat < questions.txt` does.
      child.stdin.end(`one ${KEY}\ntwo\nnotes.txt\nthree\n`);
      try {
        const code = await exited;
        return { code, ...out };
      } finally {
        child.kill();
      }
    });
    expect(code, stderr).toBe(0);
    expect(stdout.split('\n').filter((l) => l.startsWith('hermes> '))).toEqual([
      'hermes> first answer',
      'hermes> second answer',
      'hermes> third answer',
    ]);
    const users = h.mock.requests.map((r) => r.messages.filter((m: { role: string }) => m.role === 'user').at(-1)?.content);
    expect(users).toEqual(['one [REDACTED:aws-access-key-id]', 'two', 'two', 'three']);
    // The lines are echoed after their prompts as a terminal shows them, redacted as sent.
    expect(stderr).toContain('you> one [REDACTED:aws-access-key-id]\n');
    expect(stderr).not.toContain(KEY);
    expect(toolResult(h.mock.requests[2]!.messages, 'q1')).toBe('notes.txt');
    expect(stderr).not.toContain('readline was closed');
  });
});
