// Secrets stay out of history and logs (issue 10, items 1 and 2): the redactor's shapes and env-derived values,
// model replies, log lines and the scrubbed environment of terminal commands, without a server. The acceptance
// run against the real dev server is redaction-acceptance.test.ts.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { redactResult } from '../src/activities/model';
import { loadSecurityConfig } from '../src/llm/profiles';
import { createLogger, redactLogLine } from '../src/observe/logger';
import { Redactor } from '../src/security/redact';
import type { ModelCallResult } from '../src/shared/wire';
import { BASE_TOOL_ENV, parseEnvList, passesToTool, toolEnv } from '../src/tools/env';
import { terminal } from '../src/tools/terminal/handler';
import { finishToolOutput } from '../src/tools/output';
import { cpuMs, onePassMs, repeatedTo } from './helpers/cpu-time';
import { cleanupsAfterEach } from './helpers/cleanups';

const cleanups = cleanupsAfterEach();

describe('Redactor: credential shapes', () => {
  const r = new Redactor({ env: {} });
  const one = (input: string) => r.redact(input);

  it.each([
    ['openai key', 'key: sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb3dEf6hIj9k end', 'key: [REDACTED:openai-key] end'],
    ['legacy openai key', 'sk-' + 'a1B2c3D4e5'.repeat(5), '[REDACTED:openai-key]'],
    ['anthropic key', `ANTHROPIC=sk-ant-api03-${'x9Y8z7W6v5'.repeat(9)}-AbCd`, 'ANTHROPIC=[REDACTED:anthropic-key]'],
    ['github classic', 'token ghp_' + 'aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6', 'token [REDACTED:github-token]'],
    [
      'github oauth/user/server/refresh',
      'gho_a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8 ghs_A1B2C3D4E5F6G7H8I9J0K1L2M3N4O5P6Q7R8',
      '[REDACTED:github-token] [REDACTED:github-token]',
    ],
    ['github fine-grained', 'github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyz0123456789ABCDEFGHIJ', '[REDACTED:github-token]'],
    ['aws access key id', 'id=AKIAIOSFODNN7EXAMPLE, temp ASIAY34FZKBOKMUTVV7A', 'id=[REDACTED:aws-access-key-id], temp [REDACTED:aws-access-key-id]'],
    ['aws secret (env)', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'aws_secret_access_key = [REDACTED:aws-secret-key]'],
    [
      'aws secret (JSON)',
      '{"AccessKeyId": "x", "SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}',
      '{"AccessKeyId": "x", "SecretAccessKey": "[REDACTED:aws-secret-key]"}',
    ],
    ['slack', 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx', '[REDACTED:slack-token]'],
    [
      'google',
      'https://maps.googleapis.com/x?key=AIzaSyA-1234567890abcdefghijklmnopqrstu',
      'https://maps.googleapis.com/x?key=[REDACTED:google-api-key]',
    ],
    [
      'jwt',
      'id_token: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U!',
      'id_token: [REDACTED:jwt]!',
    ],
    [
      'pem block',
      'before\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\nafter',
      'before\n[REDACTED:private-key]\nafter',
    ],
    [
      'pem block in JSON',
      '{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----\\n", "x": 1}',
      '{"private_key": "[REDACTED:private-key]\\n", "x": 1}',
    ],
    ['authorization header', 'Authorization: Bearer abc123def456ghi789\nAccept: */*', 'Authorization: Bearer [REDACTED:authorization]\nAccept: */*'],
    ['basic auth', `curl -H 'authorization: Basic dXNlcjpwYXNzd29yZA=='`, `curl -H 'authorization: Basic [REDACTED:authorization]'`],
    ['authorization in JSON', '{"Authorization": "token 0123456789abcdef"}', '{"Authorization": "token [REDACTED:authorization]"}'],
    ['bearer', 'sent with Bearer a1b2c3d4e5f6g7h8 ok', 'sent with Bearer [REDACTED:bearer] ok'],
    [
      'password in a URL',
      'DATABASE_URL=postgres://admin:s3cr3t-P4ss@db.example.com:5432/app',
      'DATABASE_URL=postgres://admin:[REDACTED:url-password]@db.example.com:5432/app',
    ],
    ['password in a URL, no user', 'redis://:hunter22@cache:6379', 'redis://:[REDACTED:url-password]@cache:6379'],
    [
      '.env secret assignment',
      'DB_PASSWORD=correct-horse-battery\nexport STRIPE_SECRET="whsec_abcdefgh"',
      'DB_PASSWORD=[REDACTED:secret]\nexport STRIPE_SECRET="[REDACTED:secret]"',
    ],
  ])('%s', (_name, input, expected) => {
    const out = one(input);
    expect(out.text).toBe(expected);
    expect(out.count).toBe((expected.match(/\[REDACTED:/g) ?? []).length);
  });

  it.each([
    ['ordinary prose', 'The key to this token economy is a secret password policy; the bearer of bad news.'],
    ['a git sha', 'commit 3f786850e387550fdab836ed7e6dc881de23001b (HEAD -> main)'],
    ['a uuid and base64', 'id 123e4567-e89b-12d3-a456-426614174000 data SGVsbG8gd29ybGQhIFRoaXMgaXM='],
    ['URLs without passwords', 'http://example.com:8080/x?y=1 ssh://git@github.com/a/b.git https://user@host/path'],
    ['short or word-like sk-', 'pip install scikit-learn sk-learn; task-queue-name-that-is-long-enough'],
    ['variable references', 'curl -H "Authorization: Bearer $GITHUB_TOKEN" postgres://u:$PGPASSWORD@h/db; echo $OPENAI_API_KEY'],
    ['code mentioning authorization', 'const authorization: AuthorizationHeader = req.headers.authorization;'],
    ['assignments that are not secrets', 'PATH=/usr/bin:/bin\nKEYBOARD=us-international\nTOKEN_FILE=/var/run/secrets/token\nNODE_ENV=production'],
    ['PEM public key and certificate', '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----'],
    ['AKIA too short', 'AKIAEXAMPLE and AKIA1234'],
  ])('leaves %s alone', (_name, input) => {
    expect(one(input)).toEqual({ text: input, count: 0 });
  });

  it('counts nothing the second time (placeholders are never matched again)', () => {
    const input = [
      'Authorization: Bearer abc123def456ghi789',
      'postgres://admin:s3cr3t@db/app',
      'DB_PASSWORD=correct-horse-battery',
      'k=sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z',
      'aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    ].join('\n');
    const once = one(input);
    expect(once.count).toBe(5);
    expect(one(once.text)).toEqual({ text: once.text, count: 0 });
  });

  it('redacts a key block cut by paging or truncation (BEGIN without END, END without BEGIN)', () => {
    const body = Array.from({ length: 4 }, (_, i) => `MIIEvQIBADANBgkqhkiG9w0BAQEFAASC${i}`);
    const head = one(`   1| x\n   2| -----BEGIN RSA PRIVATE KEY-----\n   3| ${body[0]}\n   4| ${body[1]}\n[lines 1-4 of 9]`);
    expect(head.text).toBe('   1| x\n   2| [REDACTED:private-key][lines 1-4 of 9]');
    const tail = one(`   5| ${body[2]}\n   6| ${body[3]}\n   7| -----END RSA PRIVATE KEY-----\n   8| PORT=1`);
    expect(tail.text).toBe('   5| [REDACTED:private-key]\n   8| PORT=1');
    for (const b of body) expect(head.text + tail.text).not.toContain(b);
  });
});

describe('Redactor: values', () => {
  it("redacts the values of the worker's secret-named variables (8+ characters), also JSON- and URL-encoded", () => {
    const r = new Redactor({
      env: {
        MY_SERVICE_API_KEY: 'abcdefgh12345',
        GH_TOKEN: 'plain-token-value',
        DB_PASSWORD: 'p@ss w0rd/"x"',
        AWS_CREDENTIALS_FILE_SECRET: 'zzzzzzzzzz',
        SHORT_TOKEN: 'abc1234',
        HOME: '/home/someone/abcdefgh12345',
        MY_PASSWD: 'mypasswd-value',
      },
    });
    const out = r.redact(
      'k=abcdefgh12345 t=plain-token-value json={"p":"p@ss w0rd/\\"x\\""} url=p%40ss%20w0rd%2F%22x%22 short=abc1234 z=zzzzzzzzzz pw=mypasswd-value',
    );
    expect(out.text).toBe(
      'k=[REDACTED:env:MY_SERVICE_API_KEY] t=[REDACTED:env:GH_TOKEN] json={"p":"[REDACTED:env:DB_PASSWORD]"} url=[REDACTED:env:DB_PASSWORD] ' +
        'short=abc1234 z=[REDACTED:env:AWS_CREDENTIALS_FILE_SECRET] pw=[REDACTED:env:MY_PASSWD]',
    );
    expect(out.count).toBe(6);
    // HOME is not secret-named: its value stays (apart from the secret inside it).
    expect(r.redact('/home/someone/x').count).toBe(0);
  });

  it('redacts configured values and patterns; rejects an invalid pattern', () => {
    const r = new Redactor({ env: {}, values: ['internal-codename-42'], patterns: ['ACME-[0-9]{6}', '/corp_[a-z]+_key/i', 'x*'] });
    expect(r.redact('internal-codename-42 ACME-123456 CORP_prod_KEY ACME-12 xx').text).toBe(
      '[REDACTED:value] [REDACTED:pattern] [REDACTED:pattern] ACME-12 [REDACTED:pattern]',
    );
    expect(() => new Redactor({ patterns: ['(unclosed'] })).toThrow();
  });

  it('redacts strings inside objects and errors (for logs) without touching the originals', () => {
    const r = new Redactor({ env: { X_TOKEN: 'tok-abcdefgh' } });
    const err = new Error('failed with tok-abcdefgh');
    const obj = { a: 'tok-abcdefgh', n: 1, nested: [{ b: 'ok', c: 'x tok-abcdefgh' }], err };
    const out = r.deep(obj);
    expect(out).toEqual({ a: '[REDACTED:env:X_TOKEN]', n: 1, nested: [{ b: 'ok', c: 'x [REDACTED:env:X_TOKEN]' }], err: expect.any(Error) });
    expect(out.err.message).toBe('failed with [REDACTED:env:X_TOKEN]');
    expect(out.err.stack).not.toContain('tok-abcdefgh');
    expect(obj.a).toBe('tok-abcdefgh');
    expect(err.message).toBe('failed with tok-abcdefgh');
    const clean = { a: 'nothing here' };
    expect(r.deep(clean)).toBe(clean);
  });

  // Ratios of CPU times (helpers/cpu-time.ts), not milliseconds. Measured: ordinary output costs 2-6 single regex
  // passes over the same text alone (~10-35 ms per MB) and up to 17 inside the full suite on 2 cores (bound 60; the single
  // pass is short enough to land between the GC pauses the redaction pass pays for); the inputs below 0.1-3.4×
  // ordinary output. A pass that backtracks is hundreds of times slower on them (seconds to minutes per MB).
  it('is linear: ordinary output costs a few regex passes, inputs built to make a regex backtrack no more than it', () => {
    const r = new Redactor({ env: { A_KEY: 'abcdefgh-12345', B_TOKEN: 'zyxwvuts-9876' }, patterns: ['ACME-[0-9]{6}'] });
    const line = 'drwxr-xr-x 2 user user 4096 Jan 1 12:00 file_name.txt https://example.com/a?b=c KEY=value\n';
    const ordinary = repeatedTo(line);
    const inputs = [
      ordinary.replace('file_name', 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z'),
      repeatedTo('eyJ'),
      repeatedTo('sk-'),
      repeatedTo('http://' + 'x'.repeat(100)),
      repeatedTo('-----BEGIN PRIVATE KEY-----'),
      repeatedTo('-----END PRIVATE KEY-----\n' + 'A'.repeat(64) + '\n'),
      repeatedTo('A'.repeat(200) + '='),
      repeatedTo('authorization: '),
      repeatedTo('Bearer '),
      repeatedTo('secret_access_key=' + 'a'.repeat(39) + ' '),
      repeatedTo('\n' + 'X'.repeat(127) + '_KEY='),
    ];
    r.redact(ordinary); // warm-up (regex compilation)
    const base = cpuMs(() => r.redact(ordinary), 3);
    expect(base / onePassMs(ordinary)).toBeLessThan(60);
    for (const input of inputs) {
      r.redact(input);
      expect(cpuMs(() => r.redact(input)) / base, input.slice(0, 40)).toBeLessThan(15);
    }
  });
});

describe('model replies', () => {
  const r = new Redactor({ env: { OPENAI_API_KEY: 'sk-live-abcdef0123456789abcdef' } });
  const reply = (content: string | null, args?: string): ModelCallResult => ({
    message: { content, ...(args ? { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'terminal', arguments: args } }] } : {}) },
    usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2, costUsd: 0 },
    model: 'm',
  });

  it('redacts the text and the tool-call arguments, keeping the arguments valid JSON', () => {
    const out = redactResult(
      reply('your key is sk-live-abcdef0123456789abcdef', JSON.stringify({ command: 'curl -H "Authorization: Bearer a1b2c3d4e5f6g7h8" x' })),
      r,
    );
    expect(out.message.content).toBe('your key is [REDACTED:env:OPENAI_API_KEY]');
    expect(JSON.parse(out.message.tool_calls![0]!.function.arguments)).toEqual({
      command: 'curl -H "Authorization: Bearer [REDACTED:authorization]" x',
    });
    expect(out.redactions).toBe(2);
  });

  it('re-serialises the arguments when a configured pattern would cut through the JSON', () => {
    const rr = new Redactor({ env: {}, patterns: ['secret": "[a-z]+'] });
    const out = redactResult(reply(null, '{"note": "x", "secret": "abc"}'), rr);
    expect(() => JSON.parse(out.message.tool_calls![0]!.function.arguments) as unknown).not.toThrow();
    expect(out.redactions ?? 0).toBe(0); // the pattern spans a key and a value: per-string it matches nothing
    const same = reply('nothing to see');
    expect(redactResult(same, r)).toBe(same);
  });
});

