// Custom tool modules end to end: a module from a temporary directory is offered to the model (as recorded data),
// called, validated in the activity; a worker without it answers the call with an error; a module edited on disk
// is what new conversations get while a running one keeps the version it recorded.
import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { temporal } from '@temporalio/proto';
import { catalogFromConfig, type ToolCatalog } from '../src/tools/external';
import { answer, createHarness, toolCall, toolResult, type Harness } from './helpers/harness';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function shoutModule(dir: string, suffix: string): string {
  const file = path.join(dir, 'shout.mjs');
  writeFileSync(
    file,
    `export default ({ defineTool, z }) => defineTool({
  name: 'shout',
  description: 'Returns the text in capitals${suffix}',
  parameters: z.object({ text: z.string().describe('what to shout') }),
  readOnly: true,
  handler: ({ text }, ctx) => text.toUpperCase() + '${suffix} @' + (ctx.workspace.length > 0),
});
`,
  );
  return file;
}

/** The tool list recorded in the start's local activity marker (prepareRun), as JSON. */
function recordedToolList(a: temporal.api.history.v1.IMarkerRecordedEventAttributes): string | undefined {
  const data = a.details?.data?.payloads?.[0]?.data;
  const result = a.details?.result?.payloads?.[0]?.data;
  if (a.markerName !== 'core_local_activity' || !data || !result || !Buffer.from(data).toString().includes('"prepareRun"')) return undefined;
  return JSON.stringify((JSON.parse(Buffer.from(result).toString()) as { toolList?: unknown }).toolList);
}

async function catalogFor(dir: string) {
  const catalog = catalogFromConfig({ tools: { modules: [dir] } }, undefined);
  await catalog.start();
  return catalog;
}

