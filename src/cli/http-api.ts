// `hermes serve`: the OpenAI-compatible HTTP API (src/http-api/, docs/guides/serve.md). Embedded (no TEMPORAL_ADDRESS) it
// starts or reuses the dev server and runs a worker in this process, as `hermes run` does; against a cluster it
// is only a client, and `hermes worker` processes do the work.
import { parseArgs } from 'node:util';
import { loadProfiles } from '../llm/profiles';
import { isLoopback, normalizeOrigin } from '../http-api/browser-guard';
import { readTokensFile, TokensFileError, type Principal } from '../http-api/principals';
import { DEFAULT_SERVE_PORT, startServe, tokenProblem } from '../http-api/server';
import { checkedWorkspace, UsageError, withHermes } from './common';
import { onStop, stopping } from './signals';

const BUSY = ['queue', 'reject', 'interrupt'] as const;
const APPROVAL = ['ask', 'deny', 'allow'] as const;

export async function serve(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      token: { type: 'string' },
      tokens: { type: 'string' },
      'allow-origin': { type: 'string', multiple: true },
      'allow-host': { type: 'string', multiple: true },
      'interrupt-on-disconnect': { type: 'boolean', default: false },
      'busy-policy': { type: 'string' },
      'approval-mode': { type: 'string' },
      workspace: { type: 'string' },
      'max-concurrent': { type: 'string' },
      'max-streams': { type: 'string' },
    },
  });
  const host = values.host ?? '127.0.0.1';
  const port = values.port === undefined ? DEFAULT_SERVE_PORT : Number(values.port.trim() || NaN);
  if (!(Number.isInteger(port) && port >= 0 && port <= 65535))
    throw new UsageError(`--port must be a port number (0 for any free one), got "${values.port}"`);
  const { token, principals, allowOrigins, allowHosts } = accessOptions(values, host);
  const busyPolicy = oneOf(values['busy-policy'], BUSY, '--busy-policy') ?? 'queue';
  const approvalMode = oneOf(values['approval-mode'], APPROVAL, '--approval-mode');
  const maxConcurrent = values['max-concurrent'] === undefined ? undefined : Number(values['max-concurrent']);
  if (maxConcurrent !== undefined && !(Number.isInteger(maxConcurrent) && maxConcurrent > 0))
    throw new UsageError('--max-concurrent must be a positive whole number');
  const maxStreams = values['max-streams'] === undefined ? undefined : Number(values['max-streams']);
  if (maxStreams !== undefined && !(Number.isInteger(maxStreams) && maxStreams > 0))
    throw new UsageError('--max-streams must be a positive whole number');
  const workspace = checkedWorkspace(values.workspace);
  // Read once, before connecting: a broken config file is said now, not at the first request.
  const set = loadProfiles();
  const profiles = {
    defaultName: set.defaultName,
    names: Object.keys(set.profiles),
    models: Object.fromEntries(Object.entries(set.profiles).map(([n, p]) => [n, p.model])),
  };
  return withHermes(
    async (hermes) => {
      const s = await startServe({
        hermes,
        host,
        port,
        ...(token ? { token } : {}),
        ...(principals ? { principals } : {}),
        allowOrigins,
        allowHosts,
        profiles: () => profiles,
        defaults: { busyPolicy, start: { ...(workspace ? { workspace } : {}), ...(approvalMode ? { approvalMode } : {}) } },
        interruptOnDisconnect: values['interrupt-on-disconnect'],
        ...(maxConcurrent ? { maxConcurrent } : {}),
        ...(maxStreams ? { maxStreams } : {}),
        log: (line) => void process.stderr.write(`hermes serve: ${line}\n`),
      });
      onStop((sig) => process.stderr.write(`\nhermes serve: ${sig}: stopped; conversations under way go on durably\n`));
      process.stderr.write(
        `hermes serve on ${s.url} (OpenAI-compatible: ${s.url}/v1; ${principals ? `${principals.length} principals, each its own sessions: ${principals.map((p) => p.name).join(', ')}` : token ? 'bearer token required' : 'no token: loopback only'}; ` +
          `${hermes.target?.embedded ? 'embedded server, worker in this process' : `Temporal at ${hermes.address ?? 'the cluster'}, task queue ${hermes.taskQueue}`})\n` +
          `  models (profiles): ${profiles.names.join(', ')}; "hermes" = ${profiles.defaultName} · API description: ${s.url}/openapi.json\n`,
      );
      await stopping();
      await s.close();
      return 0;
    },
    { ...(workspace ? { workspace } : {}) },
  );
}

