// A task's checks, run after its conversation has ended, on the machine running `hermes eval`, against the
// workspace the agent worked in and its answer. Each gives ok and, when not, why (the report's failure reason).
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Check } from './suite';
import { runCommand } from './workspace';

export interface CheckResult {
  check: string;
  ok: boolean;
  /** Why it failed. */
  detail?: string;
}

type Matcher = { equals?: string; contains?: string; notContains?: string; matches?: string; flags?: string };

/** Why `text` does not match, or undefined when it does. `trimEnd`: output and answers, where a final newline is noise. */
function mismatch(m: Matcher, text: string, trimEnd: boolean): string | undefined {
  const t = trimEnd ? text.trimEnd() : text;
  if (m.equals !== undefined && t !== (trimEnd ? m.equals.trimEnd() : m.equals)) return `is ${quote(t)}, expected ${quote(m.equals)}`;
  if (m.contains !== undefined && !t.includes(m.contains)) return `does not contain ${quote(m.contains)}: ${quote(t)}`;
  if (m.notContains !== undefined && t.includes(m.notContains)) return `contains ${quote(m.notContains)}`;
  if (m.matches !== undefined && !new RegExp(m.matches, m.flags).test(t)) return `does not match /${m.matches}/${m.flags ?? ''}: ${quote(t)}`;
  return undefined;
}

function quote(s: string, max = 120): string {
  const one = JSON.stringify(s);
  return one.length > max ? `${one.slice(0, max)}…"` : one;
}

export function describeCheck(c: Check): string {
  switch (c.type) {
    case 'file':
      return `file ${c.path}`;
    case 'command':
      return `command \`${c.run.length > 60 ? `${c.run.slice(0, 60)}…` : c.run}\``;
    case 'answer':
      return 'answer';
  }
}

export async function runCheck(c: Check, workspace: string, answer: string): Promise<CheckResult> {
  const check = describeCheck(c);
  const fail = (detail: string): CheckResult => ({ check, ok: false, detail: `${check} ${detail}` });
  switch (c.type) {
    case 'file': {
      const file = path.resolve(workspace, c.path);
      const rel = path.relative(workspace, file);
      if (rel.startsWith('..') || path.isAbsolute(rel)) return fail('is outside the workspace');
      const present = existsSync(file) && statSync(file).isFile();
      if (c.exists === false) return present ? fail('exists, expected it gone') : { check, ok: true };
      if (!present) return fail('does not exist');
      const why = mismatch(c, readFileSync(file, 'utf8'), false);
      return why ? fail(why) : { check, ok: true };
    }
    case 'command': {
      const r = await runCommand(c.run, workspace, c.timeoutSec ?? 60);
      const want = c.exitCode ?? 0;
      if (r.timedOut) return fail(`timed out after ${c.timeoutSec ?? 60} s`);
      if (r.code !== want) return fail(`exited ${r.code}, expected ${want}: ${quote(r.output.trim().slice(-300))}`);
      const why = c.output ? mismatch(c.output, r.output, true) : undefined;
      return why ? fail(`output ${why}`) : { check, ok: true };
    }
    case 'answer': {
      const why = mismatch(c, answer, true);
      return why ? fail(why) : { check, ok: true };
    }
  }
}

export async function runChecks(checks: Check[], workspace: string, answer: string): Promise<CheckResult[]> {
  const out: CheckResult[] = [];
  for (const c of checks) out.push(await runCheck(c, workspace, answer));
  return out;
}
