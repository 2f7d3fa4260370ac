// `hermes init` → `hermes tools` → `hermes run` with the example tool, as a user does it (real processes, a real
// worker started in the initialised directory, the scripted model); an invalid config stops the start naming the
// file and the field; the repository's db_query example over a real SQLite file.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sqlite from 'node-sqlite3-wasm';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { EXAMPLE_TOOL } from '../src/cli/init';
import { catalogFromConfig } from '../src/tools/external';
import { answer, createHarness, toolCall, toolResult, type Harness } from './helpers/harness';
import { spawnHermes } from './helpers/spawn-hermes';
import { cleanupsAfterEach, startWorkerProcess, workerEnv } from './helpers/worker-process';

let h: Harness | undefined;
const cleanups = cleanupsAfterEach();
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('hermes init, tools and run with a custom tool', () => {
  it('init in an empty directory, then tools lists the example and run calls it', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-init-'));
    const init = await spawnHermes(['init'], { cwd: dir });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('wrote hermes.config.mjs');
    expect(init.stdout).toContain('wrote tools/word_count.mjs');

    const listed = await spawnHermes(['tools', '--json'], { cwd: dir });
    expect(listed.code, listed.stderr).toBe(0);
    const rows = (JSON.parse(listed.stdout) as { tools: Array<{ name: string; source: string; toolset: string; parameters: object }> }).tools;
    expect(rows.find((r) => r.name === 'word_count')).toMatchObject({
      source: `module:${path.join(dir, 'tools', 'word_count.mjs')}`,
      toolset: 'custom',
      parameters: { type: 'object', required: ['path'] },
    });
    expect(rows.find((r) => r.name === 'read_file')).toMatchObject({ source: 'builtin', toolset: 'files' });

    h = await createHarness([toolCall('word_count', { path: 'notes.txt' }, 'wc'), answer('notes.txt has 3 words')]);
    writeFileSync(path.join(dir, 'notes.txt'), 'one two\nthree\n');
    const address = inject('temporalAddress');
    const worker = startWorkerProcess(workerEnv({ address, taskQueue: h.taskQueue, baseURL: h.mock.baseURL, workspace: dir }), dir);
    await worker.ready;
    const run = await spawnHermes(['run', 'count the words in notes.txt'], {
      cwd: dir,
      env: { TEMPORAL_ADDRESS: address, HERMES_TASK_QUEUE: h.taskQueue },
    });
    expect(run.code, `${run.stderr}\n${worker.output()}`).toBe(0);
    expect(run.stdout).toContain('notes.txt has 3 words');
    expect(h.mock.requests[0]!.tools).toContain('word_count');
    expect(JSON.parse(toolResult(h.mock.requests[1]!.messages, 'wc')!)).toEqual({ path: 'notes.txt', lines: 2, words: 3, characters: 14 });
    cleanups.push(() => worker.child.kill('SIGKILL'));
  });

  it('an invalid config fails the start of the worker and of hermes tools, naming the file and the field', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-bad-'));
    const file = path.join(dir, 'hermes.config.json');
    writeFileSync(file, JSON.stringify({ tools: { modules: [42] }, limits: { maxIterations: 'many' } }));
    const tools = await spawnHermes(['tools'], { cwd: dir });
    expect(tools.code).toBe(1);
    expect(tools.stderr).toContain(`invalid configuration in ${file}`);
    expect(tools.stderr).toMatch(/tools\.modules\[0\]: .*expected string, received number/);
    expect(tools.stderr).toMatch(/limits\.maxIterations: .*expected number/);

    const worker = startWorkerProcess({ TEMPORAL_ADDRESS: inject('temporalAddress'), HERMES_TASK_QUEUE: 'never-used' }, dir);
    const exit = await worker.exited;
    expect(exit.code).not.toBe(0);
    expect(worker.output()).toContain(`invalid configuration in ${file}`);
    expect(worker.output()).toContain('tools.modules[0]');

    // A module that exports no tool, or takes a built-in's name, stops the start with the module named.
    writeFileSync(
      path.join(dir, 'clash.mjs'),
      "export default ({ defineTool, z }) => defineTool({ name: 'read_file', description: 'x', parameters: z.object({}), handler: () => '' });",
    );
    writeFileSync(file, JSON.stringify({ tools: { modules: ['clash.mjs'] } }));
    const clash = await spawnHermes(['tools'], { cwd: dir });
    expect(clash.code).toBe(1);
    expect(clash.stderr).toMatch(
      /custom tools from .*hermes\.config\.json: tools\.modules \(clash\.mjs\): tool read_file has the name of a built-in tool/,
    );
  });
});

