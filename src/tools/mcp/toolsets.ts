// MCP toolsets: the worker connects every configured server at start, lists its tools and offers each as an
// ExternalTool named `<server>_<tool>` in the toolset `<server>`. Always prefixed, even when a name is unique:
// a tool's name is recorded in conversation histories, and it must not change because another server was added.
// Results: content blocks as text; a tool's own error (isError) and the server's protocol errors are
// ToolResultErrors the model reads; a dead server, a broken transport or a timeout is a retryable failure, and
// the next call restarts the server.
import { ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { ApplicationFailure } from '@temporalio/common';
import { createHash } from 'node:crypto';
import { logger } from '../../observe/logger';
import { ToolResultError, type ExternalTool, type ExternalToolContext } from '../catalog';
import { flattenContent, type McpCallResult } from './result-text';
import { McpConnection, McpFailure, type ConnectionStatus, type McpLog } from './connection';
import { parseMcpServers } from './schema';

export interface McpToolsetsOptions {
  /** The worker's environment, from which stdio servers get only what their `env` names (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Where relative `cwd`s start (default: the worker's cwd; the loader passes the config file's directory). */
  baseDir?: string;
  log?: McpLog;
  /** Where a skipped optional server is said (default: \`log\` when given, else the logger at warn). */
  warn?: McpLog;
  /** Where the definitions come from, for errors (e.g. "/srv/hermes.config.json: mcpServers"). */
  where?: string;
}

export interface McpServerStatus extends ConnectionStatus {
  /** Tools offered from this server. */
  tools: string[];
}

const ACTIVITY_MARGIN_MS = 5_000;

const defaultLog: McpLog = (msg, meta) => logger.info(meta ?? {}, msg);
const defaultWarn: McpLog = (msg, meta) => logger.warn(meta ?? {}, msg);

/** `<server>_<tool>` with characters outside [a-zA-Z0-9_-] replaced; over 64 characters, shortened with a hash. */
export function mcpToolName(server: string, tool: string): string {
  const name = `${server}_${tool}`.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (name.length <= 64) return name;
  return `${name.slice(0, 55)}_${createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8)}`;
}

export class McpToolsets {
  private readonly connections = new Map<string, McpConnection>();
  private readonly offered = new Map<string, ExternalTool[]>();
  private readonly log: McpLog;
  private readonly warn: McpLog;

  /** `servers`: the config's `mcpServers` (raw or parsed); throws naming the bad field when invalid. */
  constructor(servers: unknown, options: McpToolsetsOptions = {}) {
    this.log = options.log ?? defaultLog;
    this.warn = options.warn ?? options.log ?? defaultWarn;
    for (const [name, config] of Object.entries(parseMcpServers(servers, options.where))) {
      this.connections.set(
        name,
        new McpConnection(name, config, { env: options.env ?? process.env, baseDir: options.baseDir ?? process.cwd(), log: this.log }),
      );
    }
  }

  /**
   * Connects every server and lists its tools. A server that fails fails the start (with its stderr's last
   * lines), unless it is `optional`: then it offers no tools until the worker restarts.
   */
  async start(): Promise<void> {
    const results = await Promise.allSettled([...this.connections.values()].map((c) => this.load(c)));
    const errors: string[] = [];
    results.forEach((r, i) => {
      if (r.status === 'fulfilled') return;
      const conn = [...this.connections.values()][i];
      const reason = r.reason instanceof Error ? r.reason.message : String(r.reason);
      const stderr = conn.stderr() ? `\n  stderr:\n    ${conn.stderr().split('\n').join('\n    ')}` : '';
      // Skipped, an optional server's reason still carries its stderr: a bare "Connection closed" explains nothing.
      if (conn.config.optional) this.warn('MCP server skipped', { server: conn.server, reason, ...(conn.stderr() ? { stderr: conn.stderr() } : {}) });
      else errors.push(`${reason}${stderr}`);
    });
    if (errors.length) {
      await this.close();
      throw new Error(`MCP servers failed to start:\n- ${errors.join('\n- ')}`);
    }
  }

  /** Every tool of every connected server. */
  tools(): ExternalTool[] {
    return [...this.offered.values()].flat();
  }

  status(): McpServerStatus[] {
    return [...this.connections.values()].map((c) => ({ ...c.status(), tools: (this.offered.get(c.server) ?? []).map((t) => t.name) }));
  }

  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.close()));
  }

  private async load(conn: McpConnection): Promise<void> {
    const listed = await conn.listTools();
    const include = conn.config.include;
    const tools = listed.filter((t) => !include || include.includes(t.name)).map((t) => this.externalTool(conn, t));
    this.offered.set(conn.server, tools);
    this.log('MCP server tools', { server: conn.server, tools: tools.map((t) => t.name) });
  }

  private externalTool(conn: McpConnection, tool: Tool): ExternalTool {
    const ro = conn.config.readOnly;
    return {
      name: mcpToolName(conn.server, tool.name),
      description: tool.description ?? tool.title ?? tool.name,
      parameters: withoutSchemaKey(tool.inputSchema),
      readOnly: Array.isArray(ro) ? ro.includes(tool.name) : (ro ?? tool.annotations?.readOnlyHint === true),
      // The SDK's own timeout fires first, so the failure says what happened.
      timeoutMs: conn.config.timeoutMs + ACTIVITY_MARGIN_MS,
      source: `mcp:${conn.server}`,
      toolset: conn.server,
      run: (args, ctx) => callTool(conn, tool.name, args, ctx),
    };
  }
}

/**
 * The input schema without its `$schema` (the SDK's servers declare draft-07): the tool list carries the schema to
 * the model API and to the argument validator, which need no dialect marker and may not know that dialect's URI.
 */
function withoutSchemaKey(schema: Tool['inputSchema']): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
  return rest;
}

async function callTool(conn: McpConnection, tool: string, args: Record<string, unknown>, ctx: ExternalToolContext): Promise<string> {
  const client = await conn.get();
  let result: McpCallResult;
  try {
    result = (await client.callTool({ name: tool, arguments: args }, undefined, {
      signal: ctx.signal,
      timeout: conn.config.timeoutMs,
      onprogress: (p) => ctx.heartbeat(p),
    })) as McpCallResult;
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    throw callFailure(conn, tool, err);
  }
  const text = flattenContent(result);
  if (result.isError) throw new ToolResultError(text || `The MCP tool ${tool} reported an error.`);
  return text || '(no output)';
}

/** What a failed call becomes: the server's answer is a result; a broken connection or timeout a retryable failure. */
function callFailure(conn: McpConnection, tool: string, err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof McpError) {
    if (err.code === (ErrorCode.ConnectionClosed as number)) {
      conn.markDead(message);
      return ApplicationFailure.create({ type: McpFailure.Unavailable, message: `MCP server ${conn.server} died during ${tool}: ${message}` });
    }
    if (err.code === (ErrorCode.RequestTimeout as number)) {
      return ApplicationFailure.create({
        type: McpFailure.Timeout,
        message: `MCP tool ${conn.server}/${tool} timed out after ${conn.config.timeoutMs} ms`,
      });
    }
    // Invalid arguments, unknown tool, the server's internal error: its answer, which the model can act on.
    return new ToolResultError(message);
  }
  // Anything else is the transport failing (a write to a dead process, an HTTP endpoint that went away).
  conn.markDead(message);
  return ApplicationFailure.create({ type: McpFailure.Unavailable, message: `MCP server ${conn.server} failed during ${tool}: ${message}` });
}
