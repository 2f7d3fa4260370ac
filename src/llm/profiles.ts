// Named model profiles. Keys stay in the worker's environment: a profile names the env var that holds the
// key, and only the profile *name* ever enters workflow history.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { compilePattern, type RedactConfig } from '../security/redact';
import { parseEnvList } from '../tools/env';
import { validAllowEntry, type WebConfig } from '../tools/handlers/web-policy';

export const TOOL_CALL_MODES = ['native', 'text', 'auto'] as const;
export type ToolCallMode = (typeof TOOL_CALL_MODES)[number];

const profileSchema = z.object({
  baseURL: z.string().url().describe('OpenAI-compatible endpoint, e.g. https://api.openai.com/v1'),
  model: z.string().min(1).describe('Model name sent to the endpoint'),
  apiKeyEnv: z.string().default('OPENAI_API_KEY').describe('Name of the env var holding the API key'),
  contextWindow: z.number().int().positive().default(128_000).describe('Context window in tokens'),
  temperature: z.number().min(0).max(2).default(0.3).describe('Sampling temperature'),
  maxTokens: z.number().int().positive().optional().describe('Max completion tokens per call'),
  timeoutMs: z.number().int().positive().default(300_000).describe('HTTP timeout of one model call'),
  inputPricePerMTok: z.number().nonnegative().default(0).describe('USD per million prompt tokens'),
  outputPricePerMTok: z.number().nonnegative().default(0).describe('USD per million completion tokens'),
  toolCallMode: z
    .enum(TOOL_CALL_MODES)
    .default('auto')
    .describe(
      'native: send `tools`; text: describe the tools in the system prompt and parse calls from the text; auto: native, text once the server rejects or ignores `tools`',
    ),
  fallbacks: z
    .array(z.string().min(1))
    .optional()
    .describe('Profiles to continue on, in order, when this one stays unavailable (5xx, 429, timeouts) after its retries'),
});
export type ModelProfile = z.infer<typeof profileSchema> & { name: string };

const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*\*?$/, 'a variable name, or a prefix ending in *')
  .describe('Environment variable name (PREFIX* for all with that prefix)');
const pattern = z.string().refine(
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

const configSchema = z.object({
  defaultProfile: z.string().optional(),
  profiles: z.record(z.string(), profileSchema).default({}),
  passEnv: z.array(envName).optional().describe('Worker variables terminal commands get besides the allow-list (PATH, HOME, LANG, LC_*…)'),
  redact: z
    .object({
      patterns: z.array(pattern).optional().describe('Regular expressions (source or /source/flags) redacted as [REDACTED:pattern]'),
      values: z.array(z.string().min(1)).optional().describe('Literal values redacted as [REDACTED:value]'),
    })
    .strict()
    .optional(),
  web: z
    .object({
      allowPrivate: z.boolean().optional().describe('web_fetch may fetch loopback, private and link-local addresses'),
      allowHosts: z
        .array(z.string().refine(validAllowEntry, { message: 'a host name, *.domain, an IP address or a CIDR range' }))
        .optional()
        .describe('Hosts, *.domains, IP addresses and CIDR ranges web_fetch may fetch although they are not public'),
      maxBytes: z.number().int().positive().optional().describe('Bytes of a response web_fetch reads at most (default 2 MB)'),
      timeoutSec: z.number().positive().optional().describe('Time limit of one web_fetch call (default 20 s)'),
    })
    .strict()
    .optional(),
});
type ConfigFile = z.infer<typeof configSchema>;

function configPath(env: NodeJS.ProcessEnv, cwd: string): string {
  return env.HERMES_CONFIG ?? path.join(cwd, 'hermes.config.json');
}

/** The config file (HERMES_CONFIG, else ./hermes.config.json), validated; undefined when there is none. */
function readConfig(env: NodeJS.ProcessEnv, cwd: string): { file: string; config: ConfigFile } | undefined {
  const file = configPath(env, cwd);
  if (!existsSync(file)) return undefined;
  const parsed = configSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`invalid configuration in ${file}: ${z.prettifyError(parsed.error)}`);
  return { file, config: parsed.data };
}

export interface SecurityConfig {
  /** Worker variables passed to processes tools start, besides the allow-list. */
  passEnv: string[];
  redact: Required<RedactConfig>;
}

/**
 * What the worker passes to tools and redacts beyond its defaults: `passEnv` and `redact` of the config file
 * plus HERMES_PASS_ENV (comma-separated), merged with `extra` (the worker's options).
 */
