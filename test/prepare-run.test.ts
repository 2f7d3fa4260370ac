// The start's one local activity (src/activities/prepare-run.ts): a check that says no ends it before anything else
// is gathered, a check that cannot run refuses too, and a failed tool list or prompt is reported beside the other
// part rather than failing the start. The workspace check is the worker's real one, on real directories.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareRunActivity } from '../src/activities/prepare-run';
import { createToolActivities } from '../src/activities/tools';
import type { PromptParts } from '../src/shared/system-prompt';
import type { ToolList } from '../src/shared/wire';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'hermes-prepare-'));
const root = mkdtempSync(path.join(tmp, 'root-'));
const outside = mkdtempSync(path.join(tmp, 'outside-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const { checkWorkspace } = createToolActivities({ workspace: root, workspaceRoots: [root] });
const PARTS: PromptParts = { date: '2026-12-06', workspace: root };
const LIST: ToolList = { tools: [], digest: '' };

/** The parts with what each was asked, so a test can tell that a refusal stopped the rest. */
function parts(
  over: Partial<Parameters<typeof prepareRunActivity>[0]> = {},
  opts: { pausesMs?: number[]; deadlineMs?: number } = { pausesMs: [10, 10] },
) {
  const asked: string[] = [];
  const prepare = prepareRunActivity(
    {
      checkWorkspace: (w) => (asked.push('workspace'), checkWorkspace(w)),
      checkSandbox: async () => (asked.push('sandbox'), null),
      listTools: async () => (asked.push('list'), LIST),
      buildSystemPrompt: async () => (asked.push('prompt'), PARTS),
      ...over,
    },
    opts,
  );
  return { prepare, asked };
}

describe('prepareRun', () => {
  it('gathers the list and the prompt once the workspace is one of the worker’s', async () => {
    const { prepare, asked } = parts();
    expect(await prepare({ workspace: root, sandbox: true, catalog: {}, prompt: {} })).toEqual({ toolList: LIST, parts: PARTS });
    expect(asked).toEqual(['workspace', 'sandbox', 'list', 'prompt']);
  });

  it('a workspace outside the worker’s roots refuses the run and nothing else is asked', async () => {
    const { prepare, asked } = parts();
    const r = await prepare({ workspace: outside, sandbox: true, catalog: {}, prompt: {} });
    expect(r.refused?.reason).toBe('BadInput');
    expect(r.refused?.error).toContain(outside);
    expect(r).not.toHaveProperty('parts');
    expect(asked).toEqual(['workspace']);
  });

  it('a sandbox check that cannot run refuses the run', async () => {
    const { prepare } = parts({
      checkSandbox: async () => {
        throw new Error('bwrap probe crashed');
      },
    });
    expect(await prepare({ sandbox: true, prompt: {} })).toEqual({
      refused: { reason: 'SandboxUnavailable', error: 'the sandbox could not be checked: bwrap probe crashed' },
    });
  });

  it('a list that fails is said beside the prompt, a prompt that fails beside the list', async () => {
    const listFails = parts({
      listTools: async () => {
        throw new Error('MCP server gone');
      },
    });
    expect(await listFails.prepare({ catalog: { names: ['x'] }, prompt: {} })).toEqual({ toolListError: 'MCP server gone', parts: PARTS });
    const promptFails = parts({
      buildSystemPrompt: async () => {
        throw new Error('memory unreadable');
      },
    });
    expect(await promptFails.prepare({ catalog: {}, prompt: {} })).toEqual({ toolList: LIST, partsError: 'memory unreadable' });
    // Without a catalog wanted, no list is asked; without a prompt request, no parts.
    const noCatalog = parts();
    expect(await noCatalog.prepare({ prompt: {} })).toEqual({ parts: PARTS });
    expect(noCatalog.asked).toEqual(['prompt']);
    const listOnly = parts();
    expect(await listOnly.prepare({ catalog: {} })).toEqual({ toolList: LIST });
    expect(listOnly.asked).toEqual(['list']);
  });

  it('a part that throws is tried again; one that hangs is cut at the deadline, not the whole activity', async () => {
    let calls = 0;
    const flaky = parts({
      listTools: async () => {
        if (++calls < 3) throw new Error('MCP server starting');
        return LIST;
      },
    });
    expect(await flaky.prepare({ catalog: {}, prompt: {} })).toEqual({ toolList: LIST, parts: PARTS });
    expect(calls).toBe(3);
    const hangs = parts({ buildSystemPrompt: () => new Promise<PromptParts>(() => undefined) }, { pausesMs: [], deadlineMs: 200 });
    expect(await hangs.prepare({ catalog: {}, prompt: {} })).toEqual({ toolList: LIST, partsError: 'no answer within 0.2 s' });
  });
});
