// Named model profiles. Keys stay in the worker's environment: a profile names the env var that holds the
// key, and only the profile *name* ever enters workflow history.
import { z } from 'zod';
import { readConfig } from '../config/load';
import { profileSchema as buildProfileSchema, TRANSPORTS, type TransportName } from '../config/schema';
import type { RedactConfig } from '../security/redact';
import { parseEnvList } from '../tools/env';
import { validAllowEntry, type WebConfig } from '../tools/web_fetch/address-policy';

export type { ToolCallMode } from '../config/schema';

// The schema and the file's loading live in src/config/ (one file for every section).
const profileSchema = buildProfileSchema();
export type ModelProfile = z.infer<typeof profileSchema> & { name: string };

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

/** The default profile's endpoint and model per transport: the variables each one's SDK reads itself. */
function endpointFromEnv(transport: TransportName, env: NodeJS.ProcessEnv) {
  if (transport === 'anthropic') {
    return { baseURL: env.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com', model: env.HERMES_MODEL ?? 'claude-haiku-4-5' };
  }
  return { baseURL: env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1', model: env.HERMES_MODEL ?? 'gpt-4o-mini' };
}

function transportFromEnv(env: NodeJS.ProcessEnv): TransportName {
  const t = env.HERMES_MODEL_TRANSPORT || 'chat';
  if (!(TRANSPORTS as readonly string[]).includes(t)) {
    throw new Error(`HERMES_MODEL_TRANSPORT: ${JSON.stringify(t)} is not one of ${TRANSPORTS.join(', ')}`);
  }
  return t as TransportName;
}

/** The variable each field of the environment's profile comes from. */
function envVarOf(field: PropertyKey, transport: TransportName): string | undefined {
  const base = transport === 'anthropic' ? 'ANTHROPIC_BASE_URL' : 'OPENAI_BASE_URL';
  const vars: Record<string, string> = {
    baseURL: base,
    model: 'HERMES_MODEL',
    contextWindow: 'HERMES_CONTEXT_WINDOW',
    maxTokens: 'HERMES_MAX_TOKENS',
    timeoutMs: 'HERMES_MODEL_TIMEOUT',
    toolCallMode: 'HERMES_TOOL_CALL_MODE',
  };
  return vars[String(field)];
}

/** The model settings from the environment that are not usable, named by their variables and values. */
function envProfileError(err: z.ZodError, transport: TransportName, env: NodeJS.ProcessEnv): string {
  const lines = err.issues.map((i) => {
    const name = envVarOf(i.path[0] ?? '', transport);
    if (!name) return `${i.path.join('.') || '(profile)'}: ${i.message}`;
    return `${name}=${JSON.stringify(env[name] ?? '')}: ${i.message}`;
  });
  return `the model settings from the environment are not usable: ${lines.join('; ')}`;
}

/**
 * Profiles from the environment (HERMES_MODEL_TRANSPORT; OPENAI_BASE_URL, OPENAI_API_KEY or, for the anthropic
 * transport, ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY; HERMES_MODEL → profile "default") plus the config file's named
 * profiles (HERMES_CONFIG, else ./hermes.config.{json,mjs,js,ts}; src/config/load.ts).
 */
export function loadProfiles(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): ProfileSet {
  const transport = transportFromEnv(env);
  const parsed = profileSchema.safeParse({
    ...endpointFromEnv(transport, env),
    transport,
    contextWindow: env.HERMES_CONTEXT_WINDOW ? Number(env.HERMES_CONTEXT_WINDOW) : undefined,
    // A cap on each reply, so a rambling model cannot run into the timeout on every paid retry.
    maxTokens: env.HERMES_MAX_TOKENS ? Number(env.HERMES_MAX_TOKENS) : 4_096,
    timeoutMs: env.HERMES_MODEL_TIMEOUT ? Number(env.HERMES_MODEL_TIMEOUT) * 1000 : undefined,
    toolCallMode: env.HERMES_TOOL_CALL_MODE || undefined,
    small: env.HERMES_SMALL_MODEL ? env.HERMES_SMALL_MODEL !== '0' : undefined,
  });
  if (!parsed.success) throw new Error(envProfileError(parsed.error, transport, env));
  const profiles: Record<string, ModelProfile> = { default: { ...parsed.data, name: 'default' } };
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

/**
 * Profiles whose context window is at most this many tokens count as small models unless they say `small: false`.
 * 16K: the default tools' schemas alone are ~4K tokens (a quarter of such a window, before the system prompt and
 * any work), the core tools' ~1.3K; and local 1–3B models are usually served with 4K–16K windows (llama.cpp's and
 * Ollama's defaults are smaller still), while the hosted models this project targets otherwise have 128K or more.
 */
export const SMALL_CONTEXT_WINDOW = 16_384;

/** Whether a profile is a small model: it says so (`small`), or its context window is at most SMALL_CONTEXT_WINDOW. */
export function isSmallProfile(p: ModelProfile): boolean {
  return p.small ?? p.contextWindow <= SMALL_CONTEXT_WINDOW;
}

export function costOf(p: ModelProfile, promptTokens: number, completionTokens: number): number {
  return (promptTokens * p.inputPricePerMTok + completionTokens * p.outputPricePerMTok) / 1_000_000;
}