describe('logs', () => {
  it('every line written through the logger is redacted (message, fields, errors)', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const key = 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z';
    const log = createLogger(sink, 'info');
    log.warn({ error: new Error(`upstream said ${key}`), url: 'postgres://u:hunter22@h/db' }, `Activity failed: ${key}`);
    log.info('Authorization: Bearer a1b2c3d4e5f6g7h8');
    const out = lines.join('');
    expect(out).not.toContain(key);
    expect(out).not.toContain('hunter22');
    expect(out).not.toContain('a1b2c3d4e5f6g7h8');
    const first = JSON.parse(lines[0]!) as { msg: string; error: { message: string }; url: string };
    expect(first.msg).toBe('Activity failed: [REDACTED:openai-key]');
    expect(first.error.message).toBe('upstream said [REDACTED:openai-key]'); // errors are serialised, not {}
    expect(first.url).toBe('postgres://u:[REDACTED:url-password]@h/db');
  });

  it('stays one JSON line when a configured pattern crosses a string boundary', () => {
    const r = new Redactor({ env: {}, patterns: ['c", "b'] });
    const line = '{"a":"abc", "b": "def"}\n';
    expect(JSON.parse(redactLogLine(line, r))).toEqual({ a: 'abc', b: 'def' });
  });
});

describe('tool environment', () => {
  it('passes the allow-list, LC_*, and passEnv names or prefixes; what the tool sets wins', () => {
    const source = {
      PATH: '/bin',
      HOME: '/h',
      LANG: 'C.UTF-8',
      LC_ALL: 'C',
      TERM: 'xterm',
      TZ: 'UTC',
      USER: 'u',
      LOGNAME: 'u',
      SHELL: '/bin/bash',
      TMPDIR: '/tmp',
      OPENAI_API_KEY: 'sk-x',
      TEMPORAL_API_KEY: 't',
      AWS_PROFILE: 'p',
      NPM_CONFIG_REGISTRY: 'r',
      NPM_CONFIG_CACHE: 'c',
      GOPATH: '/go',
    };
    expect(toolEnv([], {}, source)).toEqual({
      PATH: '/bin',
      HOME: '/h',
      LANG: 'C.UTF-8',
      LC_ALL: 'C',
      TERM: 'xterm',
      TZ: 'UTC',
      USER: 'u',
      LOGNAME: 'u',
      SHELL: '/bin/bash',
      TMPDIR: '/tmp',
    });
    const env = toolEnv(['GOPATH', 'NPM_CONFIG_*'], { TERM: 'dumb', X: '1' }, source);
    expect(env).toMatchObject({ GOPATH: '/go', NPM_CONFIG_REGISTRY: 'r', NPM_CONFIG_CACHE: 'c', TERM: 'dumb', X: '1' });
    expect(env.OPENAI_API_KEY).toBeUndefined();
    expect(env.AWS_PROFILE).toBeUndefined();
    expect(BASE_TOOL_ENV).toContain('PATH');
    expect(passesToTool('LC_CTYPE')).toBe(true);
    expect(parseEnvList(' A, B ,,C D')).toEqual(['A', 'B', 'C', 'D']);
  });

  it('terminal commands see neither the worker keys nor other variables, only what passEnv names', async () => {
    const ws = await realpath(mkdtempSync(path.join(os.tmpdir(), 'hermes-env-')));
    cleanups.push(() => rmSync(ws, { recursive: true, force: true }));
    const saved = { ...process.env };
    cleanups.push(() => {
      for (const k of ['OPENAI_API_KEY', 'HERMES_TEST_SECRET_TOKEN', 'HERMES_TEST_PASSED']) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    });
    process.env.OPENAI_API_KEY = 'sk-test-should-not-pass-1234567890';
    process.env.HERMES_TEST_SECRET_TOKEN = 'secret-token-value';
    process.env.HERMES_TEST_PASSED = 'passed-value';
    const ctx = {
      workspace: ws,
      signal: new AbortController().signal,
      heartbeat: () => {},
      terminalTimeoutSec: 30,
      callId: 'c',
      processDir: '/nonexistent',
    };
    const cmd = 'echo "key=$OPENAI_API_KEY tok=$HERMES_TEST_SECRET_TOKEN passed=$HERMES_TEST_PASSED home=${HOME:+set}"';
    expect(await terminal({ command: cmd }, ctx)).toBe('key= tok= passed= home=set\nexit code: 0');
    expect(await terminal({ command: cmd }, { ...ctx, passEnv: ['HERMES_TEST_PASSED'] })).toBe(
      'key= tok= passed=passed-value home=set\nexit code: 0',
    );
  });
});

