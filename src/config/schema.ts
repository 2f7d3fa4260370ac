// The config file's schema (hermes.config.json / .mjs / .js / .ts): one place for every section, validated at
// load so a bad file stops the worker or the CLI with the file, the path of the bad field and what was expected.
import { z } from 'zod';
import { limitsSchema } from '../shared/contract';
import { compilePattern } from '../security/redact';
import { validAllowEntry } from '../tools/web_fetch/address-policy';

export const TOOL_CALL_MODES = ['native', 'text', 'constrained', 'auto'] as const;
export type ToolCallMode = (typeof TOOL_CALL_MODES)[number];

/** The wire protocols a profile can speak (src/llm/transports/). */
export const TRANSPORTS = ['chat', 'responses', 'anthropic'] as const;
export type TransportName = (typeof TRANSPORTS)[number];

/** The key variable a profile reads when it names none: the one its transport's SDK reads. */
export function defaultKeyEnv(transport: TransportName): string {
  return transport === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY';
}

export function profileSchema() {
  return z
    .object({
      // http(s) only: `localhost:11434/v1` parses as a URL of scheme "localhost:" and would fail every call, retried.
      baseURL: z
        .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL, e.g. http://localhost:11434/v1' })
        .describe('The endpoint, e.g. https://api.openai.com/v1 (anthropic: https://api.anthropic.com)'),
      model: z.string().min(1).describe('Model name sent to the endpoint'),
      transport: z
        .enum(TRANSPORTS)
        .default('chat')
        .describe('Wire protocol: chat (chat completions), responses (the OpenAI Responses API), anthropic (Anthropic Messages)'),
      apiKeyEnv: z
        .string()
        .optional()
        .describe('Name of the env var holding the API key (default OPENAI_API_KEY; ANTHROPIC_API_KEY for the anthropic transport)'),
      contextWindow: z.number().int().positive().default(128_000).describe('Context window in tokens'),
      temperature: z
        .number()
        .min(0)
        .max(2)
        .default(0.3)
        .describe('Sampling temperature (not sent on the anthropic transport: its API version takes none)'),
      maxTokens: z
        .number()
        .int()
        .positive()
        .optional()
        .describe('Max completion tokens per call (the anthropic transport needs one: 4,096 when unset)'),
      timeoutMs: z.number().int().positive().default(300_000).describe('HTTP timeout of one model call'),
      inputPricePerMTok: z.number().nonnegative().default(0).describe('USD per million prompt tokens'),
      outputPricePerMTok: z.number().nonnegative().default(0).describe('USD per million completion tokens'),
      toolCallMode: z
        .enum(TOOL_CALL_MODES)
        .default('auto')
        .describe(
          'native: send `tools`; text: describe the tools in the system prompt and parse calls from the text; constrained: each step is one JSON object the endpoint constrains to a call of an offered tool or the answer (response_format json_schema); auto: constrained for a small model on a local server that takes schemas, else native, text once the server rejects or ignores `tools`',
        ),
      stream: z
        .boolean()
        .default(true)
        .describe('Ask the endpoint to stream the reply, so watchers see it as it is written (a server that cannot is asked plainly)'),
      small: z
        .boolean()
        .optional()
        .describe(
          'A small model: shown only the core tools (files, terminal, todo, clarify) and tool_search for the rest; default: a context window of at most 16,384 tokens',
        ),
      fallbacks: z
        .array(z.string().min(1))
        .optional()
        .describe('Profiles to continue on, in order, when this one stays unavailable (5xx, 429, timeouts) after its retries'),
    })
    .transform((p) => ({ ...p, apiKeyEnv: p.apiKeyEnv ?? defaultKeyEnv(p.transport) }));
}

const envName = () =>
  z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*\*?$/, 'a variable name, or a prefix ending in *')
    .describe('Environment variable name (PREFIX* for all with that prefix)');

const pattern = () =>
  z.string().refine(
    (p) => {
      try {
        compilePattern(p);
        return true;
      } catch {
        return false;
      }
    },
    { message: 'not a valid regular expression' },
  );

const toolName = () => z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'a tool name: letters, digits, _ and -, at most 64');

export function configSchema() {
  return z.strictObject({
    defaultProfile: z.string().optional(),
    profiles: z.record(z.string(), profileSchema()).default({}),
    /** Defaults the client writes into conversations it starts (hermes run, chat, hermes.start); per-call options win. */
    limits: limitsSchema().partial().optional(),
    tools: z
      .strictObject({
        /** Custom tool modules: files, or directories whose *.mjs/*.js/*.cjs/*.ts files are all loaded. Relative to the config file. */
        modules: z.array(z.string().min(1)).optional(),
      })
      .optional(),
    /** Named groups of tool and toolset names a conversation can ask for, like the built-in `files` or `web`. */
    toolsets: z.record(toolName(), z.array(z.string().min(1)).min(1)).optional(),
    /** Declarative HTTP tools; their schema is checked by the HTTP tool loader (src/tools/http). */
    httpTools: z.array(z.unknown()).optional(),
    /** MCP servers by name; their schema is checked by the MCP loader (src/tools/mcp). */
    mcpServers: z.record(z.string(), z.unknown()).optional(),
    /** Defaults for `hermes schedule add` and task_register, and where webhooks may deliver. */
    schedules: z
      .strictObject({
        timezone: z.string().min(1).optional(),
        webhookAllowPrivate: z.boolean().optional().describe('Webhooks may be delivered to loopback, private and link-local addresses'),
        webhookAllowHosts: z
          .array(z.string().refine(validAllowEntry, { message: 'a host name, *.domain, an IP address or a CIDR range' }))
          .optional()
          .describe('Hosts, *.domains, IP addresses and CIDR ranges webhooks may be delivered to although they are not public'),
      })
      .optional(),
    passEnv: z.array(envName()).optional().describe('Worker variables terminal commands get besides the allow-list (PATH, HOME, LANG, LC_*…)'),
    redact: z
      .strictObject({
        patterns: z.array(pattern()).optional().describe('Regular expressions (source or /source/flags) redacted as [REDACTED:pattern]'),
        values: z.array(z.string().min(1)).optional().describe('Literal values redacted as [REDACTED:value]'),
      })
      .optional(),
    /** Skill folders (agentskills.io SKILL.md) besides the workspace's .hermes/skills and ~/.hermes/skills, and the skills store's name. */
    skills: z
      .strictObject({
        dirs: z.array(z.string().min(1)).optional().describe('Folders of skill folders, relative to the config file'),
        store: z
          .string()
          .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'letters, digits, . _ -, starting with a letter or digit')
          .optional()
          .describe('The skills store skill_manage writes to (workflow hermes-skills-<store>; default "default")'),
      })
      .optional(),
    web: z
      .strictObject({
        allowPrivate: z.boolean().optional().describe('web_fetch may fetch loopback, private and link-local addresses'),
        allowHosts: z
          .array(z.string().refine(validAllowEntry, { message: 'a host name, *.domain, an IP address or a CIDR range' }))
          .optional()
          .describe('Hosts, *.domains, IP addresses and CIDR ranges web_fetch may fetch although they are not public'),
        maxBytes: z.number().int().positive().optional().describe('Bytes of a response web_fetch reads at most (default 2 MB)'),
        timeoutSec: z.number().positive().optional().describe('Time limit of one web_fetch call (default 20 s)'),
      })
      .optional(),
  });
}

export type HermesConfig = z.infer<ReturnType<typeof configSchema>>;
