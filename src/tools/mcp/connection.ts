// One MCP server's connection, restarted when it dies. A dead connection (the stdio process exited, the HTTP
// endpoint stopped answering) is reconnected on the next call: the first attempt at once, then with a doubling
// back-off (1 s … 30 s) while attempts keep failing; a call that finds the server in back-off fails at once
// as retryable, with Temporal's next attempt delayed until the back-off ends.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { ApplicationFailure } from '@temporalio/common';
import path from 'node:path';
import type Stream from 'node:stream';
import { toolEnv } from '../env';
import { ENV_REF, type McpServerConfig } from './schema';

export const McpFailure = {
  /** The server is down or died during the call (retryable). */
  Unavailable: 'McpServerUnavailable',
  Timeout: 'McpTimeout',
} as const;

const BACKOFF_START_MS = 1_000;
const BACKOFF_MAX_MS = 30_000;
const STDERR_LINES = 20;
/** How long a failed start waits for the rest of the server's stderr. */
const STDERR_DRAIN_MS = 500;

/** The SDK's request timeout (its McpError RequestTimeout). */
function isTimeout(err: unknown): boolean {
  return err instanceof McpError && err.code === (ErrorCode.RequestTimeout as number);
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

export type McpLog = (msg: string, meta?: Record<string, unknown>) => void;

export interface ConnectionOptions {
  env: NodeJS.ProcessEnv;
  /** Where a relative `cwd` starts (the config file's directory). */
  baseDir: string;
  log: McpLog;
}

export interface ConnectionStatus {
  server: string;
  transport: 'stdio' | 'http';
  connected: boolean;
  /** Reconnections after the first connection. */
  restarts: number;
  lastError?: string;
  /** Process id of a running stdio server. */
  pid?: number;
}

export class McpConnection {
  private client?: Client;
  private connecting?: Promise<Client>;
  private everConnected = false;
  private failedAttempts = 0;
  private nextAttemptAt = 0;
  private restarts = 0;
  private lastError?: string;
  private pid?: number;
  private readonly stderrTail: string[] = [];
  private stderrStream?: Stream.Readable;

  constructor(
    readonly server: string,
    readonly config: McpServerConfig,
    private readonly options: ConnectionOptions,
  ) {}

  /** The connected client, connecting (or reconnecting) first if needed. */
  async get(): Promise<Client> {
    if (this.client) return this.client;
    if (this.connecting) return this.connecting;
    const wait = this.nextAttemptAt - Date.now();
    if (wait > 0) {
      throw ApplicationFailure.create({
        type: McpFailure.Unavailable,
        message: `MCP server ${this.server} is down (${this.lastError ?? 'not connected'}); next restart attempt in ${Math.ceil(wait / 1000)} s`,
        nextRetryDelay: wait,
      });
    }
    this.connecting = this.connect().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  /** Lists every tool of the server (all pages), each page within the start timeout. */
  async listTools(): Promise<Tool[]> {
    const client = await this.get();
    const tools: Tool[] = [];
    let cursor: string | undefined;
    try {
      do {
        const page = await client.listTools(cursor ? { cursor } : {}, { timeout: this.config.startTimeoutMs });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
    } catch (err) {
      if (!isTimeout(err)) throw err;
      throw new Error(`MCP server ${this.server} did not list its tools within ${seconds(this.config.startTimeoutMs)} (startTimeoutMs)`, {
        cause: err,
      });
    }
    return tools;
  }

  /** Forgets a broken connection (after a failed call); the next call reconnects. */
  markDead(reason: string): void {
    const client = this.client;
    if (!client) return;
    this.client = undefined;
    this.pid = undefined;
    this.lastError = reason;
    this.options.log('MCP server connection lost', { server: this.server, reason });
    void client.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }

  status(): ConnectionStatus {
    return {
      server: this.server,
      transport: this.config.command ? 'stdio' : 'http',
      connected: this.client !== undefined,
      restarts: this.restarts,
      lastError: this.lastError,
      pid: this.pid,
    };
  }

  /** The last lines the stdio server wrote to stderr (for error messages at start). */
  stderr(): string {
    return this.stderrTail.join('\n');
  }

  private async connect(): Promise<Client> {
    const client = new Client({ name: 'hermes-temporal', version: '0.1.0' }, { capabilities: {} });
    let transport: Transport;
    try {
      transport = this.transport();
      // Bounded: the SDK's own default is 60 s, which a server stuck before its answer cost every worker start.
      await client.connect(transport, { timeout: this.config.startTimeoutMs });
    } catch (err) {
      await client.close().catch(() => undefined);
      // A server that exits at once may still be writing its last words: they are what explains it.
      await this.stderrDrained(STDERR_DRAIN_MS);
      this.failedAttempts++;
      this.nextAttemptAt = Date.now() + Math.min(BACKOFF_START_MS * 2 ** (this.failedAttempts - 1), BACKOFF_MAX_MS);
      this.lastError = isTimeout(err)
        ? `it did not answer initialize within ${seconds(this.config.startTimeoutMs)} (startTimeoutMs)`
        : err instanceof Error
          ? err.message
          : String(err);
      throw ApplicationFailure.create({
        type: McpFailure.Unavailable,
        message: `MCP server ${this.server} could not be ${this.everConnected ? 'restarted' : 'started'}: ${this.lastError}`,
      });
    }
    // The process exiting (stdio) or the transport closing ends the connection; in-flight calls are rejected
    // by the SDK with ConnectionClosed, and the next call reconnects.
    client.onclose = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.pid = undefined;
      this.lastError = 'connection closed';
      this.options.log('MCP server connection closed', { server: this.server });
    };
    if (this.everConnected) this.restarts++;
    this.everConnected = true;
    this.failedAttempts = 0;
    this.client = client;
    this.pid = transport instanceof StdioClientTransport ? (transport.pid ?? undefined) : undefined;
    this.options.log(this.restarts ? 'MCP server restarted' : 'MCP server connected', { server: this.server, pid: this.pid });
    return client;
  }

  private transport(): Transport {
    const c = this.config;
    if (c.command) {
      const t = new StdioClientTransport({
        command: c.command,
        args: c.args ?? [],
        // Only the allow-listed part of the worker's environment: an MCP server never sees the worker's keys.
        env: toolEnv(c.env ?? [], {}, this.options.env) as Record<string, string>,
        cwd: c.cwd ? path.resolve(this.options.baseDir, c.cwd) : this.options.baseDir,
        stderr: 'pipe',
      });
      t.stderr?.on('data', (chunk: Buffer) => this.keepStderr(chunk.toString()));
      this.stderrStream = (t.stderr as Stream.Readable | null) ?? undefined;
      return t;
    }
    return new StreamableHTTPClientTransport(new URL(c.url!), { requestInit: { headers: this.headers() } });
  }

  private headers(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(this.config.headers ?? {})) {
      out[name] = value.replace(ENV_REF, (_m, v: string) => {
        const set = this.options.env[v];
        if (set === undefined) throw new Error(`MCP server ${this.server}: header ${name} needs ${v}, which is not set`);
        return set;
      });
    }
    return out;
  }

  /** Resolves once the stdio server's stderr has ended (everything it wrote is kept), or after `ms`. */
  private stderrDrained(ms: number): Promise<void> {
    const stream = this.stderrStream;
    if (!stream || stream.readableEnded || stream.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      stream.once('end', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private keepStderr(text: string): void {
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      this.stderrTail.push(line);
      if (this.stderrTail.length > STDERR_LINES) this.stderrTail.shift();
      this.options.log('MCP server stderr', { server: this.server, line });
    }
  }
}
