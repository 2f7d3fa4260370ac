// hermes serve's tokens file (src/http-api/principals.ts): what it accepts, what it refuses at start with a line that
// names the problem, and the token check; then `hermes serve --tokens` as the process a user runs.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTokens, principalOf, readTokensFile } from '../src/http-api/principals';
import { sessionWorkflowId, taskWorkflowId } from '../src/http-api/request';
import { spawnHermes } from './helpers/spawn-hermes';

const A = 'a'.repeat(24);
const B = 'b'.repeat(24);

describe('the tokens file', () => {
  it('reads "name: token" lines (comments and blank lines skipped) and a JSON object alike', () => {
    const want = [
      { name: 'alice', token: A },
      { name: 'bob-2', token: B },
    ];
    expect(parseTokens(`# who may call\nalice: ${A}\n\n  bob-2 :  ${B}  \r\n`)).toEqual(want);
    expect(parseTokens(JSON.stringify({ alice: A, 'bob-2': B }))).toEqual(want);
  });

  it('refuses blank, short, spaced or duplicate tokens, bad or repeated names, and an empty file, naming the line', () => {
    const cases: Array<[string, RegExp]> = [
      [`alice: ${A}\nbob:   `, /line 2: the token of "bob" is blank/],
      [`alice: ${A}\nbob: ${A}`, /line 2: "bob" has the same token as "alice"/],
      [`alice: ${A}\nalice: ${B}`, /line 2: principal "alice" is given twice/],
      ['alice: short-token', /shorter than 16 characters/],
      [`alice: ${A} ${B}`, /has white space in it/],
      [`al/ice: ${A}`, /"al\/ice" is not a principal name/],
      [`: ${A}`, /"" is not a principal name/],
      [`alice ${A}`, /line 1: expected "principal: token"/],
      ['# nobody\n', /no principals/],
      [JSON.stringify({ alice: A, bob: '' }), /"bob": the token of "bob" is blank/],
      [JSON.stringify({ alice: 42 }), /the token of "alice" is blank/],
      ['{"alice": ', /not JSON/],
      [JSON.stringify([A]), /expected an object/],
    ];
    for (const [text, error] of cases) expect(() => parseTokens(text, 'tokens.txt'), text).toThrow(error);
  });

  it('is refused when group or others may read it', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-tokens-'));
    const file = path.join(dir, 'tokens');
    writeFileSync(file, `alice: ${A}\n`);
    chmodSync(file, 0o644);
    expect(() => readTokensFile(file)).toThrow(/its mode is 644: group or others may read it.*chmod 600/);
    chmodSync(file, 0o600);
    expect(readTokensFile(file)).toEqual([{ name: 'alice', token: A }]);
    expect(() => readTokensFile(path.join(dir, 'missing'))).toThrow(/cannot be read/);
  });

  it("finds the bearer token's principal and nobody for any other header", () => {
    const ps = parseTokens(`alice: ${A}\nbob: ${B}`);
    expect(principalOf(`Bearer ${A}`, ps)?.name).toBe('alice');
    expect(principalOf(`Bearer ${B}`, ps)?.name).toBe('bob');
    for (const h of [undefined, '', A, `Bearer ${A}x`, `Bearer ${A.slice(1)}`, `bearer ${A}`, 'Bearer ', `Basic ${A}`])
      expect(principalOf(h, ps), String(h)).toBeUndefined();
  });

  it("gives a principal's sessions and keyed tasks workflow ids no session id or other principal reaches", () => {
    expect(sessionWorkflowId('s1')).toBe('hermes-session-s1');
    expect(sessionWorkflowId('s1', 'alice')).toBe('hermes-session-alice/s1');
    expect(taskWorkflowId('k', 'alice')).toBe('hermes-request-alice/k');
    expect(taskWorkflowId('k')).toBe('hermes-request-k');
  });
});

describe('hermes serve --tokens (process)', () => {
  it('refuses a readable, broken or conflicting tokens file at start, before connecting to anything', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-tokens-'));
    const file = path.join(dir, 'tokens');
    writeFileSync(file, `alice: ${A}\nbob: ${A}\n`);
    chmodSync(file, 0o600);
    const env = { TEMPORAL_ADDRESS: '127.0.0.1:1' };
    const dup = await spawnHermes(['serve', '--host', '0.0.0.0', '--port', '0', '--tokens', file], { env });
    expect(dup.code).toBe(2);
    expect(dup.stderr).toContain(`--tokens ${file}: line 2: "bob" has the same token as "alice"`);
    chmodSync(file, 0o644);
    const open = await spawnHermes(['serve', '--port', '0'], { env: { ...env, HERMES_SERVE_TOKENS_FILE: file } });
    expect(open.code).toBe(2);
    expect(open.stderr).toMatch(/its mode is 644: group or others may read it/);
    const both = await spawnHermes(['serve', '--port', '0', '--tokens', file, '--token', B], { env });
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--tokens and --token .* give one/);
  }, 60_000);
});