describe('custom tool modules', () => {
  it('are offered to the model as data, called, and their arguments checked against the JSON schema', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-tools-'));
    shoutModule(dir, '!');
    h = await createHarness([
      {
        toolCalls: [
          { name: 'shout', arguments: { text: 'hi' }, id: 'ok' },
          { name: 'shout', arguments: { text: 5 }, id: 'bad' },
        ],
      },
      answer('done'),
    ]);
    const catalog = await catalogFor(dir);
    const result = await h.run(async () => (await h!.hermes.start({ prompt: 'shout hi' })).result(), { catalog });
    expect(result).toMatchObject({ status: 'completed', answer: 'done' });
    const first = h.mock.requests[0]!;
    const shout = first.body.tools.find((t: { function: { name: string } }) => t.function.name === 'shout');
    expect(shout.function).toMatchObject({ description: 'Returns the text in capitals!', parameters: { type: 'object', required: ['text'] } });
    expect(first.tools).toEqual(expect.arrayContaining(['read_file', 'terminal', 'shout']));
    expect(first.messages[0].content).toMatch(/Tools: .*shout/);
    const second = h.mock.requests[1]!.messages;
    expect(toolResult(second, 'ok')).toBe('HI! @true');
    expect(toolResult(second, 'bad')).toMatch(/^Error: invalid arguments for shout: \/text must be string/);
  });

  it('a worker without the tool answers its call with an error; an edited module reaches new conversations only', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-tools-'));
    const file = shoutModule(dir, ' v1');
    h = await createHarness([
      toolCall('shout', { text: 'a' }, 'c1'),
      answer('turn 1 done'),
      toolCall('shout', { text: 'b' }, 'c2'),
      answer('second conversation done'),
      toolCall('shout', { text: 'c' }, 'c3'),
      answer('turn 2 done'),
      toolCall('shout', { text: 'd' }, 'c4'),
      answer('turn 3 done'),
    ]);
    const catalog = await catalogFor(dir);
    const { chat, other } = await h.run(
      async () => {
        const chat = await h!.hermes.start({ mode: 'chat' });
        expect((await chat.send('shout a')).answer).toBe('turn 1 done');
        // Edited on disk (the mtime moves on): conversations started from now on get v2.
        shoutModule(dir, ' v2');
        utimesSync(file, new Date(), new Date(Date.now() + 5_000));
        const other = await h!.hermes.start({ prompt: 'shout b' });
        expect((await other.result()).status).toBe('completed');
        // The chat recorded v1 and keeps it.
        expect((await chat.send('shout c')).answer).toBe('turn 2 done');
        return { chat, other };
      },
      { catalog },
    );
    const req = h.mock.requests;
    expect(toolResult(req[1]!.messages, 'c1')).toBe('A v1 @true');
    expect(toolResult(req[3]!.messages, 'c2')).toBe('B v2 @true');
    expect(req[2]!.body.tools.find((t: { function: { name: string } }) => t.function.name === 'shout').function.description).toMatch(/v2$/);
    expect(toolResult(req[5]!.messages, 'c3')).toBe('C v1 @true');
    expect(other.workflow.workflowId).toBeTruthy();

    // Now a worker that has no custom tools: its model activity still offers the recorded tool (it asks the
    // workflow), and the call is an error result the model reads — the conversation goes on.
    const bare = catalogFromConfig(undefined, undefined);
    await bare.start();
    const turn3 = await h.run(
      async () => {
        const r = await chat.send('shout d');
        await chat.end();
        return r;
      },
      { catalog: bare },
    );
    expect(turn3).toMatchObject({ status: 'completed', answer: 'turn 3 done' });
    expect(req[6]!.tools).toContain('shout');
    expect(toolResult(req[7]!.messages, 'c4')).toMatch(/^Error: shout was not run: the worker that ran this call has no tool named "shout"/);
  });

  it('history cost: the recorded list holds only the catalog tools (measured per conversation)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-tools-'));
    shoutModule(dir, '');
    h = await createHarness([answer('a'), answer('b')]);
    const bytesOfList = async (catalog: ToolCatalog) =>
      h!.run(
        async () => {
          const handle = await h!.hermes.start({ prompt: 'x' });
          await handle.result();
          const history = await handle.workflow.fetchHistory();
          // The start's marker: what the list adds to it.
          const lists = (history.events ?? []).flatMap((e) => {
            const list = e.markerRecordedEventAttributes && recordedToolList(e.markerRecordedEventAttributes);
            return list ? [list] : [];
          });
          expect(lists).toHaveLength(1);
          return Buffer.byteLength(lists[0]!);
        },
        { catalog },
      );
    const empty = await bytesOfList(catalogFromConfig(undefined, undefined));
    const oneTool = await bytesOfList(await catalogFor(dir));
    console.log(`the recorded tool list: ${empty} B (no custom tools), ${oneTool} B (one custom tool)`);
    expect(empty).toBeGreaterThan(0);
    expect(empty).toBeLessThan(500);
    expect(oneTool - empty).toBeLessThan(600);
  });

  it('a config toolset that brings built-in tools: the prompt is built for them (its memory recalled)', async () => {
    h = await createHarness([answer('ok')]);
    const catalog = catalogFromConfig({ toolsets: { notes: ['read_file', 'memory', 'skill_view'] } }, undefined);
    await catalog.start();
    const result = await h.run(async () => (await h!.hermes.start({ prompt: 'x', tools: ['notes'], memoryScope: 'toolset-notes' })).result(), {
      catalog,
    });
    expect(result.status).toBe('completed');
    const first = h.mock.requests[0]!;
    expect(first.tools).toEqual(expect.arrayContaining(['read_file', 'memory', 'skill_view']));
    // Which built-in tools the name brings is known only from the worker's list: the prompt is asked for after it.
    expect(first.messages[0].content).toContain('<memory-context scope="toolset-notes">');
  });

  it('a conversation naming a tool no worker has ends as BadInput', async () => {
    h = await createHarness([]);
    const result = await h.run(async () => (await h!.hermes.start({ prompt: 'x', tools: ['files', 'nope'] })).result());
    expect(result).toMatchObject({ status: 'failed', reason: 'BadInput', error: 'tools: unknown tools or toolsets: nope' });
    expect(h.mock.requests).toHaveLength(0);
  });
});