export function loadSecurityConfig(
  extra: { passEnv?: string[]; redact?: RedactConfig } = {},
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): SecurityConfig {
  const config = readConfig(env, cwd)?.config;
  const uniq = (...lists: Array<string[] | undefined>) => [...new Set(lists.flatMap((l) => l ?? []))];
  return {
    passEnv: uniq(config?.passEnv, parseEnvList(env.HERMES_PASS_ENV), extra.passEnv),
    redact: {
      patterns: uniq(config?.redact?.patterns, extra.redact?.patterns),
      values: uniq(config?.redact?.values, extra.redact?.values),
    },
  };
}

/**
 * web_fetch's address policy and caps: the config file's `web` section plus HERMES_WEB_ALLOW_PRIVATE=1 and
 * HERMES_WEB_ALLOW_HOSTS (comma-separated), which add to it.
 */
export function loadWebConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): WebConfig {
  const web = readConfig(env, cwd)?.config.web;
  const fromEnv = (env.HERMES_WEB_ALLOW_HOSTS ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  const bad = fromEnv.find((h) => !validAllowEntry(h));
  if (bad) throw new Error(`HERMES_WEB_ALLOW_HOSTS: ${JSON.stringify(bad)} is not a host name, *.domain, IP address or CIDR range`);
  return {
    allowPrivate: env.HERMES_WEB_ALLOW_PRIVATE === '1' || web?.allowPrivate === true,
    allowHosts: [...(web?.allowHosts ?? []), ...fromEnv],
    ...(web?.maxBytes ? { maxBytes: web.maxBytes } : {}),
    ...(web?.timeoutSec ? { timeoutMs: web.timeoutSec * 1000 } : {}),
  };
}

export interface ProfileSet {
  defaultName: string;
  profiles: Record<string, ModelProfile>;
}

/**
 * Profiles from the environment (OPENAI_BASE_URL, OPENAI_API_KEY, HERMES_MODEL → profile "default") plus an
 * optional JSON file (HERMES_CONFIG, else ./hermes.config.json) of named profiles.
 */
export function loadProfiles(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): ProfileSet {
  const profiles: Record<string, ModelProfile> = {
    default: {
      ...profileSchema.parse({
        baseURL: env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
        model: env.HERMES_MODEL ?? 'gpt-4o-mini',
        apiKeyEnv: 'OPENAI_API_KEY',
        contextWindow: env.HERMES_CONTEXT_WINDOW ? Number(env.HERMES_CONTEXT_WINDOW) : undefined,
        // A cap on each reply, so a rambling model cannot run into the timeout on every paid retry.
        maxTokens: env.HERMES_MAX_TOKENS ? Number(env.HERMES_MAX_TOKENS) : 4_096,
        timeoutMs: env.HERMES_MODEL_TIMEOUT ? Number(env.HERMES_MODEL_TIMEOUT) * 1000 : undefined,
        toolCallMode: env.HERMES_TOOL_CALL_MODE || undefined,
      }),
      name: 'default',
    },
  };
  let defaultName = 'default';
  const config = readConfig(env, cwd)?.config;
  if (config) {
    for (const [name, p] of Object.entries(config.profiles)) profiles[name] = { ...p, name };
    if (config.defaultProfile) defaultName = config.defaultProfile;
  }
  if (env.HERMES_PROFILE) defaultName = env.HERMES_PROFILE;
  if (!profiles[defaultName]) throw new Error(`default model profile "${defaultName}" is not defined`);
  for (const p of Object.values(profiles)) {
    const unknown = (p.fallbacks ?? []).filter((f) => !profiles[f]);
    if (unknown.length) throw new Error(`model profile "${p.name}" names undefined fallback profile(s): ${unknown.join(', ')}`);
  }
  return { defaultName, profiles };
}

export function defineProfile(name: string, p: z.input<typeof profileSchema>): ModelProfile {
  return { ...profileSchema.parse(p), name };
}

/**
 * The profiles a step may continue on when `primary` (undefined = the default) stays unavailable: its `fallbacks`,
 * then the run's `fallbackModel` when it names another one. The first entry is the primary itself.
 */
export function fallbackChain(set: ProfileSet, primary: string | undefined, runFallback?: string): string[] {
  const name = primary ?? set.defaultName;
  const chain = [name, ...(set.profiles[name]?.fallbacks ?? [])];
  if (runFallback && !chain.includes(runFallback)) chain.push(runFallback);
  return chain;
}

export function costOf(p: ModelProfile, promptTokens: number, completionTokens: number): number {
  return (promptTokens * p.inputPricePerMTok + completionTokens * p.outputPricePerMTok) / 1_000_000;
}
