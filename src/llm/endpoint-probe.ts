// What a local model server says about itself, asked once per worker (and by `hermes doctor` / `hermes run`):
// llama.cpp's `/props` (the context size it serves) and `/v1/models` (`meta.n_params`), Ollama's `/api/version`
// and `/api/show` (parameter size, num_ctx), vLLM's `/v1/models` (`max_model_len`). Hosted endpoints are never
// asked: their models are not small, and a probe would only add latency. Each request has a short timeout; a
// server that answers none of them is `unknown` and nothing is chosen from it.
import { addressKind, unbracket } from '../tools/web_fetch/address-policy';

export type ServerKind = 'llama.cpp' | 'ollama' | 'vllm' | 'unknown';

export interface EndpointFacts {
  server: ServerKind;
  /** The context size the server serves (not the model's training context). */
  contextWindow?: number;
  /** Parameter count, from the server or (vLLM, unknown servers) from the model's name ("1.5B"). */
  params?: number;
  /** Where `params` came from: what `hermes doctor` says. */
  paramsFrom?: 'server' | 'name';
  /** The server constrains replies to a JSON schema (`response_format: json_schema`). */
  schemas: boolean;
  /** A version, when the server says one (Ollama). */
  version?: string;
}

const PROBE_TIMEOUT_MS = 1_500;

/** A base URL on this machine or a private network: a server of one's own, worth asking what it is. */
export function isLocalEndpoint(baseURL: string): boolean {
  let host: string;
  try {
    host = unbracket(new URL(baseURL).hostname).toLowerCase();
  } catch {
    return false;
  }
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host === 'host.docker.internal') return true;
  // A single-label name is a compose service or a LAN host ("ollama", "llama"), never a public API.
  if (!host.includes('.') && !host.includes(':')) return true;
  const kind = addressKind(host);
  return kind !== undefined && kind !== 'multicast' && kind !== 'reserved';
}

type Fetch = typeof fetch;

async function getJson(f: Fetch, url: string, init?: RequestInit): Promise<unknown> {
  try {
    const res = await f(url, { ...init, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    if (!res.ok) return undefined;
    return (await res.json()) as unknown;
  } catch {
    return undefined;
  }
}

/** "1.5B" → 1.5e9, "494.03M" → 4.94e8; also a model name's "qwen2.5-coder-1.5b-instruct". */
export function paramsFromText(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const m = /(?:^|[^a-z0-9.])(\d+(?:\.\d+)?)\s*([bm])(?![a-z])/i.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  return m[2]!.toLowerCase() === 'b' ? n * 1e9 : n * 1e6;
}

/** The first of the values that is a string (a server's field may be anything). */
const firstText = (...vs: unknown[]): string | undefined => vs.find((v): v is string => typeof v === 'string');

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined);

/** The server's origin: the base URL without its `/v1` (llama.cpp's and Ollama's own routes live at the root). */
function originOf(baseURL: string): string {
  return baseURL.replace(/\/+$/, '').replace(/\/v1$/, '');
}

export async function probeEndpoint(baseURL: string, model: string, f: Fetch = fetch): Promise<EndpointFacts> {
  const origin = originOf(baseURL);
  const base = baseURL.replace(/\/+$/, '');
  const [props, models, version] = await Promise.all([
    getJson(f, `${origin}/props`),
    getJson(f, `${base}/models`),
    getJson(f, `${origin}/api/version`),
  ]);
  const listed = ((models as { data?: unknown[] } | undefined)?.data ?? []) as Array<Record<string, unknown>>;
  const entry = listed.find((m) => m.id === model) ?? (listed.length === 1 ? listed[0] : undefined);
  const p = props as { default_generation_settings?: { n_ctx?: unknown }; n_ctx?: unknown } | undefined;
  if (p && (p.default_generation_settings || 'model_path' in p)) {
    const meta = entry?.meta as { n_params?: unknown } | undefined;
    const fromServer = num(meta?.n_params);
    const params = fromServer ?? paramsFromText(firstText((props as { model_path?: unknown }).model_path, entry?.id, model));
    return {
      server: 'llama.cpp',
      ...optional('contextWindow', num(p.default_generation_settings?.n_ctx) ?? num(p.n_ctx)),
      ...(params ? { params, paramsFrom: fromServer ? ('server' as const) : ('name' as const) } : {}),
      schemas: true,
    };
  }
  const v = (version as { version?: unknown } | undefined)?.version;
  if (typeof v === 'string') return ollamaFacts(f, origin, model, v);
  if (entry && (entry.owned_by === 'vllm' || 'max_model_len' in entry)) {
    const params = paramsFromText(firstText(entry.root, entry.id, model));
    return {
      server: 'vllm',
      ...optional('contextWindow', num(entry.max_model_len)),
      ...(params ? { params, paramsFrom: 'name' as const } : {}),
      schemas: true,
    };
  }
  return { server: 'unknown', schemas: false };
}

/** Ollama's context is its `num_ctx` when the model sets one, else the server's default (unknown here: not set). */
async function ollamaFacts(f: Fetch, origin: string, model: string, version: string): Promise<EndpointFacts> {
  const show = (await getJson(f, `${origin}/api/show`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model }),
  })) as { details?: { parameter_size?: unknown }; parameters?: unknown; model_info?: Record<string, unknown> } | undefined;
  const fromServer = paramsFromText(typeof show?.details?.parameter_size === 'string' ? show.details.parameter_size : undefined);
  const countInfo = Object.entries(show?.model_info ?? {}).find(([k]) => k === 'general.parameter_count')?.[1];
  const params = num(countInfo) ?? fromServer ?? paramsFromText(model);
  const numCtx = typeof show?.parameters === 'string' ? /^[^\S\n]*num_ctx[^\S\n]+(\d+)/m.exec(show.parameters)?.[1] : undefined;
  return {
    server: 'ollama',
    version,
    ...optional('contextWindow', numCtx ? Number(numCtx) : undefined),
    ...(params ? { params, paramsFrom: num(countInfo) || fromServer ? ('server' as const) : ('name' as const) } : {}),
    // Structured outputs (`format` with a schema, and response_format json_schema on /v1) since Ollama 0.5.
    schemas: atLeast(version, [0, 5]),
  };
}

function atLeast(version: string, min: [number, number]): boolean {
  const [a = 0, b = 0] = version.split('.').map((x) => Number.parseInt(x, 10));
  return a > min[0] || (a === min[0] && b >= min[1]);
}

function optional<K extends string>(key: K, v: number | undefined): Partial<Record<K, number>> {
  return v ? ({ [key]: v } as Record<K, number>) : {};
}
