// Secrets stay out of history and logs, end to end (issue 10, items 1 and 2): the acceptance run against the real
// dev server — the model runs `env`, `echo $OPENAI_API_KEY`, reads a planted .env with read_file and `terminal
// cat`, answers with a key; nothing secret reaches the history (every payload decoded and searched), the log, or
// the model. In-process and as a `hermes worker` process. The redactor's own rules: redaction.test.ts.
import { Client, Connection } from '@temporalio/client';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { ContextCache } from '../src/activities/context';
import { Hermes } from '../src/client';
import { passesToTool } from '../src/tools/env';
import { answer, createHarness, toolCall, toolResult, type Harness } from './helpers/harness';
import { historyText } from './helpers/history-text';
import { ALNUM, b64url, rand } from './helpers/random-secrets';
import { MockModel, type Reply } from './helpers/mock-model';
import { cleanupsAfterEach, startWorkerProcess } from './helpers/worker-process';

const cleanups = cleanupsAfterEach();

// ---------------------------------------------------------------------------------------------------------
// Fixtures: random secrets, so no test passes because a string happened to be absent anyway.

function secrets() {
  const jwtSig = rand(43, `${ALNUM}-_`);
  const pemLines = Array.from({ length: 12 }, () => rand(64, `${ALNUM}+/`));
  return {
    workerKey: `sk-test-${rand(40)}7`,
    workerToken: `tok-${rand(30)}`,
    fileKey: `sk-proj-${rand(44)}3`,
    awsId: `AKIA${rand(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}`,
    awsSecret: rand(40, `${ALNUM}/+`),
    jwt: `${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url(`{"sub":"${rand(12)}","iat":1700000000}`)}.${jwtSig}`,
    jwtSig,
    pemLines,
  };
}
type Secrets = ReturnType<typeof secrets>;

function dotEnv(s: Secrets): string {
  return [
    '# planted by the test',
    `OPENAI_API_KEY=${s.fileKey}`,
    `AWS_ACCESS_KEY_ID=${s.awsId}`,
    `AWS_SECRET_ACCESS_KEY=${s.awsSecret}`,
    `SESSION_JWT=${s.jwt}`,
    'DEPLOY_KEY_PEM="',
    '-----BEGIN RSA PRIVATE KEY-----',
    ...s.pemLines,
    '-----END RSA PRIVATE KEY-----',
    '"',
    'PORT=8080',
    '',
  ].join('\n');
}

/** Every string that must not leave the worker. */
function secretStrings(s: Secrets): string[] {
  return [s.workerKey, s.workerToken, s.fileKey, s.awsId, s.awsSecret, s.jwt, s.jwtSig, ...s.pemLines];
}

function leaked(haystack: string, s: Secrets): string[] {
  return secretStrings(s).filter((x) => haystack.includes(x));
}

// ---------------------------------------------------------------------------------------------------------
// ---------------------------------------------------------------------------------------------------------
// Acceptance against the real dev server.

/** The scripted run: env, echo the key, read the .env two ways, answer quoting a key. */
function script(s: Secrets): Reply[] {
  return [
    toolCall('terminal', { command: 'env' }, 'env'),
    toolCall('terminal', { command: 'echo "key=$OPENAI_API_KEY token=$HERMES_TEST_SECRET_TOKEN"' }, 'echo'),
    toolCall('read_file', { path: '.env' }, 'read'),
    toolCall('terminal', { command: 'cat .env' }, 'cat'),
    answer(`Found it: OPENAI_API_KEY is ${s.workerKey} and the AWS key id ${s.awsId}.`),
  ];
}

/** What the model saw: the env output holds no worker secret and no variable outside the allow-list. */
function checkToolResults(mock: MockModel, s: Secrets, workerEnv: NodeJS.ProcessEnv) {
  const last = mock.requests.at(-1)!.messages;
  const envOut = toolResult(last, 'env')!;
  expect(envOut).toMatch(/^PATH=/m);
  expect(envOut).not.toMatch(/^OPENAI_API_KEY=/m);
  expect(envOut).not.toMatch(/^HERMES_TEST_/m);
  // bash sets these itself; the terminal adds the rest of this list.
  const own = new Set(['PWD', 'OLDPWD', 'SHLVL', '_', 'PAGER', 'GIT_PAGER', 'GIT_TERMINAL_PROMPT', 'HERMES_TERMINAL_TOKEN']);
  const names = [...envOut.matchAll(/^([A-Za-z_][A-Za-z0-9_]*)=/gm)].map((m) => m[1]!);
  const outside = names.filter((n) => workerEnv[n] !== undefined && !own.has(n) && !passesToTool(n));
  expect(outside).toEqual([]);
  expect(toolResult(last, 'echo')).toBe('key= token=\nexit code: 0');
  for (const id of ['read', 'cat']) {
    const out = toolResult(last, id)!;
    expect(out).toContain('[REDACTED:private-key]');
    expect(out).toContain('[REDACTED:aws-access-key-id]');
    expect(out).toContain('[REDACTED:aws-secret-key]');
    expect(out).toContain('[REDACTED:jwt]');
    expect(out).toContain('PORT=8080');
  }
  const all = JSON.stringify(mock.requests.map((r) => r.messages as unknown));
  expect(leaked(all, s)).toEqual([]);
}

