// docker-compose.yml and the Dockerfile, checked against the code (there is no Docker engine where this runs, so
// nothing here starts a container): the services a deployment needs, the images, and that every command, port,
// environment variable and volume in them is one the code really takes, listens on or reads.
import { load } from 'js-yaml';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_HEALTH_HOST, startHealthServer } from '../src/observe/health';
import { DEFAULT_METRICS_HOST, metricsHost, prometheusOptions } from '../src/observe/metrics';
import { DEFAULT_CODEC_PORT } from '../src/codec/server';
import { SHUTDOWN_FORCE_AFTER_SEC } from '../src/shared/defaults';
import { SEARCH_ATTRIBUTE_TYPES } from '../src/shared/search-attributes';
import { buildsDir } from '../src/versioning/builds';

const ROOT = path.resolve(__dirname, '..');
const read = (f: string) => readFileSync(path.join(ROOT, f), 'utf8');

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  entrypoint?: string[];
  environment?: string[] | Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  deploy?: { replicas?: number | string };
  profiles?: string[];
  stop_grace_period?: string;
  container_name?: string;
}
const compose = load(read('docker-compose.yml')) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const svc = (name: string): Service => {
  const s = compose.services[name];
  if (!s) throw new Error(`docker-compose.yml has no service ${name}`);
  return s;
};

/** `${VAR:-default}` as compose resolves it with VAR unset. */
const resolve = (v: string) => v.replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, '$1');

function env(s: Service): Map<string, string | undefined> {
  const e = s.environment ?? [];
  if (!Array.isArray(e)) return new Map(Object.entries(e).map(([k, v]) => [k, resolve(String(v))]));
  return new Map(e.map((kv) => (kv.includes('=') ? [kv.slice(0, kv.indexOf('=')), resolve(kv.slice(kv.indexOf('=') + 1))] : [kv, undefined])));
}

/** `--name value` of a command line. */
function flag(cmd: string[] | undefined, name: string): string | undefined {
  const i = (cmd ?? []).indexOf(name);
  return i >= 0 ? cmd![i + 1] : undefined;
}

/** Text of every file under `dir` with one of `exts`. */
function textUnder(dir: string, exts: RegExp): string {
  let out = '';
  for (const e of readdirSync(dir)) {
    const p = path.join(dir, e);
    if (statSync(p).isDirectory()) out += textUnder(p, exts);
    else if (exts.test(e)) out += readFileSync(p, 'utf8');
  }
  return out;
}
const SRC = textUnder(path.join(ROOT, 'src'), /\.ts$/);
/** The libraries that read variables of their own: Temporal's envconfig (TEMPORAL_*) and OpenTelemetry (OTEL_*). */
const LIBS = [
  textUnder(path.join(ROOT, 'node_modules/@temporalio/envconfig/lib'), /\.js$/),
  textUnder(path.join(ROOT, 'node_modules/@opentelemetry/core/build/src'), /\.js$/),
  textUnder(path.join(ROOT, 'node_modules/@opentelemetry/otlp-exporter-base/build/src'), /\.js$/),
].join('\n');
const readByCode = (name: string) => new RegExp(`\\b${name}\\b`).test(SRC) || new RegExp(`\\b${name}\\b`).test(LIBS);

/** The CLI reference: `hermes help` verbatim (test/cli.test.ts keeps them equal). */
const HELP = read('docs/reference/cli.md');

/** The temporal-server version deploy/cluster/start.sh builds, which `npm run test:cluster` runs against. */
const CLUSTER_SERVER_VERSION = /^VER=(\S+)$/m.exec(read('deploy/cluster/start.sh'))![1]!;

