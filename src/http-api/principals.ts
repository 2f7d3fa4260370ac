// Principals of `hermes serve`: each client its own bearer token, read from a tokens file (docs/guides/serve.md,
// "Principals"). The token names the principal; its sessions, tasks, memory scope, skills store and search scope
// are its own. Pure parsing and the token check here; the server resolves the principal in its auth step.
import { createHash, timingSafeEqual } from 'node:crypto';
import { statSync, readFileSync } from 'node:fs';

export interface Principal {
  name: string;
  token: string;
}

/** Letters, digits, `_` and `-`: safe in a workflow id, a memory scope and a skills store name; no `/` or `.`. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export const PRINCIPAL_NAME_RULE = 'use letters, digits, _ and - (1 to 64, starting with a letter or digit)';
/** A token a person could guess or a client send by mistake (`none`, `test`) is no token. */
export const MIN_TOKEN_CHARS = 16;

export class TokensFileError extends Error {
  override name = 'TokensFileError';
}

/**
 * The principals of a tokens file's text: a JSON object `{"alice": "TOKEN", …}`, or lines `alice: TOKEN` (blank
 * lines and `#` comments skipped). Refused whole, naming the line or principal, when a name is not valid, a token is
 * blank, short or has spaces, or a name or token appears twice (two clients with one token would be one principal).
 */
export function parseTokens(text: string, file = 'the tokens file'): Principal[] {
  const entries: Array<{ name: string; token: unknown; where: string }> = [];
  if (/^\s*[{[]/.test(text)) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new TokensFileError(`${file}: not JSON: ${(err as Error).message}`);
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json))
      throw new TokensFileError(`${file}: expected an object {"principal": "token", …}`);
    for (const [name, token] of Object.entries(json)) entries.push({ name, token, where: `"${name}"` });
  } else {
    text.split(/\r?\n/).forEach((raw, i) => {
      const line = raw.trim();
      if (!line || line.startsWith('#')) return;
      const colon = line.indexOf(':');
      const where = `line ${i + 1}`;
      if (colon < 0) throw new TokensFileError(`${file}: ${where}: expected "principal: token"`);
      entries.push({ name: line.slice(0, colon).trim(), token: line.slice(colon + 1).trim(), where });
    });
  }
  if (!entries.length) throw new TokensFileError(`${file}: no principals (expected "principal: token" lines or a JSON object)`);
  const names = new Set<string>();
  const tokens = new Map<string, string>();
  return entries.map(({ name, token, where }) => {
    if (!NAME.test(name)) throw new TokensFileError(`${file}: ${where}: "${name}" is not a principal name: ${PRINCIPAL_NAME_RULE}`);
    if (names.has(name)) throw new TokensFileError(`${file}: ${where}: principal "${name}" is given twice`);
    names.add(name);
    if (typeof token !== 'string' || !token.trim()) throw new TokensFileError(`${file}: ${where}: the token of "${name}" is blank`);
    if (/\s/.test(token)) throw new TokensFileError(`${file}: ${where}: the token of "${name}" has white space in it`);
    if (token.length < MIN_TOKEN_CHARS)
      throw new TokensFileError(
        `${file}: ${where}: the token of "${name}" is shorter than ${MIN_TOKEN_CHARS} characters (make one with: openssl rand -hex 24)`,
      );
    const other = tokens.get(token);
    if (other !== undefined) throw new TokensFileError(`${file}: ${where}: "${name}" has the same token as "${other}"`);
    tokens.set(token, name);
    return { name, token };
  });
}

/** Reads and checks a tokens file; refused when others than its owner may read or change it (as ssh refuses a key). */
export function readTokensFile(file: string): Principal[] {
  let mode: number;
  let text: string;
  try {
    mode = statSync(file).mode;
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new TokensFileError(`${file}: cannot be read: ${(err as Error).message}`);
  }
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    throw new TokensFileError(
      `${file}: its mode is ${(mode & 0o777).toString(8)}: group or others may read it, and whoever reads a token acts as that principal; chmod 600 ${file}`,
    );
  }
  return parseTokens(text, file);
}

/**
 * The principal whose token the Authorization header carries, else undefined. Every token is compared, each in
 * constant time on its SHA-256 (equal lengths), so the time taken says neither which token nor how much matched.
 */
export function principalOf(header: string | undefined, principals: readonly Principal[]): Principal | undefined {
  const m = /^Bearer (.+)$/.exec(header ?? '');
  const got = digest(m?.[1] ?? '');
  let found: Principal | undefined;
  for (const p of principals) if (timingSafeEqual(got, digest(p.token)) && m) found = p;
  return found;
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** The memory scope (and so the search scope) of a principal's conversations: apart from every CLI run's. */
export function principalScope(name: string): string {
  return `principal:${name}`;
}

/** The skills store of a principal's conversations. */
export function principalSkillsStore(name: string): string {
  return `principal-${name}`;
}
