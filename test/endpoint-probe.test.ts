// What a local model server says about itself, asked over real HTTP of fake servers that answer what llama.cpp,
// Ollama and vLLM answer (shapes from their docs and from the llama-server this project measures against), and
// what is chosen from it: the small profile and constrained steps for a small model on a server that takes
// schemas; never over an explicit setting.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { chooseAll, chooseFor, describeChoice } from '../src/llm/auto-profile';
import { isLocalEndpoint, paramsFromText, probeEndpoint, type EndpointFacts } from '../src/llm/endpoint-probe';
import { defineProfile } from '../src/llm/profiles';

type Route = (body: string) => unknown;
const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A server that answers `routes` ("GET /props") with JSON and everything else with 404; records what was asked. */
async function fakeServer(routes: Record<string, Route>): Promise<{ baseURL: string; asked: string[] }> {
  const asked: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const key = `${req.method} ${req.url}`;
      asked.push(key);
      const route = routes[key];
      if (!route) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(route(body)));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, asked };
}

const llamaCpp = (nCtx: number, nParams: number) => ({
  'GET /props': () => ({
    default_generation_settings: { n_ctx: nCtx, temperature: 0.8 },
    total_slots: 1,
    model_path: '/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
    chat_template: '{{ messages }}',
  }),
  'GET /v1/models': () => ({
    object: 'list',
    data: [{ id: 'qwen2.5-coder-1.5b-instruct', object: 'model', owned_by: 'llamacpp', meta: { n_params: nParams, n_ctx_train: 32768 } }],
  }),
});

describe('endpoint probe', () => {
  it('llama.cpp: the served context from /props, the parameter count from /v1/models meta', async () => {
    const { baseURL } = await fakeServer(llamaCpp(8192, 1_543_714_304));
    expect(await probeEndpoint(baseURL, 'qwen2.5-coder-1.5b-instruct')).toEqual({
      server: 'llama.cpp',
      contextWindow: 8192,
      params: 1_543_714_304,
      paramsFrom: 'server',
      schemas: true,
    });
  });

  it('Ollama: /api/version, then /api/show for the model (parameter count, num_ctx); schemas since 0.5', async () => {
    const shown: unknown[] = [];
    const routes = (version: string) => ({
      'GET /api/version': () => ({ version }),
      'POST /api/show': (body: string) => {
        shown.push(JSON.parse(body));
        return {
          parameters: 'num_ctx                        4096\nstop                           "<|im_end|>"',
          details: { family: 'qwen2', parameter_size: '494.03M', quantization_level: 'Q4_K_M' },
          model_info: { 'general.architecture': 'qwen2', 'general.parameter_count': 494_032_768 },
        };
      },
    });
    const { baseURL } = await fakeServer(routes('0.6.2'));
    expect(await probeEndpoint(baseURL, 'qwen2.5:0.5b')).toEqual({
      server: 'ollama',
      version: '0.6.2',
      contextWindow: 4096,
      params: 494_032_768,
      paramsFrom: 'server',
      schemas: true,
    });
    expect(shown).toEqual([{ model: 'qwen2.5:0.5b' }]);
    const old = await fakeServer(routes('0.4.7'));
    expect(await probeEndpoint(old.baseURL, 'qwen2.5:0.5b')).toMatchObject({ server: 'ollama', schemas: false });
  });

  // The parameters text comes from the model server: reading num_ctx in it is linear (200,000 newlines took ~55 s).
  it.each([
    ['num_ctx on a later line', 'stop "<|im_end|>"\n  num_ctx 8192\n', 8192],
    ['200,000 newlines and no num_ctx', `${'\n'.repeat(200_000)}x`, undefined],
  ])(
    'Ollama: reads %s',
    async (_name, parameters, contextWindow) => {
      const { baseURL } = await fakeServer({ 'GET /api/version': () => ({ version: '0.6.2' }), 'POST /api/show': () => ({ parameters }) });
      expect((await probeEndpoint(baseURL, 'qwen2.5:0.5b')).contextWindow).toBe(contextWindow);
    },
    20_000,
  );

  it('vLLM: max_model_len from /v1/models, the size from the model name', async () => {
    const { baseURL } = await fakeServer({
      'GET /v1/models': () => ({
        object: 'list',
        data: [{ id: 'Qwen/Qwen2.5-3B-Instruct', owned_by: 'vllm', root: 'Qwen/Qwen2.5-3B-Instruct', max_model_len: 16384 }],
      }),
    });
    expect(await probeEndpoint(baseURL, 'Qwen/Qwen2.5-3B-Instruct')).toEqual({
      server: 'vllm',
      contextWindow: 16384,
      params: 3e9,
      paramsFrom: 'name',
      schemas: true,
    });
  });

  it('a server that says nothing about itself is unknown', async () => {
    const { baseURL, asked } = await fakeServer({});
    expect(await probeEndpoint(baseURL, 'm')).toEqual({ server: 'unknown', schemas: false });
    expect(asked.sort()).toEqual(['GET /api/version', 'GET /props', 'GET /v1/models']);
  });

  it('sizes in names and which endpoints count as local', () => {
    expect(paramsFromText('qwen2.5-coder-1.5b-instruct')).toBe(1.5e9);
    expect(paramsFromText('494.03M')).toBe(494.03e6);
    expect(paramsFromText('gpt-4o-mini')).toBeUndefined();
    for (const u of [
      'http://127.0.0.1:8080/v1',
      'http://localhost:11434/v1',
      'http://ollama:11434/v1',
      'http://192.168.1.20:8000/v1',
      'http://[::1]:8080/v1',
    ]) {
      expect(isLocalEndpoint(u), u).toBe(true);
    }
    for (const u of ['https://api.openai.com/v1', 'https://openrouter.ai/api/v1', 'not a url']) expect(isLocalEndpoint(u), u).toBe(false);
  });
});

