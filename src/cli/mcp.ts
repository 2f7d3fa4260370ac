// `hermes mcp`: hermes as an MCP server (src/mcp-server/, docs/guides/mcp-server.md) — over stdio for a client that
// starts it (Claude Desktop, the MCP inspector), or with --http PORT over streamable HTTP at /mcp, with the access
// rules of `hermes serve`. Embedded (no TEMPORAL_ADDRESS) it runs the dev server and a worker in this process.
// Over stdio, stdout carries the protocol alone: every line of ours goes to stderr.
import { parseArgs } from 'node:util';
import { loadProfiles } from '../llm/profiles';
import { TurnsInFlight } from '../http-api/session-view';
import { createMcpServer } from '../mcp-server/server';
import { MCP_PATH, startMcpHttp } from '../mcp-server/http';
import type { McpContext } from '../mcp-server/context';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { checkedWorkspace, UsageError, withHermes } from './common';
import { accessOptions } from './http-api';
import { stopping } from './signals';

export async function mcp(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      http: { type: 'string' },
      host: { type: 'string' },
      token: { type: 'string' },
      tokens: { type: 'string' },
      'allow-origin': { type: 'string', multiple: true },
      'allow-host': { type: 'string', multiple: true },
      'max-concurrent': { type: 'string' },
      workspace: { type: 'string' },
    },
  });
  if (positionals.length) throw new UsageError(`hermes mcp takes no arguments (got "${positionals[0]}")`);
  const http = values.http !== undefined;
  const port = http ? Number(values.http!.trim() || NaN) : undefined;
  if (http && !(Number.isInteger(port) && port! >= 0 && port! <= 65535))
    throw new UsageError(`--http must be a port number (0 for any free one), got "${values.http}"`);
  const httpOnly = (['host', 'token', 'tokens', 'allow-origin', 'allow-host', 'max-concurrent'] as const).find((k) => values[k] !== undefined);
  if (!http && httpOnly) throw new UsageError(`--${httpOnly} is an option of hermes mcp --http PORT (over stdio the local user is the one caller)`);
  const host = values.host ?? '127.0.0.1';
  const access = http ? accessOptions(values, host) : undefined;
  const maxConcurrent = values['max-concurrent'] === undefined ? undefined : Number(values['max-concurrent']);
  if (maxConcurrent !== undefined && !(Number.isInteger(maxConcurrent) && maxConcurrent > 0))
    throw new UsageError('--max-concurrent must be a positive whole number');
  const workspace = checkedWorkspace(values.workspace);
  // Read once, before connecting: a broken config file is said now, not at the first call.
  const set = loadProfiles();
  const log = (line: string) => void process.stderr.write(`hermes mcp: ${line}\n`);
  const context = {
    profiles: { defaultName: set.defaultName, names: Object.keys(set.profiles) },
    defaults: workspace ? { workspace } : {},
    turns: new TurnsInFlight(),
    log,
  } satisfies Omit<McpContext, 'hermes' | 'caller'>;
  return withHermes(
    async (hermes) => {
      const where = hermes.target?.embedded
        ? 'embedded server, worker in this process'
        : `Temporal at ${hermes.address ?? 'the cluster'}, task queue ${hermes.taskQueue}`;
      if (!http) {
        const server = createMcpServer({ ...context, hermes, caller: {} });
        // The client ends the connection by closing our stdin (or by a signal: withHermes ends the wait).
        const closed = new Promise<void>((resolve) => process.stdin.once('end', resolve).once('close', resolve));
        await server.connect(new StdioServerTransport());
        log(`on stdio (${where})`);
        await Promise.race([closed, stopping()]);
        await server.close();
        return 0;
      }
      const s = await startMcpHttp({
        hermes,
        host,
        port: port!,
        ...access,
        ...(maxConcurrent ? { maxConcurrent } : {}),
        context,
      });
      const who = access?.principals
        ? `${access.principals.length} principals, each its own conversations: ${access.principals.map((p) => p.name).join(', ')}`
        : access?.token
          ? 'bearer token required'
          : 'no token: loopback only';
      process.stderr.write(`hermes mcp on ${s.url}${MCP_PATH} (streamable HTTP; ${who}; ${where})\n`);
      await stopping();
      await s.close();
      return 0;
    },
    { ...(workspace ? { workspace } : {}) },
  );
}