export { isLoopback };

/**
 * Who may call a server this process opens, as `hermes serve` and `hermes mcp --http` read it: the bearer token
 * (--token, HERMES_SERVE_TOKEN) or the principals' tokens file (--tokens, HERMES_SERVE_TOKENS_FILE), required off
 * loopback, and the web pages (--allow-origin) and proxied names (--allow-host) let past the browser guard.
 */
export function accessOptions(
  values: { token?: string; tokens?: string; 'allow-origin'?: string[]; 'allow-host'?: string[] },
  host: string,
): { token?: string; principals?: Principal[]; allowOrigins: string[]; allowHosts: string[] } {
  const token = values.token ?? (process.env.HERMES_SERVE_TOKEN || undefined);
  const problem = token !== undefined ? tokenProblem(token) : undefined;
  if (problem) throw new UsageError(`${values.token !== undefined ? '--token' : 'HERMES_SERVE_TOKEN'}: ${problem}`);
  const principals = tokensOf(values.tokens ?? (process.env.HERMES_SERVE_TOKENS_FILE || undefined), token);
  if (!token && !principals && !isLoopback(host)) {
    throw new UsageError(
      `--host ${host} is reachable from other machines: a bearer token is required (--token T or HERMES_SERVE_TOKEN) or a tokens file (--tokens FILE); ` +
        'whoever can call this API runs the agent and its tools',
    );
  }
  const allowOrigins = listOf(values['allow-origin'], process.env.HERMES_SERVE_ALLOW_ORIGINS).map((o) => {
    try {
      return normalizeOrigin(o);
    } catch (err) {
      throw new UsageError(`--allow-origin: ${(err as Error).message}`);
    }
  });
  const allowHosts = listOf(values['allow-host'], process.env.HERMES_SERVE_ALLOW_HOSTS).map((h) => {
    if (!/^[a-z0-9.-]+$|^\[?[0-9a-f:.]+\]?$/i.test(h)) throw new UsageError(`--allow-host: "${h}" is not a host name (no scheme, no port)`);
    return h.replace(/^\[|\]$/g, '').toLowerCase();
  });
  return { ...(token ? { token } : {}), ...(principals ? { principals } : {}), allowOrigins, allowHosts };
}

/** The principals of the tokens file (principals.ts), checked before anything starts. */
function tokensOf(file: string | undefined, token: string | undefined): Principal[] | undefined {
  if (file === undefined) return undefined;
  if (token) throw new UsageError('--tokens and --token (or HERMES_SERVE_TOKEN) are two ways to say who may call: give one');
  try {
    return readTokensFile(file);
  } catch (err) {
    if (err instanceof TokensFileError) throw new UsageError(`--tokens ${err.message}`);
    throw err;
  }
}

/** Repeated flags, else the environment variable's comma-separated list. */
function listOf(flags: string[] | undefined, env: string | undefined): string[] {
  const all = flags?.length ? flags : env ? [env] : [];
  return all
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
}

function oneOf<T extends string>(v: string | undefined, allowed: readonly T[], flag: string): T | undefined {
  if (v === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(v)) throw new UsageError(`${flag} must be one of ${allowed.join(', ')}, got "${v}"`);
  return v as T;
}
