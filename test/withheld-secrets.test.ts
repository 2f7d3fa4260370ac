// No silent rewriting: a secret the model writes into a call is redacted before the call is recorded, so the tool
// gets a placeholder. A tool that writes what it is given (write_file, patch, terminal, skill_manage) refuses such a
// call with a reason the model reads, and `hermes skills add` refuses a skill holding a secret instead of storing it
// redacted. A real worker on the dev server, real files; only the model's answers are scripted.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { SkillsClient } from '../src/skills/client';
import { skillsWorkflowId } from '../src/shared/skills';
import { answer, createHarness, toolCall, toolResult, type Harness } from './helpers/harness';
import { rand } from './helpers/random-secrets';
import { spawnHermes } from './helpers/spawn-hermes';
import { cleanupsAfterEach } from './helpers/worker-process';

const cleanups = cleanupsAfterEach();

async function harness(script: Parameters<typeof createHarness>[0]): Promise<Harness> {
  const h = await createHarness(script);
  cleanups.push(() => h.close());
  return h;
}

describe('a placeholder is never written where a secret belongs', () => {
  it('write_file, patch and terminal refuse arguments holding a placeholder, say why, and change nothing', async () => {
    const key = `sk-proj-${rand(40)}9`;
    const h = await harness([
      toolCall('write_file', { path: 'deploy.env', content: `OPENAI_API_KEY=${key}\nPORT=8080\n` }, 'w1'),
      toolCall('patch', { path: 'app.env', old_string: 'PORT=1', new_string: `PORT=1\nOPENAI_API_KEY=${key}` }, 'p1'),
      toolCall('terminal', { command: `echo 'OPENAI_API_KEY=${key}' > shell.env` }, 't1'),
      toolCall('write_file', { path: 'plain.txt', content: 'no secret here\n' }, 'w2'),
      answer('I could not write the key; please add it yourself.'),
    ]);
    writeFileSync(path.join(h.workspace, 'app.env'), 'PORT=1\n');
    const result = await h.run(async () => (await h.hermes.start({ prompt: 'create deploy.env with my key' })).result());
    expect(result.status, JSON.stringify(result)).toBe('completed');

    const reqs = h.mock.requests;
    for (const [i, id, tool] of [
      [1, 'w1', 'write_file'],
      [2, 'p1', 'patch'],
      [3, 't1', 'terminal'],
    ] as const) {
      const res = toolResult(reqs[i]!.messages, id);
      expect(res).toMatch(new RegExp(`^Error: ${tool} was not run: its arguments hold \\[REDACTED:openai-key\\], a placeholder`));
      expect(res).toMatch(/withheld from the model.*Nothing was changed.*they must write that value themselves/s);
    }
    expect(existsSync(path.join(h.workspace, 'deploy.env'))).toBe(false);
    expect(readFileSync(path.join(h.workspace, 'app.env'), 'utf8')).toBe('PORT=1\n');
    expect(existsSync(path.join(h.workspace, 'shell.env'))).toBe(false);
    // A call without one runs as before.
    expect(toolResult(reqs[4]!.messages, 'w2')).toBe('Wrote 15 bytes to plain.txt');
    expect(JSON.stringify(reqs)).not.toContain(key);
  });

  it('hermes skills add refuses a skill that holds a secret (exit 1, nothing stored); the client refuses it too', async () => {
    const h = await harness([]);
    const store = `withheld-${process.pid}-${Date.now().toString(36)}`;
    cleanups.push(() =>
      h.client.workflow
        .getHandle(skillsWorkflowId(store))
        .terminate('test over')
        .catch(() => undefined),
    );
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-skill-'));
    const skillDir = path.join(dir, 'deploy-notes');
    mkdirSync(skillDir);
    const token = `ghp_${rand(36)}`;
    writeFileSync(
      path.join(skillDir, 'SKILL.md'),
      `---\nname: deploy-notes\ndescription: How to deploy. Use when deploying.\n---\n# Deploy\nUse GITHUB_TOKEN=${token} to push.\n`,
    );
    const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), HERMES_TASK_QUEUE: h.taskQueue, HERMES_SKILLS_STORE: store };
    const cli = await h.run(() => spawnHermes(['skills', 'add', skillDir], { env, timeoutMs: 60_000 }));
    expect(cli.code, cli.stdout + cli.stderr).toBe(1);
    expect(cli.stdout).not.toMatch(/Created skill/);
    expect(cli.stderr).toMatch(/hermes skills add: skill "deploy-notes": SKILL\.md holds a secret \(\[REDACTED:github-token\]/);
    expect(cli.stderr).not.toContain(token);

    const client = new SkillsClient(h.client, store, { taskQueue: h.taskQueue });
    await expect(
      client.write({
        action: 'create',
        name: 'x-notes',
        content: '---\nname: x-notes\ndescription: d\n---\nok\n',
        files: { 'a.env': `GITHUB_TOKEN=${token}` },
      }),
    ).rejects.toThrow(/a\.env holds a secret/);
    expect(await client.read()).toEqual({});
  });
});
