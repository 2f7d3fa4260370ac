// Random secrets for redaction tests: no test passes because a string happened to be absent anyway.
import { randomBytes } from 'node:crypto';

export const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `n` random characters of `alphabet`. */
export function rand(n: number, alphabet = ALNUM): string {
  const bytes = randomBytes(n);
  let out = '';
  for (let i = 0; i < n; i++) out += alphabet[bytes[i]! % alphabet.length];
  return out;
}

export const b64url = (s: string) => Buffer.from(s).toString('base64url');
