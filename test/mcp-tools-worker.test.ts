// MCP toolsets on a worker (src/tools/mcp): the config file's MCP servers started by a worker, their tools in a
// text-mode conversation, `hermes tools` listing them from another process, and the servers stopped with the
// worker. The toolsets against real MCP servers without Temporal: mcp-tools.test.ts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defineProfile } from '../src/llm/profiles';
import { answer, createHarness } from './helpers/harness';
import { spawnHermes } from './helpers/spawn-hermes';
import { alive, waitFor } from './helpers/wait';

const FIXTURE = path.join(__dirname, 'fixtures/mcp-server.mjs');

describe('MCP tools in a conversation', () => {
  it('a worker starts the config file’s MCP servers; a text-mode model is told about their tools and calls one; hermes tools lists them; the server stops with the worker', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-mcp-wired-'));
    const config = path.join(dir, 'hermes.config.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { fixture: { command: process.execPath, args: [FIXTURE], include: ['echo', 'pid'] } } }));
    const saved = process.env.HERMES_CONFIG;
    process.env.HERMES_CONFIG = config;
    const textMode = (baseURL: string) => ({
      defaultName: 'default',
      profiles: { default: defineProfile('default', { baseURL, model: 'mock-model', toolCallMode: 'text' as const }) },
    });
    const h = await createHarness(
      [
        answer(
          '<tool_call>{"name": "fixture_pid", "arguments": {}}</tool_call>\n<tool_call>{"name": "fixture_echo", "arguments": {"text": "hi"}}</tool_call>',
        ),
        answer('echoed'),
      ],
      textMode,
    );
    try {
      const serverPid = await h.run(async () => {
        const handle = await h.hermes.start({ prompt: 'echo hi' });
        expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'echoed' });
        // Text mode: no `tools` in the request; the system prompt describes the MCP tools next to the built-ins.
        const first = h.mock.requests[0]!;
        expect(first.body.tools).toBeUndefined();
        const system = first.messages[0].content as string;
        expect(system).toContain('{"name":"fixture_echo","description":"Echoes the text back."');
        expect(system).toContain('"name":"read_file"');
        const results = h.mock.requests[1]!.messages.at(-1)!.content as string;
        expect(results).toMatch(/<tool_response>\necho: hi\n<\/tool_response>/);
        // The results in call order: fixture_pid's first.
        const pid = Number(/^<tool_response>\n(\d+)\n/.exec(results)![1]);
        expect(alive(pid)).toBe(true);

        const listed = await spawnHermes(['tools', '--json'], { cwd: dir, env: { HERMES_CONFIG: config, HERMES_HOME: dir } });
        expect(listed.code, listed.stderr).toBe(0);
        const rows = (JSON.parse(listed.stdout) as { tools: Array<{ name: string; source: string; toolset: string; readOnly: boolean }> }).tools;
        expect(rows.filter((r) => r.source === 'mcp:fixture')).toEqual([
          expect.objectContaining({ name: 'fixture_echo', toolset: 'fixture', readOnly: true }),
          expect.objectContaining({ name: 'fixture_pid', toolset: 'fixture', readOnly: false }),
        ]);
        return pid;
      });
      // The worker loaded the catalog, so it stops the servers it started when it stops.
      await waitFor('the MCP server to exit with the worker', () => !alive(serverPid), 10_000);
    } finally {
      if (saved === undefined) delete process.env.HERMES_CONFIG;
      else process.env.HERMES_CONFIG = saved;
      await h.close();
    }
  });
});
