// A cluster the CLI cannot use is said at once, naming the address and the namespace and what to check: a port
// nobody listens on, a host that does not resolve, something that is not Temporal, a namespace that does not exist.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort, spawnHermes } from './helpers/spawn-hermes';

let notTemporal: http.Server;
/** Milliseconds `hermes --help` takes here: the process start (tsx) that every run below pays too. */
let startup = 0;
beforeAll(async () => {
  notTemporal = http.createServer((_req, res) => res.end('hello'));
  await new Promise<void>((r) => notTemporal.listen(0, '127.0.0.1', r));
  startup = (await spawnHermes(['--help'])).ms;
});
afterAll(() => new Promise<void>((r) => notTemporal.close(() => r())));

/**
 * What the CLI did before: gRPC retried an unusable address for 10 s. Measured against that (half of it), net of
 * the process start measured in the same run, not against a fixed stopwatch.
 */
const GRPC_RETRY_MS = 10_000;

/** `hermes status x` against that address, and how much longer it took than the process start. */
async function statusAt(env: Record<string, string>) {
  const r = await spawnHermes(['status', 'hermes-nothing'], { env, timeoutMs: 60_000 });
  console.log(`${JSON.stringify(env)}: exit ${r.code} after ${r.ms} ms (${r.ms - startup} ms more than hermes --help)`);
  return { ...r, extraMs: r.ms - startup };
}

describe('a Temporal address the CLI cannot use', () => {
  it('a port nobody listens on: refused, named with the namespace, at once', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    const r = await statusAt({ TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: 'team-a' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`cannot reach the Temporal server at ${address} (namespace team-a, from TEMPORAL_ADDRESS)`);
    expect(r.stderr).toMatch(/connection refused/);
    expect(r.stderr).toMatch(/check/i);
    expect(r.extraMs).toBeLessThan(GRPC_RETRY_MS / 2);
  });

  it('a host that does not resolve', async () => {
    const r = await statusAt({ TEMPORAL_ADDRESS: 'temporal.nonexistent.invalid:7233' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('cannot reach the Temporal server at temporal.nonexistent.invalid:7233 (namespace default, from TEMPORAL_ADDRESS)');
    expect(r.stderr).toMatch(/does not resolve/);
    expect(r.extraMs).toBeLessThan(GRPC_RETRY_MS / 2);
  });

  it('something that is not Temporal gRPC', async () => {
    const address = `127.0.0.1:${(notTemporal.address() as AddressInfo).port}`;
    const r = await statusAt({ TEMPORAL_ADDRESS: address });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`cannot reach the Temporal server at ${address} (namespace default, from TEMPORAL_ADDRESS)`);
    // An HTTP/1 server answers the HTTP/2 preface with a 400: said at once, with the likely mix-up of ports.
    expect(r.stderr).toContain('a web server or another text protocol answers there, not a gRPC server (it said "HTTP/1.1 400 Bad Request")');
    expect(r.stderr).toContain("the Temporal Web UI's port");
    expect(r.extraMs).toBeLessThan(GRPC_RETRY_MS / 2);
  });

  it('a namespace that does not exist on a real server', async () => {
    const r = await statusAt({ TEMPORAL_ADDRESS: inject('temporalAddress'), TEMPORAL_NAMESPACE: 'no-such-namespace' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`namespace no-such-namespace does not exist on the Temporal server at ${inject('temporalAddress')}`);
    expect(r.extraMs).toBeLessThan(GRPC_RETRY_MS / 2);
  });
});
