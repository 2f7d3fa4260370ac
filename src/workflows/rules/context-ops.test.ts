// The pure parts of context compression: one-line summaries of tool results, the first phase's cuts, where the
// protected tail starts, and the summary message's round trip.
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../shared/wire';
import { summaryBody, summaryMessage, summaryRequest } from '../loop/compress-texts';
import { condenseToolOutputs, headEnd, tailStart, toolLine, transcript } from './context-ops';

const call = (id: string, name: string, args: object): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
});
const result = (id: string, content: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content });

describe('toolLine', () => {
  it('says what a command did', () => {
    const out = `${Array.from({ length: 47 }, (_, i) => `line ${i}`).join('\n')}\nexit code: 1`;
    expect(toolLine('terminal', { command: 'npm test' }, out)).toBe('[terminal] npm test → exit 1, 47 lines');
    expect(toolLine('terminal', { command: 'sleep 99' }, 'x\ntimed out after 60 s; the command and its child processes were killed')).toBe(
      '[terminal] sleep 99 → timed out, 1 line',
    );
  });

  it('names the lines a read returned', () => {
    const out = `   1| a\n   2| b\n[lines 1-200 of 340; 140 more — call read_file with offset=201 for the next page]`;
    expect(toolLine('read_file', { path: 'src/app.ts' }, out)).toBe('[read_file] src/app.ts lines 1–200 of 340');
  });

  it('keeps the first line of an error, the tool that ran for a repaired call, and where a full output was saved', () => {
    expect(toolLine('patch', { path: 'a.ts' }, 'Error: no match for "foo" in a.ts\nmore')).toBe('[patch] a.ts → Error: no match for "foo" in a.ts');
    expect(toolLine('Read-File', { path: 'b.txt' }, '(called as "Read-File", ran read_file)\n   1| x\n[lines 1-1 of 1; end of file]')).toBe(
      '[read_file] b.txt lines 1–1 of 1',
    );
    const saved =
      'a\n[... 10 characters omitted ...]\nz\n[full output (90000 characters) saved to .hermes-output/c1.txt; page through it with read_file]';
    expect(toolLine('web_fetch', { url: 'https://x.test/' }, saved)).toBe(
      `[web_fetch] https://x.test/ → 4 lines, ${saved.length} characters, full output (90000 characters) in .hermes-output/c1.txt`,
    );
  });
});

describe('condenseToolOutputs', () => {
  const big = (c: string) => c.repeat(500);
  const messages = (): ChatMessage[] => [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'task' },
    call('a', 'read_file', { path: 'x.ts' }),
    result('a', `${big('a')}\n[lines 1-9 of 9; end of file]`),
    call('t', 'todo', { todos: [] }),
    result('t', `Todo (0/1 done):\n[ ] 1. ${big('t')}`),
    call('w', 'write_file', { path: 'y.ts', content: big('w') }),
    result('w', 'Wrote 500 characters to y.ts'),
    call('b', 'read_file', { path: 'x.ts' }),
    result('b', `${big('a')}\n[lines 1-9 of 9; end of file]`),
    call('c', 'terminal', { command: 'ls' }),
    result('c', big('c')),
  ];

  it('cuts outputs before the tail to a line, de-duplicates, keeps the latest todo list and cuts long arguments', () => {
    const m = messages();
    const end = 10; // the last call and its result are the tail
    expect(condenseToolOutputs(m, end)).toBe(3);
    expect(m[3]).toEqual(result('a', '[read_file] x.ts lines 1–9 of 9 (same output as call b later)'));
    expect(m[5]).toEqual(messages()[5]);
    expect(JSON.parse((m[6] as { tool_calls: Array<{ function: { arguments: string } }> }).tool_calls[0]!.function.arguments)).toEqual({
      path: 'y.ts',
      content: `${'w'.repeat(80)}… [500 characters, cut from the context]`,
    });
    expect(m[7]).toEqual(messages()[7]); // short results stay
    expect(m[9]).toEqual(result('b', '[read_file] x.ts lines 1–9 of 9'));
    expect(m.slice(10)).toEqual(messages().slice(10));
  });
});

describe('boundaries', () => {
  it('never starts the tail between a tool call and its results', () => {
    const m: ChatMessage[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'u' },
      {
        role: 'assistant',
        content: null,
        tool_calls: ['x', 'y', 'z'].map((id) => ({ id, type: 'function' as const, function: { name: 'list_dir', arguments: '{}' } })),
      },
      result('x', '1'),
      result('y', '2'),
      result('z', '3'),
      { role: 'assistant', content: 'done' },
    ];
    expect(tailStart(m, 3)).toBe(2);
    expect(tailStart(m, 3, 3)).toBe(3);
    expect(tailStart(m, 1)).toBe(6);
    expect(headEnd(m)).toBe(2);
    expect(headEnd([{ role: 'system', content: 's' }])).toBe(1);
  });
});

describe('summary messages', () => {
  it('restates open todo items and gives the model-written part back for the next update', () => {
    const todo = [
      { id: '1', content: 'read', status: 'completed' as const },
      { id: '2', content: 'write the tests', status: 'pending' as const },
    ];
    const text = summaryMessage('## Goal\n- build', 12, 1, todo);
    expect(text).toMatch(/^\[Context summary: Hermes compressed 12 earlier messages/);
    expect(text).toContain('[ ] 2. write the tests');
    expect(summaryBody(text)).toBe('## Goal\n- build');
    expect(summaryMessage('b', 1, 1, [todo[0]!])).not.toContain('Todo');
    expect(summaryRequest('task', '## Goal\n- build', 'msgs')).toContain('<previous-summary>\n## Goal\n- build\n</previous-summary>');
  });

  it('fits the transcript into its budget', () => {
    const m: ChatMessage[] = Array.from({ length: 20 }, (_, i) => ({ role: 'user' as const, content: `${i} ${'x'.repeat(5_000)}` }));
    expect(transcript(m, 10_000).length).toBeLessThan(10_200);
    expect(transcript(m, 10_000)).toContain('[user]\n0 xxx');
  });
});
