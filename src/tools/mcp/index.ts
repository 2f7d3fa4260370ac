// MCP toolsets: configured MCP servers (stdio or streamable HTTP) become ExternalTools, one toolset per server.
export { McpToolsets } from './toolsets';
