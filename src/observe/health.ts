// `hermes worker --health-port N`: liveness and readiness over HTTP, for Kubernetes probes and compose health
// checks. Liveness says the process is up and its event loop answers; readiness says it can take work: every
// Worker of the process is RUNNING (polling; not starting, not draining after SIGTERM) and the Temporal frontend
// answers a cheap call. A draining worker turns unready at once, so a load balancer or rollout stops counting on it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What readiness reads: the Worker states of the process (by build), and a call to the Temporal frontend. */
export interface HealthSource {
  /** Worker state by build ('' for an unversioned worker); empty while the worker is starting. */
  states(): Record<string, string>;
  /** Resolves when the Temporal frontend answers (the caller bounds it with a deadline). */
  ping(): Promise<unknown>;
}

export interface HealthServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** How long readiness waits for the Temporal frontend before it says "unreachable". */
const PING_TIMEOUT_MS = 2_000;

/**
 * Loopback unless told otherwise (HERMES_HEALTH_HOST): a probe from the same host or pod reaches it, and nothing
 * else does until the operator says so (docker-compose.yml sets 0.0.0.0, where Docker's network is the boundary).
 */
export const DEFAULT_HEALTH_HOST = '127.0.0.1';

export async function startHealthServer(o: { port: number; host?: string; source: () => HealthSource | undefined }): Promise<HealthServer> {
  const host = o.host || DEFAULT_HEALTH_HOST;
  const startedAt = Date.now();
  const server = http.createServer((req, res) => {
    const reply = (code: number, body: Record<string, unknown>) => {
      res.writeHead(code, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(`${JSON.stringify(body)}\n`);
    };
    const url = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return reply(405, { error: 'GET only' });
    if (url === '/healthz' || url === '/livez')
      return reply(200, { status: 'ok', pid: process.pid, uptimeSec: Math.round((Date.now() - startedAt) / 1000) });
    if (url !== '/readyz') return reply(404, { error: 'try /healthz or /readyz' });
    void readiness(o.source()).then(({ ready, ...rest }) => reply(ready ? 200 : 503, { ready, ...rest }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, host, () => resolve());
  });
  server.unref();
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function readiness(source: HealthSource | undefined): Promise<{ ready: boolean; workers: Record<string, string>; why?: string }> {
  if (!source) return { ready: false, workers: {}, why: 'starting' };
  const workers = Object.fromEntries(Object.entries(source.states()).map(([build, state]) => [build || 'unversioned', state]));
  const notRunning = Object.entries(workers).filter(([, s]) => s !== 'RUNNING');
  if (Object.keys(workers).length === 0) return { ready: false, workers, why: 'no worker is running' };
  if (notRunning.length) return { ready: false, workers, why: notRunning.map(([b, s]) => `worker ${b} is ${s}`).join('; ') };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS);
  });
  try {
    await Promise.race([source.ping(), timeout]);
    return { ready: true, workers };
  } catch (err) {
    return { ready: false, workers, why: `Temporal unreachable: ${(err as Error).message}` };
  } finally {
    clearTimeout(timer);
  }
}
