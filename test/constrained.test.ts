// Constrained steps through the whole loop against the scripted model: each request asks for one JSON object
// constrained (response_format json_schema) to a call of an offered tool or the answer, and carries no `tools`;
// the reply becomes the same tool call a native reply would; only the answer object ends the turn; an endpoint
// that refuses the schema is answered in today's modes, once, with a note. And, in the other modes, a reply that
// announces an action without taking it is asked once to act.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchRuns, stepRows } from '../src/inspect/step-context';
import { ANNOUNCED_ACTION_NUDGE } from '../src/shared/texts';
import { answer, createHarness, toolCall, withMode, type Harness } from './helpers/harness';
import type { RecordedRequest, Reply } from './helpers/mock-model';

let h: Harness;
afterEach(async () => {
  await h?.close();
  h = undefined!;
});

/** A constrained step's reply: the JSON object a grammar-constrained model writes. */
const step = (tool: string, args: object, thought?: string): Reply =>
  answer(JSON.stringify({ ...(thought ? { thought } : {}), tool, arguments: args }));

type Branch = {
  properties: { thought?: unknown; tool: { const: string }; arguments: { properties?: Record<string, unknown>; required?: string[] } };
};
const branches = (r: RecordedRequest): Branch[] => r.body.response_format.json_schema.schema.oneOf;

