// MCP toolsets: configured MCP servers (stdio or streamable HTTP) become ExternalTools, one toolset per server.
export { McpToolsets, mcpToolName, type McpServerStatus, type McpToolsetsOptions } from './toolsets';
export { mcpServerSchema, mcpServersSchema, parseMcpServers, type McpServerConfig, type McpServerInput } from './schema';
export { McpFailure } from './connection';
export { flattenContent } from './result-text';
