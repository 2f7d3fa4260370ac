// MCP servers in the config file, by name: a stdio command the worker starts, or a streamable-HTTP URL. Secrets
// stay in the worker's environment: a stdio server gets only the variables `env` names (plus the base list of
// src/tools/env.ts), and HTTP headers refer to variables as ${NAME}. Not imported by workflow code.
import { z } from 'zod';

const SERVER_NAME = /^[a-zA-Z0-9_-]{1,32}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const ENV_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;
/** ${NAME} in a header value: replaced by that variable of the worker's environment. */
export const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function httpUrlProblem(s: string): string | undefined {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:' ? undefined : 'expected an http or https URL';
  } catch {
    return 'expected an absolute URL';
  }
}

export const mcpServerSchema = z
  .strictObject({
    command: z.string().min(1).optional().describe('stdio: the program to start (looked up on PATH)'),
    args: z.array(z.string()).optional().describe('stdio: its arguments'),
    env: z
      .array(z.string().refine((s) => ENV_PATTERN.test(s), 'expected a variable name, or a prefix ending in *'))
      .optional()
      .describe("stdio: worker variables the server also gets (NAME or PREFIX*); never the worker's whole environment"),
    cwd: z.string().optional().describe('stdio: working directory (relative to the config file)'),
    url: z
      .string()
      .superRefine((s, ctx) => {
        const problem = httpUrlProblem(s);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .optional()
      .describe('streamable HTTP: the endpoint URL'),
    headers: z
      .record(
        z.string().refine((s) => HEADER_NAME.test(s), 'expected an HTTP header name'),
        z.string(),
      )
      .optional()
      .describe('streamable HTTP: request headers; ${NAME} is replaced by the worker variable NAME'),
    timeoutMs: z.number().int().min(1).max(3_600_000).default(60_000).describe('one tool call; progress notifications heartbeat the activity'),
    startTimeoutMs: z
      .number()
      .int()
      .min(1)
      .max(600_000)
      .default(10_000)
      .describe("the server's answer to initialize and to the tool listing at start (a stuck server then fails, or is skipped when optional)"),
    readOnly: z
      .union([z.boolean(), z.array(z.string())])
      .optional()
      .describe("which tools are read-only: all, none, or these names (default: the tool's readOnlyHint annotation)"),
    include: z.array(z.string()).optional().describe("offer only these of the server's tools"),
    optional: z.boolean().default(false).describe('a server that cannot be reached at start is skipped (logged) instead of failing the start'),
  })
  .superRefine((s, ctx) => {
    if (!s.command === !s.url) ctx.addIssue({ code: 'custom', path: [], message: 'expected either "command" (stdio) or "url" (streamable HTTP)' });
    if (s.url) {
      for (const key of ['args', 'env', 'cwd'] as const) {
        if (s[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: `"${key}" is for stdio servers (with "command")` });
      }
    }
    if (s.command && s.headers) ctx.addIssue({ code: 'custom', path: ['headers'], message: '"headers" is for HTTP servers (with "url")' });
  });

export const mcpServersSchema = z.record(
  z.string().refine((s) => SERVER_NAME.test(s), 'expected a server name of 1-32 letters, digits, _ or -'),
  mcpServerSchema,
);

export type McpServerConfig = z.output<typeof mcpServerSchema>;

/** Parsed servers, or an Error naming every bad field (`where` prefixes the paths, e.g. "hermes.config.json: mcpServers"). */
export function parseMcpServers(input: unknown, where = 'mcpServers'): Record<string, McpServerConfig> {
  const parsed = mcpServersSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new Error(`Invalid MCP server definitions in ${where}:\n${z.prettifyError(parsed.error)}`);
}