describe('the examples stay in the workspace (real paths: a symlink out of it is refused)', () => {
  it("hermes init's word_count", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-wc-'));
    mkdirSync(path.join(dir, 'tools'));
    writeFileSync(path.join(dir, 'tools', 'word_count.mjs'), EXAMPLE_TOOL);
    const outside = mkdtempSync(path.join(os.tmpdir(), 'hermes-outside-'));
    writeFileSync(path.join(outside, 'secret.txt'), 'top secret words\n');
    h = await createHarness([
      {
        toolCalls: [
          { name: 'word_count', arguments: { path: 'link.txt' }, id: 'w1' },
          { name: 'word_count', arguments: { path: 'sub/passwd' }, id: 'w2' },
          { name: 'word_count', arguments: { path: path.join(outside, 'secret.txt') }, id: 'w3' },
          { name: 'word_count', arguments: { path: '../secret.txt' }, id: 'w4' },
          { name: 'word_count', arguments: { path: 'notes.txt' }, id: 'w5' },
        ],
      },
      answer('done'),
    ]);
    symlinkSync(path.join(outside, 'secret.txt'), path.join(h.workspace, 'link.txt'));
    symlinkSync('/etc', path.join(h.workspace, 'sub'));
    writeFileSync(path.join(h.workspace, 'notes.txt'), 'one two\nthree\n');
    const catalog = catalogFromConfig({ tools: { modules: [path.join(dir, 'tools')] } }, undefined);
    await catalog.start();
    const result = await h.run(async () => (await h!.hermes.start({ prompt: 'count', tools: ['word_count'] })).result(), { catalog });
    expect(result.status).toBe('completed');
    const msgs = h.mock.requests[1]!.messages;
    for (const [id, p] of [
      ['w1', 'link.txt'],
      ['w2', 'sub/passwd'],
      ['w3', path.join(outside, 'secret.txt')],
      ['w4', '../secret.txt'],
    ]) {
      expect(toolResult(msgs, id!), id).toMatch(new RegExp(`^Error: path "${p!.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}" is outside the workspace`));
    }
    expect(JSON.parse(toolResult(msgs, 'w5')!)).toEqual({ path: 'notes.txt', lines: 2, words: 3, characters: 14 });
  });
});

describe('the db_query example (examples/tools/db_query.mjs)', () => {
  it('runs SELECTs with an enforced limit over a SQLite file and refuses anything else', async () => {
    h = await createHarness([
      {
        toolCalls: [
          {
            name: 'db_query',
            arguments: { database: 'app.db', sql: 'SELECT name FROM users WHERE id >= ? ORDER BY id', params: [2], limit: 2 },
            id: 'q1',
          },
          { name: 'db_query', arguments: { database: 'app.db', sql: 'DELETE FROM users' }, id: 'q2' },
          { name: 'db_query', arguments: { database: 'app.db', sql: 'SELECT 1; DROP TABLE users' }, id: 'q3' },
          { name: 'db_query', arguments: { database: 'app.db', sql: 'SELECT * FROM users', limit: 5000 }, id: 'q4' },
          { name: 'db_query', arguments: { database: 'elsewhere.db', sql: 'SELECT * FROM secrets' }, id: 'q5' },
        ],
      },
      answer('done'),
    ]);
    const db = new sqlite.Database(path.join(h.workspace, 'app.db'));
    db.exec('CREATE TABLE users (id INTEGER, name TEXT)');
    for (let i = 0; i < 6; i++) db.run('INSERT INTO users VALUES (?, ?)', [i, `user${i}`]);
    db.close();
    // A database outside the workspace, reached through a symlink inside it.
    const outside = path.join(mkdtempSync(path.join(os.tmpdir(), 'hermes-outside-')), 'secrets.db');
    const other = new sqlite.Database(outside);
    other.exec("CREATE TABLE secrets (v TEXT); INSERT INTO secrets VALUES ('not yours')");
    other.close();
    symlinkSync(outside, path.join(h.workspace, 'elsewhere.db'));
    const catalog = catalogFromConfig({ tools: { modules: [path.resolve('examples/tools/db_query.mjs')] } }, undefined);
    await catalog.start();
    const result = await h.run(async () => (await h!.hermes.start({ prompt: 'query', tools: ['db_query'] })).result(), { catalog });
    expect(result.status).toBe('completed');
    const msgs = h.mock.requests[1]!.messages;
    expect(toolResult(msgs, 'q1')).toBe(
      '[{"name":"user2"},{"name":"user3"}]\n(more than 2 rows; showing the first 2 — raise limit or narrow the query)',
    );
    expect(toolResult(msgs, 'q2')).toBe('Error: only one SELECT statement is allowed');
    expect(toolResult(msgs, 'q3')).toBe('Error: only one SELECT statement is allowed');
    expect(toolResult(msgs, 'q4')).toMatch(/^Error: invalid arguments for db_query: \/limit must be <= 1000/);
    expect(toolResult(msgs, 'q5')).toMatch(/^Error: path "elsewhere\.db" is outside the workspace/);
    expect(h.mock.requests[0]!.tools).toEqual(['db_query']);
    const check = new sqlite.Database(path.join(h.workspace, 'app.db'));
    expect(check.get('SELECT count(*) AS n FROM users')).toEqual({ n: 6 });
    check.close();
  });
});
