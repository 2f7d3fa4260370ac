// The whole loop on each transport (src/llm/transports/): a three-step tool task — write a file, read it back,
// answer — runs against the transport's scripted server (chat completions: helpers/mock-model.ts; the Responses
// API: helpers/scripted-responses.ts; Anthropic Messages: helpers/scripted-messages.ts), streamed and not, and
// ends the same way; what the workflow records does not depend on the transport; a 401 fails the run as
// ModelAuth on each.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defineProfile, type ModelProfile } from '../src/llm/profiles';
import type { ModelCallResult } from '../src/shared/wire';
import { createHarness, type Harness } from './helpers/harness';
import type { ErrorReply, SuccessReply } from './helpers/mock-model';
import { ScriptedMessages } from './helpers/scripted-messages';
import { ScriptedResponses } from './helpers/scripted-responses';
import type { ScriptedServer } from './helpers/scripted-server';

type Transport = ModelProfile['transport'];
/** A reply every scripted server takes. */
type Step = Pick<SuccessReply, 'content' | 'toolCalls' | 'reasoning'> | ErrorReply;

const TASK: Step[] = [
  {
    toolCalls: [{ id: 'call_w', name: 'write_file', arguments: { path: 'notes.txt', content: 'hello transports\n' } }],
    reasoning: 'First write the file.',
  },
  { toolCalls: [{ id: 'call_r', name: 'read_file', arguments: { path: 'notes.txt' } }] },
  { content: 'notes.txt says: hello transports' },
];

let h: Harness | undefined;
let scripted: ScriptedServer | undefined;
afterEach(async () => {
  await h?.close();
  await scripted?.close();
  h = scripted = undefined;
});

/** A harness whose default profile speaks `transport` to its scripted server (chat: the harness's own mock). */
async function harnessFor(
  transport: Transport,
  script: Step[],
  stream: boolean,
): Promise<{ h: Harness; requests: () => Array<{ body: any; headers: any }> }> {
  if (transport === 'chat') {
    h = await createHarness(script, (baseURL) => ({
      defaultName: 'default',
      profiles: { default: defineProfile('default', { baseURL, model: 'm', stream }) },
    }));
    return { h, requests: () => h!.mock.requests };
  }
  scripted = await (transport === 'responses' ? ScriptedResponses : ScriptedMessages).start(script);
  const baseURL = scripted.baseURL;
  h = await createHarness([], () => ({
    defaultName: 'default',
    profiles: { default: defineProfile('default', { baseURL, model: 'm', transport, stream }) },
  }));
  return { h, requests: () => scripted!.requests };
}

/** The text of the result the request carries for call `id`, however the transport's wire format holds it. */
function resultText(transport: Transport, body: any, id: string): string | undefined {
  if (transport === 'chat') return body.messages.find((m: any) => m.role === 'tool' && m.tool_call_id === id)?.content;
  if (transport === 'responses') return body.input.find((i: any) => i.type === 'function_call_output' && i.call_id === id)?.output;
  const blocks = body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : []));
  return blocks.find((b: any) => b.type === 'tool_result' && b.tool_use_id === id)?.content;
}

/** The model activity's results as the history holds them. */
async function modelResults(h: Harness, id: string): Promise<ModelCallResult[]> {
  const history = await h.client.workflow.getHandle(id).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const data = e.activityTaskCompletedEventAttributes?.result?.payloads?.[0]?.data;
    const v = data ? (JSON.parse(Buffer.from(data).toString('utf8')) as Partial<ModelCallResult>) : undefined;
    return v?.message && v.usage ? [v as ModelCallResult] : [];
  });
}

const TRANSPORTS: Transport[] = ['chat', 'responses', 'anthropic'];

describe.each(TRANSPORTS)('the loop over %s', (transport) => {
  it.each([false, true])('runs a three-step tool task (streamed: %s)', async (stream) => {
    const { h, requests } = await harnessFor(transport, TASK, stream);
    const { id, result } = await h.run(async () => {
      const run = await h.hermes.start({ prompt: 'Write notes.txt, read it back and tell me what it says.' });
      return { id: run.id, result: await run.result() };
    });
    expect(result).toMatchObject({ status: 'completed', answer: 'notes.txt says: hello transports' });
    expect(readFileSync(path.join(h.workspace, 'notes.txt'), 'utf8')).toBe('hello transports\n');
    const sent = requests();
    expect(sent).toHaveLength(3);
    expect(sent.every((r) => (r.body.stream === true) === stream)).toBe(true);
    // Each result went back paired with its call; the second step's reasoning did not.
    expect(resultText(transport, sent[1]!.body, 'call_w')).toMatch(/notes\.txt/);
    expect(resultText(transport, sent[2]!.body, 'call_r')).toContain('hello transports');
    expect(JSON.stringify(sent[1]!.body)).not.toContain('First write the file.');
    scripted?.assertDone();
    // What the workflow recorded: the same lean results, field for field, on every transport.
    const recorded = (await modelResults(h, id)).map((r) => ({
      ...r,
      message: {
        ...r.message,
        tool_calls: r.message.tool_calls?.map((c) => ({ ...c, function: { ...c.function, arguments: JSON.parse(c.function.arguments) as unknown } })),
      },
    }));
    const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15, costUsd: 0 };
    const call = (id: string, name: string, args: object) => ({
      content: null,
      tool_calls: [{ id, type: 'function', function: { name, arguments: args } }],
    });
    expect(recorded).toEqual([
      {
        message: call('call_w', 'write_file', { path: 'notes.txt', content: 'hello transports\n' }),
        usage: { ...usage, reasoningTokens: 6 },
        reasoning: { text: 'First write the file.', chars: 21 },
        model: 'm',
        contextWindow: 128_000,
      },
      { message: call('call_r', 'read_file', { path: 'notes.txt' }), usage, model: 'm' },
      { message: { content: 'notes.txt says: hello transports', tool_calls: undefined }, usage, model: 'm' },
    ]);
  });

  it('fails the run as ModelAuth on a 401, after one attempt', async () => {
    const { h, requests } = await harnessFor(transport, [{ status: 401 }], false);
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'go' })).result());
    expect(result).toMatchObject({ status: 'failed', reason: 'ModelAuth' });
    expect(requests()).toHaveLength(1);
  });
});