const llama: EndpointFacts = { server: 'llama.cpp', contextWindow: 8192, params: 1.5e9, paramsFrom: 'server', schemas: true };

describe('what is chosen', () => {
  it('a small model on a server that takes schemas: the small profile, constrained steps, the served context', () => {
    const c = chooseFor(defineProfile('default', { baseURL: 'http://127.0.0.1:8080/v1', model: 'qwen' }), llama);
    expect(c.profile).toMatchObject({ small: true, toolCallMode: 'constrained', contextWindow: 8192 });
    expect(describeChoice(c)).toBe(
      "profile default (qwen at http://127.0.0.1:8080/v1): llama.cpp, context window 8192 (the server's), small model: 1.5B parameters (the server says), constrained steps (the server constrains replies to a JSON schema)",
    );
  });

  it('explicit settings win: small, the tool-call mode, a smaller context window', () => {
    const base = { baseURL: 'http://127.0.0.1:8080/v1', model: 'qwen' };
    const notSmall = chooseFor(defineProfile('default', { ...base, small: false }), llama);
    expect(notSmall.profile).toMatchObject({ small: false, toolCallMode: 'auto' });
    const text = chooseFor(defineProfile('default', { ...base, toolCallMode: 'text' }), llama);
    expect(text.profile).toMatchObject({ small: true, toolCallMode: 'text' });
    expect(text.reasons).toContain('text tool calls (configured)');
    expect(chooseFor(defineProfile('default', { ...base, contextWindow: 4096 }), llama).profile.contextWindow).toBe(4096);
  });

  it('a large model or a server without schemas keeps the configured modes', () => {
    const p = defineProfile('default', { baseURL: 'http://127.0.0.1:8080/v1', model: 'qwen' });
    expect(chooseFor(p, { ...llama, params: 32e9 }).profile).toMatchObject({ toolCallMode: 'auto' });
    expect(chooseFor(p, { ...llama, params: 32e9 }).profile.small).toBeUndefined();
    expect(chooseFor(p, { ...llama, schemas: false }).profile).toMatchObject({ small: true, toolCallMode: 'auto' });
  });

  it('the worker asks a local endpoint, never a hosted one, and not at all with HERMES_DETECT=0', async () => {
    const { baseURL, asked } = await fakeServer(llamaCpp(4096, 1.5e9));
    const set = {
      defaultName: 'local',
      profiles: {
        local: defineProfile('local', { baseURL, model: 'qwen2.5-coder-1.5b-instruct' }),
        hosted: defineProfile('hosted', { baseURL: 'https://api.openai.com/v1', model: 'gpt-4o-mini' }),
      },
    };
    expect((await chooseAll(set, { HERMES_DETECT: '0' })).set).toBe(set);
    expect(asked).toEqual([]);
    const { set: chosen, choices } = await chooseAll(set, {});
    expect(chosen.profiles.local).toMatchObject({ small: true, toolCallMode: 'constrained', contextWindow: 4096 });
    expect(chosen.profiles.hosted).toEqual(set.profiles.hosted);
    expect(choices.find((c) => c.profile.name === 'hosted')!.reasons).toEqual([]);
  });
});