/** ENV and RUN lines of the Dockerfile. */
const DOCKERFILE = read('Dockerfile');
const dockerEnv = new Map([...DOCKERFILE.matchAll(/\b([A-Z][A-Z0-9_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));

describe('docker-compose.yml', () => {
  it('has the pieces of a deployment: PostgreSQL, a Temporal server on it, the Web UI, workers, codec server, collector', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      [
        'hermes-codec',
        'hermes-worker',
        'jaeger',
        'otel-collector',
        'postgresql',
        'temporal',
        'temporal-namespace',
        'temporal-schema',
        'temporal-ui',
      ].sort(),
    );
    expect(svc('postgresql').image).toMatch(/^postgres:/);
    // temporalio/auto-setup is deprecated: the schema comes from admin-tools, the server from temporalio/server.
    expect(resolve(svc('temporal').image!)).toMatch(/^temporalio\/server:1\.\d+\.\d+$/);
    expect(resolve(svc('temporal-schema').image!)).toMatch(/^temporalio\/admin-tools:/);
    expect(resolve(svc('temporal-ui').image!)).toMatch(/^temporalio\/ui:/);
    expect(resolve(svc('otel-collector').image!)).toMatch(/^otel\/opentelemetry-collector-contrib:/);
    const t = env(svc('temporal'));
    expect(t.get('DB')).toBe('postgres12');
    // The version the cluster tier tests (deploy/cluster/start.sh): the server and its admin tools alike.
    expect(CLUSTER_SERVER_VERSION).toMatch(/^1\.\d+\.\d+$/);
    expect(resolve(svc('temporal').image!)).toBe(`temporalio/server:${CLUSTER_SERVER_VERSION}`);
    for (const name of ['temporal-schema', 'temporal-namespace'])
      expect(resolve(svc(name).image!), name).toBe(`temporalio/admin-tools:${CLUSTER_SERVER_VERSION}`);
    // The config template reads the visibility store's port from VISIBILITY_DB_PORT (or POSTGRES_PORT), not DB_PORT.
    expect(t.get('VISIBILITY_DB_PORT') ?? t.get('POSTGRES_PORT'), 'VISIBILITY_DB_PORT').toBe(t.get('DB_PORT'));
    expect(compose.services[t.get('POSTGRES_SEEDS')!]).toBe(svc('postgresql'));
    expect(svc('temporal').depends_on).toMatchObject({ 'temporal-schema': { condition: 'service_completed_successfully' } });
    expect(svc('temporal').ports).toContain('7233:7233');
    expect(svc('temporal-ui').ports).toContain('8080:8080');
    // Every named volume a service mounts is declared.
    for (const [name, s] of Object.entries(compose.services)) {
      for (const v of s.volumes ?? []) {
        const source = v.split(':')[0]!;
        if (!source.startsWith('.') && !source.startsWith('/')) expect(compose.volumes, `${name}: volume ${source}`).toHaveProperty(source);
        else expect(existsSync(path.join(ROOT, source)), `${name}: ${source}`).toBe(true);
      }
    }
  });

  it('runs N worker replicas of the image built here, with the options `hermes worker` takes', () => {
    const w = svc('hermes-worker');
    expect(w.build).toBe('.');
    expect(Number(resolve(String(w.deploy?.replicas)))).toBeGreaterThanOrEqual(2);
    // Replicas: no fixed container name and no published host port (they would clash).
    expect(w.container_name).toBeUndefined();
    expect(w.ports).toBeUndefined();
    expect(w.command![0]).toBe('worker');
    for (const opt of w.command!.filter((a) => a.startsWith('--')))
      expect(HELP, `hermes worker ${opt}`).toMatch(new RegExp(`hermes worker .*\\[${opt} `));
    const e = env(w);
    expect(e.get('TEMPORAL_ADDRESS')).toBe('temporal:7233');
    expect(w.depends_on).toMatchObject({ 'temporal-namespace': { condition: 'service_completed_successfully' } });
    // Every variable given to a Hermes container is one the code (or the Temporal / OpenTelemetry library) reads.
    for (const name of ['hermes-worker', 'hermes-codec']) {
      for (const k of env(svc(name)).keys()) expect(readByCode(k), `${name}: ${k} is read by nothing`).toBe(true);
    }
    for (const k of dockerEnv.keys()) if (/^(HERMES|TEMPORAL|OTEL)_/.test(k)) expect(readByCode(k), `Dockerfile: ${k}`).toBe(true);
  });

  it('stops workers gracefully: SIGTERM, and Docker waits past the grace period and the SDK backstop', () => {
    const w = svc('hermes-worker');
    expect((w as { stop_signal?: string }).stop_signal ?? 'SIGTERM').toBe('SIGTERM');
    const grace = Number(flag(w.command, '--grace'));
    expect(grace).toBeGreaterThan(0);
    const stopSec = Number(/^(\d+)s$/.exec(w.stop_grace_period ?? '10s')![1]);
    expect(stopSec).toBeGreaterThan(grace + SHUTDOWN_FORCE_AFTER_SEC);
  });

  it("health-checks the workers on the port and route the worker's health server serves", async () => {
    const w = svc('hermes-worker');
    const port = Number(flag(w.command, '--health-port'));
    const test = w.healthcheck!.test;
    expect(test[0]).toBe('CMD');
    expect(test[1]).toBe('curl'); // installed in the image
    expect(DOCKERFILE).toMatch(/apt-get install[^\n]*\bcurl\b/);
    const url = new URL(test.at(-1)!);
    expect(Number(url.port)).toBe(port);
    // The same route on the real health server: 200 while the Worker polls, 503 while it drains.
    let state = 'RUNNING';
    const h = await startHealthServer({ port: 0, host: '127.0.0.1', source: () => ({ states: () => ({ b1: state }), ping: async () => ({}) }) });
    try {
      const get = async () => (await fetch(`http://127.0.0.1:${h.port}${url.pathname}`)).status;
      expect(await get()).toBe(200);
      state = 'DRAINING';
      expect(await get()).toBe(503);
      expect((await fetch(`http://127.0.0.1:${h.port}/healthz`)).status).toBe(200);
    } finally {
      await h.close();
    }
  });

  it('binds the health and metrics endpoints on every interface of the container, loopback elsewhere', async () => {
    // The code's defaults: loopback, so a worker on a laptop or a shared host exposes neither by accident.
    expect(DEFAULT_HEALTH_HOST).toBe('127.0.0.1');
    expect(DEFAULT_METRICS_HOST).toBe('127.0.0.1');
    expect(metricsHost({})).toBe('127.0.0.1');
    expect(prometheusOptions(9464, metricsHost({})).prometheus.bindAddress).toBe('127.0.0.1:9464');
    expect(prometheusOptions(9464, '::').prometheus.bindAddress).toBe('[::]:9464');
    const h = await startHealthServer({ port: 0, source: () => undefined });
    try {
      expect(h.url).toBe(`http://127.0.0.1:${h.port}`);
      const reached = await fetch(`http://127.0.0.1:${h.port}/healthz`);
      expect(reached.status).toBe(200);
    } finally {
      await h.close();
    }
    // In the container they must take the healthcheck's and a scraper's connections: the compose file says so.
    const e = env(svc('hermes-worker'));
    expect(e.get('HERMES_HEALTH_HOST')).toBe('0.0.0.0');
    expect(e.get('HERMES_METRICS_HOST')).toBe('0.0.0.0');
    expect(metricsHost({ HERMES_METRICS_HOST: e.get('HERMES_METRICS_HOST') })).toBe('0.0.0.0');
  });

  it('registers no search attribute of its own, or all of them with the types the code defines', () => {
    // The workers register the attributes on start (src/dev-server/dev-server.ts ensureSearchAttributes); a list in
    // the compose file (an admin-tools `operator search-attribute create`) must not fall behind the code's.
    const text = read('docker-compose.yml');
    const named = Object.keys(SEARCH_ATTRIBUTE_TYPES).filter((k) => new RegExp(`\\b${k}\\b`).test(text));
    if (!named.length) return;
    for (const [k, type] of Object.entries(SEARCH_ATTRIBUTE_TYPES))
      expect(text, k).toMatch(new RegExp(`--name[ =]${k}\\b[^\\n]*--type[ =]${type}\\b|${k}=${type}\\b`, 'i'));
  });

  it('sends traces to the collector on the OTLP/HTTP port it receives on, and on to Jaeger', () => {
    const endpoint = new URL(env(svc('hermes-worker')).get('OTEL_EXPORTER_OTLP_ENDPOINT')!);
    expect(compose.services[endpoint.hostname]).toBe(svc('otel-collector'));
    // The workers export over OTLP/HTTP (the exporter in package.json), so the endpoint is the collector's http one.
    expect(JSON.parse(read('package.json')).dependencies).toHaveProperty('@opentelemetry/exporter-trace-otlp-http');
    const mount = svc('otel-collector').volumes!.find((v) => v.includes('otel-collector.yaml'))!;
    const [file, inContainer] = mount.split(':');
    expect(svc('otel-collector').command).toContain(`--config=${inContainer}`);
    const cfg = load(read(file!)) as {
      receivers: { otlp: { protocols: { http: { endpoint: string } } } };
      exporters: Record<string, { endpoint?: string }>;
      service: { pipelines: { traces: { receivers: string[]; exporters: string[] } } };
    };
    expect(cfg.receivers.otlp.protocols.http.endpoint).toBe(`0.0.0.0:${endpoint.port}`);
    expect(cfg.service.pipelines.traces.receivers).toContain('otlp');
    const toJaeger = cfg.exporters[cfg.service.pipelines.traces.exporters.find((x) => x.startsWith('otlp'))!]!;
    expect(compose.services[toJaeger.endpoint!.split(':')[0]!]).toBe(svc('jaeger'));
  });

  it('runs the codec server from the same image, where the Web UI (in the browser) can reach it', () => {
    const c = svc('hermes-codec');
    expect(c.image).toBe(svc('hermes-worker').image);
    expect(c.command![0]).toBe('codec-server');
    for (const opt of c.command!.filter((a) => a.startsWith('--')))
      expect(HELP, `hermes codec-server ${opt}`).toMatch(new RegExp(`hermes codec-server .*\\[${opt} `));
    const port = flag(c.command, '--port') ?? String(DEFAULT_CODEC_PORT);
    expect(flag(c.command, '--host')).toBe('0.0.0.0'); // inside a container 127.0.0.1 is unreachable from the host
    expect(c.ports).toContain(`127.0.0.1:${port}:${port}`);
    // CORS: the UI's published origin.
    expect(flag(c.command, '--origin')).toBe(`http://localhost:${svc('temporal-ui').ports![0]!.split(':')[0]}`);
    expect(env(c).has('HERMES_PAYLOAD_KEY')).toBe(true);
    expect(env(svc('hermes-worker')).has('HERMES_PAYLOAD_KEY')).toBe(true);
    expect(env(svc('temporal-ui')).has('TEMPORAL_CODEC_ENDPOINT')).toBe(true);
  });

  it("mounts the workspace and the kept builds where the image's worker looks for them", () => {
    const mounts = new Map(svc('hermes-worker').volumes!.map((v) => [v.split(':')[1]!, v.split(':')[0]!]));
    expect(mounts.get(dockerEnv.get('HERMES_WORKSPACE')!)).toBe('hermes-workspace');
    // Kept bundles live in HERMES_HOME/builds/<deployment> (src/versioning/builds.ts).
    const home = dockerEnv.get('HERMES_HOME')!;
    expect(path.dirname(buildsDir('hermes', home))).toBe(path.join(home, 'builds'));
    expect(mounts.get(path.join(home, 'builds'))).toBe('hermes-builds');
    // The payload store is a volume every replica shares (a local folder per container would strand references).
    const store = env(svc('hermes-worker')).get('HERMES_PAYLOAD_STORE')!;
    expect(mounts.get(store)).toBe('hermes-payloads');
  });
});

describe('Dockerfile', () => {
  it('builds a worker image on Node 22+ with the tools the README examples need', () => {
    const from = /^FROM node:(\d+)/m.exec(DOCKERFILE);
    expect(Number(from![1])).toBeGreaterThanOrEqual(22);
    const install = /apt-get install[^\n]*(?:\\\n[^\n]*)*/.exec(DOCKERFILE.replace(/\\\n\s*&&/g, ' &&'))![0];
    for (const pkg of ['bubblewrap', 'python3', 'git', 'curl', 'ripgrep', 'tini']) expect(install, pkg).toMatch(new RegExp(`\\b${pkg}\\b`));
    // The entry point is this repo's CLI, under tini (PID 1 reaps the terminal's children, passes SIGTERM on).
    const entry = JSON.parse(/^ENTRYPOINT (.*)$/m.exec(DOCKERFILE)![1]!) as string[];
    expect(entry.slice(0, 3)).toEqual(['/usr/bin/tini', '--', 'node']);
    expect(existsSync(path.join(ROOT, entry[3]!))).toBe(true);
    expect(DOCKERFILE).toMatch(/^USER node$/m);
    expect(DOCKERFILE).toMatch(/^STOPSIGNAL SIGTERM$/m);
    // Every path it copies exists.
    for (const m of DOCKERFILE.matchAll(/^COPY (.+) \S+$/gm)) for (const f of m[1]!.split(' ')) expect(existsSync(path.join(ROOT, f)), f).toBe(true);
  });
});
