// A damaged payload store seen from the CLI: `hermes status` and `hermes replay` of a conversation whose input
// is in the store, after its file was overwritten, say so in one plain line each — no JSON log lines, no stacks.
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { answer, createHarness, type Harness } from './helpers/harness';
import { spawnHermes } from './helpers/spawn-hermes';

const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-store-cli-'));
// Read by the harness's client and worker: a prompt of a few KB goes to the store.
process.env.HERMES_PAYLOAD_STORE = dir;
process.env.HERMES_PAYLOAD_STORE_THRESHOLD = '1024';
let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
  delete process.env.HERMES_PAYLOAD_STORE;
  delete process.env.HERMES_PAYLOAD_STORE_THRESHOLD;
  rmSync(dir, { recursive: true, force: true });
});

function storedFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(root, f))
    .filter((f) => f.endsWith('.gz') && statSync(f).isFile());
}

describe('a damaged payload store, from the CLI', () => {
  it('hermes status and hermes replay print one clean line, not log lines with stacks', async () => {
    h.mock.push(answer('read it'));
    const id = await h.run(async () => {
      const handle = await h.hermes.start({ prompt: `summarize: ${'lorem ipsum '.repeat(400)}` });
      expect((await handle.result()).status).toBe('completed');
      return handle.id;
    });
    const files = storedFiles(dir);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) writeFileSync(f, Buffer.from('not a gzip file'));

    const env = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      HERMES_TASK_QUEUE: h.taskQueue,
      HERMES_PAYLOAD_STORE: dir,
      HERMES_PAYLOAD_STORE_THRESHOLD: '1024',
    };
    for (const args of [
      ['status', id],
      ['replay', id],
    ]) {
      const r = await spawnHermes(args, { env });
      const out = `${r.stdout}${r.stderr}`;
      // No log line of the SDK's, no stack (a JS one, or a Rust dump's stack_trace).
      expect(out, args[0]).not.toMatch(/"level":|^\s+at |stack_trace/m);
      const said = out.split('\n').filter((l) => /payload store/.test(l));
      expect(said, `${args[0]}: ${out}`).toHaveLength(1);
      expect(said[0], args[0]).toMatch(/payload store: [0-9a-f]{64} is corrupt in .* \(not gzip: incorrect header check\)$/);
    }
    expect((await spawnHermes(['replay', id], { env })).code).toBe(1);
  }, 60_000);
});
