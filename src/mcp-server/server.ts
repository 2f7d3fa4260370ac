// One MCP server of hermes for one caller (src/mcp-server/caller.ts): its tools and the transcript resource.
// Over stdio there is one for the process; over HTTP one per request (stateless: no session to lose at a restart).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../shared/paths';
import type { McpContext } from './context';
import { registerSearchTool } from './search-tool';
import { registerStartTask } from './start-task';
import { registerStatusTools } from './status-tools';
import { registerSteerTools } from './steer-tools';
import { registerTranscript } from './transcript';

const INSTRUCTIONS =
  'Hermes runs agent tasks durably on Temporal: start_task returns an id at once; task_result with waitSec waits for the ' +
  'answer (call it again while finished is false); a task may stop to ask (pendingQuestion → answer_question) or for an ' +
  'approval (pendingApprovals → approve). Conversations outlive this connection and the server.';

let version: string | undefined;
/** The package's version, which the server reports in its `initialize` answer. */
function packageVersion(): string {
  return (version ??= (JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version);
}

export function createMcpServer(ctx: McpContext): McpServer {
  const server = new McpServer({ name: 'hermes', version: packageVersion() }, { instructions: INSTRUCTIONS });
  registerStartTask(server, ctx);
  registerStatusTools(server, ctx);
  registerSteerTools(server, ctx);
  registerSearchTool(server, ctx);
  registerTranscript(server, ctx);
  return server;
}