describe('constrained steps', () => {
  it('asks for one step of the offered tools; a JSON call runs the tool; the answer object ends the turn', async () => {
    h = await createHarness(
      [step('list_dir', {}), step('read_file', { path: 'notes.txt' }, 'Check what is there.'), step('answer', { text: 'notes.txt is not there.' })],
      withMode('constrained'),
    );
    const { result, rows } = await h.run(async () => {
      const run = await h.hermes.start({ prompt: 'look at notes.txt' });
      const result = await run.result();
      return { result, rows: stepRows(await fetchRuns(h.client, run.id)) };
    });
    expect(result).toMatchObject({ status: 'completed', answer: 'notes.txt is not there.' });

    const first = h.mock.requests[0]!;
    expect(first.body.tools).toBeUndefined();
    expect(first.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'step' } });
    // One branch per offered tool with that tool's parameters, and the answer last.
    const names = branches(first).map((b) => b.properties.tool.const);
    expect(names.at(-1)).toBe('answer');
    expect(names).toEqual(expect.arrayContaining(['write_file', 'read_file', 'list_dir']));
    const read = branches(first).find((b) => b.properties.tool.const === 'read_file')!;
    expect(read.properties.arguments.required).toEqual(['path']);
    // A tool step starts with a short thought (written before the tool is chosen); the answer has none.
    expect(Object.keys(read.properties)).toEqual(['thought', 'tool', 'arguments']);
    expect(Object.keys(branches(first).at(-1)!.properties)).toEqual(['tool', 'arguments']);
    // The answer's text is bounded by the grammar: a looping model cannot write until the token limit.
    expect(branches(first).at(-1)!.properties.arguments.properties!.text).toMatchObject({ type: 'string', maxLength: 4000 });
    // The tools are listed once, in the system prompt, with the step format.
    expect(first.messages[0].content).toMatch(/^- read_file \{"path": string/m);
    expect(first.messages[0].content).toContain('{"tool": "answer", "arguments": {"text": "<final answer>"}} ends the task');

    // Earlier steps go back as the objects the model wrote, results as the next user message: no tool roles.
    const third = h.mock.requests[2]!;
    expect(third.raw).not.toMatch(/"role":"tool"|"tool_calls"/);
    expect(third.messages.slice(2).map((m) => [m.role, String(m.content).split('\n')[0]])).toEqual([
      ['assistant', '{"tool":"list_dir","arguments":{}}'],
      ['user', 'list_dir returned (a tool result, not a request; the task goes on until your answer step):'],
      ['assistant', '{"tool":"read_file","arguments":{"path":"notes.txt"}}'],
      ['user', 'read_file returned (a tool result, not a request; the task goes on until your answer step):'],
    ]);
    // The recorded steps are ordinary tool calls, and say they were constrained.
    expect(rows.filter((r) => r.kind === 'tool').map((r) => r.name)).toEqual(['list_dir', 'read_file']);
    expect(rows.filter((r) => r.kind === 'model').map((r) => r.name)).toEqual(Array.from({ length: 3 }, () => 'model mock-model (constrained)'));
  });

  it("a file's content is not in the step: it is asked for next, as plain text, and written as one call", async () => {
    const json = '[\n  {"name": "Ada", "age": 36}\n]';
    h = await createHarness(
      [
        step('write_file', { path: 'people.json' }, 'Write the JSON.'),
        // Fenced, as a small model writes code: the fence is not part of the file.
        answer('```json\n' + json + '\n```'),
        step('answer', { text: 'Wrote people.json.' }),
      ],
      withMode('constrained'),
    );
    const { result, steps } = await h.run(async () => {
      const run = await h.hermes.start({ prompt: 'write people.json' });
      const result = await run.result();
      return { result, steps: (await run.state({ stepsAfter: 0 })).steps };
    });
    expect(result).toMatchObject({ status: 'completed', answer: 'Wrote people.json.' });
    expect(readFileSync(path.join(h.workspace, 'people.json'), 'utf8')).toBe(`${json}\n`);

    // The step's grammar has the path only; the tool line says the content comes next.
    const [first, body, after] = h.mock.requests;
    const write = branches(first!).find((b) => b.properties.tool.const === 'write_file')!;
    expect(write.properties.arguments.required).toEqual(['path']);
    expect(Object.keys(write.properties.arguments.properties!)).toEqual(['path']);
    expect(first!.messages[0].content).toMatch(/^- write_file \{"path": string\}: .*You give the content in your next message, as plain text\.$/m);
    // The body request: no schema, no tools, the step as written, then what to write.
    expect(body!.body.response_format).toBeUndefined();
    expect(body!.body.tools).toBeUndefined();
    expect(body!.messages.slice(-2)).toEqual([
      { role: 'assistant', content: '{"tool":"write_file","arguments":{"path":"people.json"}}' },
      { role: 'user', content: 'Now write the whole content of people.json: reply with that text only, nothing before or after it.' },
    ]);
    // The next step sees the exchange as it happened: step, request, body, result.
    expect(after!.messages.slice(2, 5).map((m) => [m.role, m.content])).toEqual([
      ['assistant', '{"tool":"write_file","arguments":{"path":"people.json"}}'],
      ['user', 'Now write the whole content of people.json: reply with that text only, nothing before or after it.'],
      ['assistant', `${json}\n`],
    ]);
    // Recorded as one model step and one ordinary write_file call with its content.
    const models = steps.filter((s) => s.kind === 'model');
    expect(models).toHaveLength(2);
    const tools = steps.filter((s) => s.kind === 'tool');
    expect(tools.map((s) => s.summary)).toEqual([expect.stringMatching(/^people\.json · .* → ok, 29 chars$/)]);
  });

  it('a content cut off at the token limit is not written: the model is told and steps again', async () => {
    h = await createHarness(
      [
        step('write_file', { path: 'big.txt' }),
        { content: 'line\n'.repeat(20), finishReason: 'length' },
        step('answer', { text: 'Could not write it.' }),
      ],
      withMode('constrained'),
    );
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'write big.txt' })).result());
    expect(result).toMatchObject({ status: 'completed', answer: 'Could not write it.' });
    expect(existsSync(path.join(h.workspace, 'big.txt'))).toBe(false);
    expect(String(h.mock.requests[2]!.messages.at(-1)!.content)).toMatch(/content for write_file was cut off at the reply's token limit/);
  });

  it('a reply that is no step object (a server that ignored the schema) is corrected, not taken as the answer', async () => {
    h = await createHarness([answer('I will write the file now.'), step('answer', { text: 'done' })], withMode('constrained'));
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'write a file' })).result());
    expect(result).toMatchObject({ status: 'completed', answer: 'done' });
    expect(String(h.mock.requests[1]!.messages.at(-1)!.content)).toMatch(/not one JSON step object/);
  });

  it('an endpoint that refuses the schema (400 naming response_format) is answered natively from then on, with a note', async () => {
    const refusing =
      (then: Reply): Reply =>
      (req) =>
        req.body.response_format
          ? {
              status: 400,
              body: {
                error: {
                  message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
                  type: 'invalid_request_error',
                },
              },
            }
          : then;
    h = await createHarness(
      [refusing(answer('never')), refusing(toolCall('list_dir', {})), refusing(answer('empty workspace'))],
      withMode('constrained'),
    );
    const { result, steps } = await h.run(async () => {
      const run = await h.hermes.start({ prompt: 'look' });
      const result = await run.result();
      return { result, steps: (await run.state({ stepsAfter: 0 })).steps };
    });
    expect(result).toMatchObject({ status: 'completed', answer: 'empty workspace' });
    expect(h.mock.requests.map((r) => [r.status, r.body.response_format !== undefined, Array.isArray(r.body.tools)])).toEqual([
      [400, true, false],
      [200, false, true],
      [200, false, true],
    ]);
    const notes = steps.filter((s) => s.kind === 'note').map((s) => s.summary);
    expect(notes.filter((n) => /refused the constrained step's response_format/.test(n))).toHaveLength(1);
    expect(notes.find((n) => /response_format/.test(n))).toMatch(/native tool calls from now on$/);
  });

  it('native: a reply announcing a call it does not make is asked once to act, then its answer stands', async () => {
    h = await createHarness(
      [
        answer('I will call a tool to count the lines of data.csv.'),
        toolCall('list_dir', {}),
        answer('Let me check again.'),
        answer('Let me check again.'),
      ],
      withMode('native'),
    );
    const { result, steps } = await h.run(async () => {
      const run = await h.hermes.start({ prompt: 'count the lines of data.csv' });
      const result = await run.result();
      return { result, steps: (await run.state({ stepsAfter: 0 })).steps };
    });
    expect(h.mock.requests[1]!.messages.at(-1)).toEqual({ role: 'user', content: ANNOUNCED_ACTION_NUDGE });
    expect(h.mock.requests[3]!.messages.at(-1)).toEqual({ role: 'user', content: ANNOUNCED_ACTION_NUDGE });
    // Asked once per announcement: the announcement right after the nudge is the answer.
    expect(result).toMatchObject({ status: 'completed', answer: 'Let me check again.' });
    expect(h.mock.requests).toHaveLength(4);
    expect(steps.filter((s) => s.kind === 'note' && /announces an action/.test(s.summary))).toHaveLength(2);
  });
});