describe('configuration', () => {
  it('reads passEnv and redact from the config file (with or without profiles) and HERMES_PASS_ENV', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-cfg-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'hermes.config.json');
    writeFileSync(file, JSON.stringify({ passEnv: ['GOPATH', 'NPM_CONFIG_*'], redact: { patterns: ['ACME-\\d+'], values: ['codename'] } }));
    const cfg = loadSecurityConfig(
      { passEnv: ['EXTRA'], redact: { values: ['more'] } },
      { HERMES_CONFIG: file, HERMES_PASS_ENV: 'A_VAR, B_VAR' },
      dir,
    );
    expect(cfg).toEqual({
      passEnv: ['GOPATH', 'NPM_CONFIG_*', 'A_VAR', 'B_VAR', 'EXTRA'],
      redact: { patterns: ['ACME-\\d+'], values: ['codename', 'more'] },
    });
    expect(loadSecurityConfig({}, {}, path.join(dir, 'none'))).toEqual({ passEnv: [], redact: { patterns: [], values: [] } });
    writeFileSync(file, JSON.stringify({ redact: { patterns: ['(unclosed'] } }));
    expect(() => loadSecurityConfig({}, { HERMES_CONFIG: file }, dir)).toThrow(/not a valid regular expression/);
    writeFileSync(file, JSON.stringify({ passEnv: ['NOT A NAME'] }));
    expect(() => loadSecurityConfig({}, { HERMES_CONFIG: file }, dir)).toThrow(/passEnv/);
  });
});

describe('finishToolOutput with a redactor', () => {
  it('redacts before truncating: neither the recorded content nor the saved full copy holds the secret', async () => {
    const ws = await realpath(mkdtempSync(path.join(os.tmpdir(), 'hermes-out-')));
    cleanups.push(() => rmSync(ws, { recursive: true, force: true }));
    const key = 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z';
    const text = `${'x'.repeat(300)}\n${key}\n${'y'.repeat(300)}`;
    const out = await finishToolOutput(text, { limit: 100, workspace: ws, callId: 'c1', redactor: new Redactor({ env: {} }) });
    expect(out.truncated).toBe(true);
    expect(out.redactions).toBe(1);
    const saved = /saved to (\S+);/.exec(out.content)![1]!;
    const full = readFileSync(path.join(ws, saved), 'utf8');
    expect(full).toContain('[REDACTED:openai-key]');
    expect(full).not.toContain(key);
    expect(out.size).toBe(full.length);
  });
});
