// `hermes search` on the embedded server, as a user runs it: `hermes run` finishes a conversation (the server it
// started stops with it), then `hermes search` starts the server again on the same SQLite file and finds the
// conversation by a word of its answer in the Text attribute's full-text index — with a snippet, without the secret.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { answer } from './helpers/harness';
import { MockModel } from './helpers/mock-model';
import { freePort, spawnHermes } from './helpers/spawn-hermes';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'hermes-cli-search-'));
const mocks: MockModel[] = [];
afterAll(async () => {
  await Promise.all(mocks.map((m) => m.close()));
  rmSync(tmp, { recursive: true, force: true });
});

const SECRET = ['sk', 'proj', 'M1n2B3v4C5x6Z7l8K9j0H1g2F3d4'].join('-');

describe('hermes search (embedded server)', () => {
  it('finds a finished conversation by a word of its answer, with a snippet and no secret', async () => {
    const mock = await MockModel.start([answer('We picked Postgres; the zebrafish migration is next week.')]);
    mocks.push(mock);
    const cliPath = inject('temporalCliPath');
    const env = {
      OPENAI_BASE_URL: mock.baseURL,
      OPENAI_API_KEY: 'sk-test',
      HERMES_MODEL: 'mock-model',
      HERMES_HOME: mkdtempSync(path.join(tmp, 'home-')),
      ...(cliPath ? { TEMPORAL_CLI_PATH: cliPath } : {}),
      HERMES_TEMPORAL_PORT: String(await freePort()),
      HERMES_UI_PORT: String(await freePort()),
    };
    const cwd = mkdtempSync(path.join(tmp, 'cwd-'));
    const ran = await spawnHermes(['run', '--quiet', '--id', 'search-me', `Which database? My key is ${SECRET}`], { env, cwd });
    expect(ran.code, ran.stderr).toBe(0);

    // Visibility is eventually consistent: a bounded number of tries, not a sleep.
    let found: { hits: Array<{ id: string; snippet: string }> } | undefined;
    let last = '';
    for (let i = 0; i < 5 && !found; i++) {
      const r = await spawnHermes(['search', 'zebrafish', '--json'], { env, cwd });
      last = `exit ${r.code}\n${r.stdout}\n${r.stderr}`;
      expect(r.stdout + r.stderr).not.toContain(SECRET);
      if (r.code === 0) found = JSON.parse(r.stdout);
    }
    expect(found, last).toBeDefined();
    expect(found!.hits.map((h) => h.id)).toEqual(['search-me']);
    expect(found!.hits[0]!.snippet).toContain('the zebrafish migration is next week');
    expect(found!.hits[0]!.snippet).toContain('[REDACTED');
  }, 90_000);
});
