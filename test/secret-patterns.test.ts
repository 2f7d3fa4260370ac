// Redaction by meaning, not layout (issue 18): pure units for the built-in rules of src/shared/credentials.ts and
// src/shared/secret-assignments.ts — secret-named assignments in every layout a tool shows them in, credential
// shapes, secrets named in prose — with the false positives they must not produce, their cost on inputs built to
// make them slow, and the memory side (redacted writes, the validator's refusal, matching a redacted entry).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { redactWrite, redactMemoryView } from '../src/memory/client';
import { gatherPromptParts } from '../src/activities/system-prompt-parts';
import { Redactor } from '../src/security/redact';
import { credentialKinds, redactCredentials } from '../src/shared/credentials';
import { applyMemoryWrite, credentialRefusal, emptyMemory, type MemoryView } from '../src/shared/memory';
import { isSecretValue, secretNameKind } from '../src/shared/secret-assignments';
import { cpuMs, onePassMs, repeatedTo } from './helpers/cpu-time';

const r = new Redactor({ env: {} });
const b64 = (t: string) => Buffer.from(t, 'latin1').toString('base64');
const S = '[REDACTED:secret]';

describe('secret-named assignments, wherever they are in a line', () => {
  it.each([
    ['.env', 'DB_PASSWORD=Tr0ub4dor&3xyz', `DB_PASSWORD=${S}`],
    ['read_file prefix', '   1| DB_PASSWORD=Tr0ub4dor&3xyz', `   1| DB_PASSWORD=${S}`],
    ['search_files prefix', '.env:6: DB_PASSWORD=Tr0ub4dor&3xyz', `.env:6: DB_PASSWORD=${S}`],
    ['grep -n prefix', '6:DB_PASSWORD=Tr0ub4dor&3xyz', `6:DB_PASSWORD=${S}`],
    ['indented', '    DB_PASSWORD=Tr0ub4dor&3xyz', `    DB_PASSWORD=${S}`],
    ['export, double quotes', 'export DB_PASSWORD="Tr0ub4dor&3xyz"', `export DB_PASSWORD="${S}"`],
    ['single quotes with spaces', "PASSWORD='correct horse battery staple'", `PASSWORD='${S}'`],
    ['punctuation # ! & in the value', 'API_SECRET=ab#cd!ef&gh', `API_SECRET=${S}`],
    ['an apostrophe inside the value', "DB_PASS=O'Brien-2024!", `DB_PASS=${S}`],
    ['YAML', '  password: Tr0ub4dor&3xyz', `  password: ${S}`],
    ['YAML list item', '- password: Tr0ub4dor&3xyz', `- password: ${S}`],
    ['YAML plain word (docker-compose)', 'POSTGRES_PASSWORD: postgres123', `POSTGRES_PASSWORD: ${S}`],
    ['JSON', '{"password": "hunter2hunter2", "user": "bob"}', `{"password": "${S}", "user": "bob"}`],
    ['JSON, no spaces', '{"apiKey":"abcdef0123456789"}', `{"apiKey":"${S}"}`],
    ['JSON inside a JSON string (a log line)', '{"msg":"{\\"password\\": \\"hunter2hunter2\\"}"}', `{"msg":"{\\"password\\": \\"${S}\\"}"}`],
    ['TOML / INI', 'password = "Tr0ub4dor&3xyz"', `password = "${S}"`],
    ['INI unquoted with punctuation', 'password = Tr0ub4dor&3xyz', `password = ${S}`],
    ['properties', 'spring.datasource.password=s3cr3tpass', `spring.datasource.password=${S}`],
    ['a flag', 'mysql --password=Tr0ub4dor&3xyz -u root', `mysql --password=${S} -u root`],
    ['a header', 'X-Api-Key: a1b2c3d4e5f6g7h8', `X-Api-Key: ${S}`],
    ['a query string stops at &', 'GET /cb?token=abc123def456&page=2', `GET /cb?token=${S}&page=2`],
    ['.npmrc', '//registry.npmjs.org/:_authToken=abcdef12-3456-7890', `//registry.npmjs.org/:_authToken=${S}`],
    ['camelCase', 'clientSecret: "a-very-long-client-secret"', `clientSecret: "${S}"`],
    ['one word (PGPASSWORD)', 'PGPASSWORD=Tr0ub4dor', `PGPASSWORD=${S}`],
    ['secret word in the middle', 'SECRET_KEY_BASE=0123456789abcdef0123', `SECRET_KEY_BASE=${S}`],
    ['a generic key that looks like one', 'MY_KEY=abcd1234efgh5678ijkl', `MY_KEY=${S}`],
    ['Go', 'token := "abc123def456"', `token := "${S}"`],
    ['two on one line', 'user=bob password=Tr0ub4dor&3 token=abc123def456', `user=bob password=${S} token=${S}`],
    ['in a shell-quoted argument', "curl -d 'password=abc123xyz' -H x", `curl -d 'password=${S}' -H x`],
    ['a trailing comma stays', 'password: "hunter2hunter2",', `password: "${S}",`],
    ['cat -n prefix', '     7\tDB_PASSWORD=Tr0ub4dor&3xyz', `     7\tDB_PASSWORD=${S}`],
  ])('%s', (_name, input, expected) => {
    const out = r.redact(input);
    expect(out.text).toBe(expected);
    expect(out.count).toBe((expected.match(/\[REDACTED:/g) ?? []).length);
  });

  it.each([
    ['a name with nothing after it', 'password: '],
    ['a name at the end', 'password:'],
    ['prose', 'The token is used to authenticate; keep the secret safe. Enter your password: then press enter.'],
    ['token counts', 'tokens: 120\nmax_tokens = 4096\n"max_tokens": 4096\ntoken_count: 123456789'],
    ['about the secret, not the secret', 'TOKEN_FILE=/var/run/secrets/token\npassword_hash: "$2b$12$abcdefghijk"\nkeyId: abcdef1234567890abcd'],
    ['more about the secret', 'password_min_length: 12345678\nTOKEN_URL=https://oauth.example.com/token\nsecretName: tls-secret-prod'],
    ['code: env lookups', 'const apiKey = process.env.API_KEY;\npassword = os.environ["DB_PASSWORD"]\nPassword: os.Getenv("DB_PASSWORD"),'],
    ['code: calls', 'password = getpass.getpass("Password: ")\ntoken: z.string().describe("the token")\nsecret = secrets.token_hex(16)'],
    ['code: variables', 'self.password = password\npassword = hashed_password\n  password: hashedPassword,\nconst f = (token) => token.length'],
    ['code: types and structures', 'token: string;\napiKey?: string\npassword: { type: String, required: true }\nif password == "x":'],
    [
      'references and templates',
      'password: ${{ secrets.DB_PASSWORD }}\nPGPASSWORD=$(cat /run/secrets/pg)\napi_key: "{{ vault_key }}"\ntoken: %(token)s',
    ],
    ['placeholders and masks', 'PASSWORD=<your password here>\npassword: ********\nsecret: null\napi_key: "true"'],
    [
      'keys that are not secrets',
      'partition_key: user_id_and_date\nrouting_key: orders.created.v2\n"key": "ctrl+shift+p"\nkey: node-role.kubernetes.io/master',
    ],
    ['public keys', 'public_key: ssh-ed25519AAAAC3NzaC1lZDI1NTE5AAAAI\npk_live_abcdefghijklmnop1234'],
    ['words ending in key', 'monkey=banana12345678\nhotkey: ctrl+alt+delete1\nKEYBOARD=us-international'],
    ['a UI label', 'Password: Required'],
    ['Ruby and C++ scopes', 'Foo::KEY::Bar\nConfig::PASSWORD'],
    ['git SHA next to the word secret', 'commit 3f786850e387550fdab836ed7e6dc881de23001b secret'],
    ['prose without a credential-like value', 'The password is required and the token was refreshed; the API key is rotated.'],
  ])('leaves %s alone', (_name, input) => {
    expect(r.redact(input)).toEqual({ text: input, count: 0 });
  });

  it('names: a word must be a secret word, and the last one must not be about it', () => {
    for (const n of ['DB_PASSWORD', 'apiKey', 'x-api-key', 'PGPASSWORD', 'spring.datasource.password', '_authToken', 'SMTP_PASS', 'MYSQL_PWD'])
      expect(secretNameKind(n), n).toBe('secret');
    for (const n of ['STRIPE_KEY', 'key', 'MAPBOX_KEY']) expect(secretNameKind(n), n).toBe('key');
    for (const n of ['max_tokens', 'tokens', 'TOKEN_FILE', 'password_hash', 'keyId', 'public_key', 'monkey', 'passport', 'keyboard', 'OLDPWD'])
      expect(secretNameKind(n), n).toBeUndefined();
  });

  it('values: a generic key needs a credential-like value; quoted values are literals', () => {
    const key = { kind: 'key' as const, quoted: false, spacedEquals: false, colon: true };
    expect(isSecretValue('user_id_and_date', key)).toBe(false);
    expect(isSecretValue('rk_live_51Habcdefghijklmnop', key)).toBe(true);
    const secret = { kind: 'secret' as const, quoted: false, spacedEquals: true, colon: false };
    expect(isSecretValue('hashed_password', secret)).toBe(false); // `password = hashed_password`: a variable
    expect(isSecretValue('hashed_password', { ...secret, quoted: true })).toBe(true); // `password = "hashed_password"`
    expect(isSecretValue('hunter22', { ...secret, spacedEquals: false })).toBe(true);
  });
});

describe('credential shapes', () => {
  it.each([
    [
      'Stripe secret and restricted keys; publishable stays',
      'sk_live_51Habcdefghijklmnop rk_test_abcdefghijklmnop pk_live_abcdefghijklmnop',
      '[REDACTED:stripe-key] [REDACTED:stripe-key] pk_live_abcdefghijklmnop',
    ],
    ['Stripe webhook secret', 'signing: whsec_abcdefghijklmnopqrstuvwx12', 'signing: [REDACTED:stripe-key]'],
    ['GitLab', 'glpat-abcdefghij1234567890', '[REDACTED:gitlab-token]'],
    ['npm', `npm_${'a1B2c3D4e5'.repeat(3)}abcdef`, '[REDACTED:npm-token]'],
    [
      'Slack webhook',
      'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
      'https://hooks.slack.com/services/[REDACTED:slack-webhook]',
    ],
    ['STRIPE_KEY through read_file', '   6| STRIPE_KEY=rk_live_51Habcdefghijklmnop', '   6| STRIPE_KEY=[REDACTED:stripe-key]'],
    [
      'AWS secret of another length after its name',
      'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEYxx',
      'AWS_SECRET_ACCESS_KEY=[REDACTED:secret]',
    ],
    ['AWS secret in prose', 'AWS secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY for deploys', 'AWS secret [REDACTED:aws-secret-key] for deploys'],
    [
      'AWS secret after its key id (a credentials CSV)',
      'bob,AKIAIOSFODNN7EXAMPLE,wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      'bob,[REDACTED:aws-access-key-id],[REDACTED:aws-secret-key]',
    ],
    ['AWS secret before the word', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY is the AWS secret', '[REDACTED:aws-secret-key] is the AWS secret'],
    ['.netrc', 'machine api.example.com login bob password p4ss', 'machine api.example.com login bob password [REDACTED:secret]'],
    ['a password in prose', 'db password is Tr0ub4dor&3xyz (prod)', 'db password is [REDACTED:secret] (prod)'],
    ['a qualified password in prose', 'the password for prod is hunter22.', 'the password for prod is [REDACTED:secret].'],
    ['an API key in prose', 'the api key is AbC123xyz789', 'the api key is [REDACTED:secret]'],
    ['a password in prose with no verb', 'db password Hunter2-xyz9 for staging', 'db password [REDACTED:secret] for staging'],
    ['a passphrase with no verb', 'passphrase correct-horse-42', 'passphrase [REDACTED:secret]'],
    ['a qualified password with a colon', 'the password for prod: Hunter2-xyz', 'the password for prod: [REDACTED:secret]'],
    ['base64 of a .env', `cat .env | base64\n${b64('PORT=8080\nDB_PASSWORD=Hunter2-xyzzy\n')}\n$`, 'cat .env | base64\n[REDACTED:base64:secret]\n$'],
    ['base64 of a key, in an assignment', `KEY_B64=${b64('sk-proj-abcdefghijklmnopqrstuvwx1234')} ok`, 'KEY_B64=[REDACTED:base64:openai-key] ok'],
    [
      'base64 wrapped at 76 (as `base64` prints it)',
      `${b64(`# config\n${'COMMENT=just some text here\n'.repeat(4)}OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx1234\n`).replace(/.{76}/g, '$&\n')}\n$ done`,
      '[REDACTED:base64:openai-key]\n$ done',
    ],
    [
      'hex of a key',
      `xxd: ${Buffer.from('GITHUB_TOKEN=ghp_' + 'aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6').toString('hex')}`,
      'xxd: [REDACTED:hex:github-token]',
    ],
  ])('%s', (_name, input, expected) => {
    const out = r.redact(input);
    expect(out.text).toBe(expected);
    expect(out.count).toBe((expected.match(/\[REDACTED:/g) ?? []).length);
  });

  it.each([
    ['a 40-character hex SHA near "secret"', 'secret rotated in 3f786850e387550fdab836ed7e6dc881de23001b'],
    ['a 40-character mixed run with no AWS word near', `see ${'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'} in the docs`],
    ['a 41-character run', 'AWS secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEYx'],
    ['prose about passwords', 'the password is required; password reset for user123; password hashing uses bcrypt2; passwords 2024-01-01'],
    [
      'base64 of plain text, of binary data, a hex SHA',
      `${b64('hello world, this is not a secret at all')} ${b64('\u0001\u00ff'.repeat(30))} 3f786850e387550fdab836ed7e6dc881de23001b`,
    ],
  ])('leaves %s alone', (_name, input) => {
    expect(r.redact(input)).toEqual({ text: input, count: 0 });
  });

  it('counts nothing the second time (placeholders are never matched again)', () => {
    const input = [
      '   1| DB_PASSWORD=Tr0ub4dor&3xyz',
      '  password: "a b c d e f g h"',
      'AWS secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      'db password is Tr0ub4dor&3xyz',
      'STRIPE_KEY=rk_live_51Habcdefghijklmnop',
    ].join('\n');
    const once = r.redact(input);
    expect(once.count).toBe(5);
    expect(r.redact(once.text)).toEqual({ text: once.text, count: 0 });
    expect(redactCredentials(input)).toEqual(once); // the pure rules alone (no environment) do the same
  });

  // Linear: ordinary output costs ~6 regex passes over the same text (~15 ms of CPU per MB here), and these inputs
  // up to ~5× ordinary output (bounds: 4-5× those); a quadratic pass would cost minutes on them. Ratios of CPU times
  // (helpers/cpu-time.ts), not milliseconds; a loaded machine still moves a ratio of a 3 ms and a 15 ms workload
  // (16.5 seen in a CI run beside other tests), so the first bound (60) leaves room for that.
  it('is linear on inputs built to make the new passes slow (each 1 MB within 20× the cost of ordinary output)', () => {
    const units = [
      'key=',
      'token: ',
      'password="',
      '"api_key": "' + 'a'.repeat(50),
      'password is ',
      'A'.repeat(20) + 'b'.repeat(19) + '1 secret ',
      'Ab1/'.repeat(100) + '\n',
      'aPasswordKeyTokenSecret',
      '   1| DB_PASSWORD=Tr0ub4dor&3xyz\n   2| export API_TOKEN="abc123def456"\n   3| aws_secret: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n',
      'x'.repeat(127) + '_password=',
      // Encoded runs that decode to text (the rules then run on it) or that are long and wrapped.
      b64('PORT=8080\nHOST=example.com\nNAME=some plain configuration text\n') + ' ',
      b64('x'.repeat(3000)).replace(/.{76}/g, '$&\n') + '\n',
      '0123456789abcdef'.repeat(64) + '\n',
      // Token starts inside one run of token characters; BEGIN markers with no END after them.
      'eyJ-',
      '-----BEGIN PRIVATE KEY-----_',
    ];
    const ordinary = repeatedTo('drwxr-xr-x 2 user user 4096 Jan 1 12:00 file_name.txt https://example.com/a?b=c KEY=value\n');
    r.redact(ordinary); // warm-up
    const base = cpuMs(() => r.redact(ordinary), 5);
    expect(base / onePassMs(ordinary)).toBeLessThan(60);
    for (const unit of units) {
      const input = repeatedTo(unit);
      r.redact(input); // warm-up
      expect(cpuMs(() => r.redact(input)) / base, unit.slice(0, 40)).toBeLessThan(20);
    }
  });
});

describe('memory writes', () => {
  const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

  it('redactWrite redacts text and match, and counts', () => {
    expect(redactWrite({ action: 'add', store: 'notes', text: `AWS secret ${secret} for deploys` }, r)).toEqual({
      write: { action: 'add', store: 'notes', text: 'AWS secret [REDACTED:aws-secret-key] for deploys' },
      redactions: 1,
    });
    const replaced = redactWrite(
      { action: 'replace', store: 'user', match: 'password is Tr0ub4dor&3xyz', text: 'db password is Tr0ub4dor&3xyz (prod)' },
      r,
    );
    expect(replaced).toEqual({
      write: { action: 'replace', store: 'user', match: `password is ${S}`, text: `db password is ${S} (prod)` },
      redactions: 2,
    });
  });

  it("the validator's check names what it found; plain notes pass", () => {
    expect(credentialRefusal({ action: 'add', store: 'notes', text: `AWS secret ${secret} for deploys` })).toMatch(
      /^refused: nothing was saved because the write holds what looks like a credential \(aws-secret-key\)\./,
    );
    expect(credentialRefusal({ action: 'remove', store: 'notes', match: 'token ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6' })).toMatch(
      /\(github-token\)/,
    );
    for (const text of [
      'Prefers answers in French',
      'Deploys use the AWS_SECRET_ACCESS_KEY variable',
      'max_tokens: 4096 works best',
      `AWS secret ${'[REDACTED:aws-secret-key]'}`,
    ])
      expect(credentialRefusal({ action: 'add', store: 'notes', text }), text).toBeUndefined();
    expect(credentialKinds('db password is Tr0ub4dor&3xyz, key AKIAIOSFODNN7EXAMPLE')).toEqual(['aws-access-key-id', 'secret']);
  });

  it('an entry stored with a secret (before writes were redacted) is found by its redacted text, as the model sees it', () => {
    const state = { ...emptyMemory({ notes: 2200, user: 1375 }) };
    state.notes = { ...state.notes, entries: [`AWS secret ${secret} for deploys`, 'uses pnpm'] };
    const { state: next } = applyMemoryWrite(state, { action: 'remove', store: 'notes', match: 'AWS secret [REDACTED:aws-secret-key] for deploys' });
    expect(next.notes.entries).toEqual(['uses pnpm']);
    expect(() => applyMemoryWrite(state, { action: 'remove', store: 'notes', match: 'uses [REDACTED:secret]' })).toThrow(
      /no entry of agent notes contains/,
    );
  });

  it('the snapshot for the system prompt is redacted (entries stored before this change)', async () => {
    const view: MemoryView = {
      scope: 'x',
      writes: 2,
      notes: { entries: [`AWS secret ${secret} for deploys`], limit: 2200 },
      user: { entries: ['db password is Tr0ub4dor&3xyz (prod)'], limit: 1375 },
    };
    expect(redactMemoryView(view, r)).toEqual({
      ...view,
      notes: { entries: ['AWS secret [REDACTED:aws-secret-key] for deploys'], limit: 2200 },
      user: { entries: [`db password is ${S} (prod)`], limit: 1375 },
    });
    const workspace = mkdtempSync(path.join(os.tmpdir(), 'hermes-recall-'));
    try {
      const parts = await gatherPromptParts({ workspace, redactor: r, memory: () => Promise.resolve(view) });
      expect(parts.memory).toEqual(redactMemoryView(view, r));
      expect((await gatherPromptParts({ workspace, redactor: r, memory: () => Promise.resolve(null) })).memory).toBeNull();
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});