async function checkHistoryAndState(client: Client, hermes: Hermes, id: string, s: Secrets) {
  const history = await client.workflow.getHandle(id).fetchHistory();
  const text = historyText(history);
  expect(text).toContain('[REDACTED:'); // the payloads were decoded: the placeholders are there
  expect(leaked(text, s)).toEqual([]);
  const state = await hermes.get(id).state({ stepsAfter: 0 });
  expect(state.redactions).toBeGreaterThanOrEqual(10);
  const steps = state.steps.filter((st) => st.redactions);
  // read_file and cat (.env: key, AWS pair, JWT, PEM) and the final answer (the key, the AWS id).
  expect(steps.filter((st) => st.kind === 'tool').length).toBeGreaterThanOrEqual(2);
  expect(steps.find((st) => st.kind === 'model')?.redactions).toBe(2);
  expect(steps.reduce((n, st) => n + (st.redactions ?? 0), 0)).toBe(state.redactions);
}

describe('acceptance: secrets stay out of history and logs (real dev server)', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('in-process worker: terminal env/echo, .env via read_file and cat, a key in the answer', async () => {
    const s = secrets();
    const planted = { OPENAI_API_KEY: s.workerKey, HERMES_TEST_SECRET_TOKEN: s.workerToken };
    const saved = Object.fromEntries(Object.keys(planted).map((k) => [k, process.env[k]]));
    cleanups.push(() => {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    });
    Object.assign(process.env, planted); // before the worker is made: its redactor reads the environment
    h = await createHarness(script(s));
    writeFileSync(path.join(h.workspace, '.env'), dotEnv(s));
    const harness = h;
    const cache = new ContextCache();
    await h.run(
      async () => {
        const handle = await harness.hermes.start({ prompt: 'look around' });
        const result = await handle.result();
        expect(result.status).toBe('completed');
        expect(result.answer).toBe('Found it: OPENAI_API_KEY is [REDACTED:env:OPENAI_API_KEY] and the AWS key id [REDACTED:aws-access-key-id].');
        harness.mock.assertDone();
        checkToolResults(harness.mock, s, process.env);
        await checkHistoryAndState(harness.client, harness.hermes, handle.id, s); // the state query needs the worker
      },
      { contextCache: cache },
    );
    // The cache holds the redacted texts, exactly what the workflow recorded: every step after the first is
    // rebuilt from them; the first came with its whole context. No query at all.
    expect(cache.stats).toEqual({ queries: 0, rebuilt: 4, whole: 1, resets: 0 });
  });

  it('`hermes worker` process: the same run, plus a model failure quoting the key; its log holds no secret', async () => {
    const s = secrets();
    const address = inject('temporalAddress');
    // First a failure whose text quotes the worker's key (as an endpoint's error may): logged and retried.
    const mock = await MockModel.start([{ status: 500, body: { error: { message: `upstream rejected ${s.workerKey}` } } }, ...script(s)]);
    cleanups.push(() => mock.close());
    const connection = await Connection.connect({ address });
    cleanups.push(() => connection.close());
    const client = new Client({ connection });
    const taskQueue = `redaction-${process.pid}-${Date.now().toString(36)}`;
    const hermes = await Hermes.connect({ client, taskQueue });
    const workspace = await realpath(mkdtempSync(path.join(os.tmpdir(), 'hermes-redact-')));
    cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
    writeFileSync(path.join(workspace, '.env'), dotEnv(s));
    const env = {
      TEMPORAL_ADDRESS: address,
      HERMES_TASK_QUEUE: taskQueue,
      OPENAI_BASE_URL: mock.baseURL,
      OPENAI_API_KEY: s.workerKey,
      HERMES_TEST_SECRET_TOKEN: s.workerToken,
      HERMES_MODEL: 'mock',
      HERMES_WORKSPACE: workspace,
      HERMES_LOG_LEVEL: 'debug',
      HERMES_SDK_LOG_LEVEL: 'INFO',
    };
    const worker = startWorkerProcess(env, workspace);
    await worker.ready;
    const handle = await hermes.start({ prompt: 'look around' });
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(result.answer).toContain('[REDACTED:env:OPENAI_API_KEY]');
    mock.assertDone();
    checkToolResults(mock, s, { ...process.env, ...env });
    await checkHistoryAndState(client, hermes, handle.id, s);
    // The key was sent to the model endpoint (it is the worker's model key) — and nowhere else.
    expect(mock.requests[0]!.headers.authorization).toBe(`Bearer ${s.workerKey}`);
    worker.child.kill('SIGTERM');
    await worker.exited;
    const log = worker.output();
    const failed = log.split('\n').filter((l) => l.includes('Activity failed'));
    expect(failed.join('\n')).toContain('upstream rejected [REDACTED:env:OPENAI_API_KEY]');
    expect(leaked(log, s)).toEqual([]);
    expect(existsSync(path.join(workspace, '.env'))).toBe(true);
  });
});
