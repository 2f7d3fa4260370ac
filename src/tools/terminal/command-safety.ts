// Classifies a shell command before the terminal tool runs it. Workflow-safe and pure: the workflow calls it
// to decide whether to run, ask for approval (an `approve` update) or refuse. `pattern` is a stable key so an
// approval can be remembered per rule ("allow rm-recursive for this conversation").
import type { ApprovalVerdict } from '../spec';
import { basename, parseCommandLine, type ParsedCommand } from './shell-parse';

export type CommandVerdict = ApprovalVerdict;

export interface TerminalRule {
  pattern: string;
  verdict: 'refuse' | 'approval';
  description: string;
  test: (cmd: ParsedCommand) => boolean;
}

const SYSTEM_DIRS = new Set(['bin', 'boot', 'dev', 'etc', 'lib', 'lib64', 'proc', 'root', 'sbin', 'sys', 'usr', 'var']);
const HARMLESS_DEVICES = /^\/dev\/(null|zero|u?random|stdout|stderr|tty|fd\/\d+)$/;
const BLOCK_DEVICE = /^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|disk|md|dm-|loop)/;
const INTERPRETERS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'python', 'python2', 'python3', 'perl', 'ruby', 'node', 'php']);

/** Short option clusters and long options of an argument list, up to `--`. */
function flags(args: string[]): { short: string; long: string[]; operands: string[] } {
  let short = '';
  const long: string[] = [];
  const operands: string[] = [];
  let done = false;
  for (const a of args) {
    if (done || !a.startsWith('-') || a === '-') operands.push(a);
    else if (a === '--') done = true;
    else if (a.startsWith('--')) long.push(a);
    else short += a.slice(1);
  }
  return { short, long, operands };
}

const isRecursive = (args: string[]) => {
  const f = flags(args);
  return /[rR]/.test(f.short) || f.long.includes('--recursive');
};

/** `/`, `/*`, `~`, `$HOME`, a system directory or a glob over top-level directories. */
export function isCriticalPath(target: string): boolean {
  const home = /^(~|\$HOME|\$\{HOME\})(\/.*)?$/.exec(target);
  const path = home ? (home[2] ?? '/') : target;
  if (!path.startsWith('/')) return false;
  const segs: string[] = [];
  for (const s of path.split('/')) {
    if (s === '..') segs.pop();
    else if (s !== '' && s !== '.') segs.push(s);
  }
  // "dir/*" wipes dir as surely as "dir"
  while (segs.length > 0 && /^\.?\*$/.test(segs[segs.length - 1])) segs.pop();
  if (segs.length === 0) return true;
  if (home) return false;
  return segs.length === 1 && (SYSTEM_DIRS.has(segs[0]) || /[*?[]/.test(segs[0]));
}

const underEtc = (p: string) => /^\/etc(\/|$)/.test(p);

function writesEtc(c: ParsedCommand): boolean {
  if (c.redirects.some((r) => /^(\d*|&)>/.test(r.op) && underEtc(r.target))) return true;
  const ops = flags(c.args).operands;
  switch (c.name) {
    case 'tee':
    case 'rm':
    case 'truncate':
    case 'chmod':
    case 'chown':
    case 'touch':
    case 'mkdir':
      return ops.some(underEtc);
    case 'cp':
    case 'install':
    case 'ln':
    case 'rsync':
      return ops.length > 1 && underEtc(ops[ops.length - 1]);
    case 'mv':
      return ops.some(underEtc);
    case 'sed':
    case 'perl':
      return /i/.test(flags(c.args).short) && ops.some(underEtc);
    case 'dd':
      return c.args.some((a) => a.startsWith('of=') && underEtc(a.slice(3)));
    default:
      return false;
  }
}

/** git's subcommand and its arguments, skipping global options such as `-C dir`. */
function gitSub(c: ParsedCommand): { sub: string; args: string[] } | undefined {
  if (c.name !== 'git') return undefined;
  let i = 0;
  while (i < c.args.length && c.args[i].startsWith('-')) i += ['-C', '-c'].includes(c.args[i]) ? 2 : 1;
  return i < c.args.length ? { sub: c.args[i], args: c.args.slice(i + 1) } : undefined;
}

/** Text of the command as SQL might see it: each argument alone (psql -c "…") and all words together (heredocs). */
const sqlTexts = (c: ParsedCommand) => [...c.args, [c.name, ...c.args].join(' ')];

function deletesAllRows(text: string): boolean {
  return text.split(';').some((stmt) => /\bdelete\s+from\s+[\w."`[\]]+/i.test(stmt) && !/\bwhere\b/i.test(stmt));
}

function isSqlTruncate(c: ParsedCommand, text: string): boolean {
  if (/\btruncate\s+table\b/i.test(text)) return true;
  // coreutils `truncate -s 0 file` is not SQL
  if (c.name === 'truncate' && c.args.some((a) => a.startsWith('-'))) return false;
  return /(^|;)\s*truncate\s+[a-z_"`]/i.test(text);
}

export const TERMINAL_RULES: readonly TerminalRule[] = [
  {
    pattern: 'rm-root',
    verdict: 'refuse',
    description: 'recursive rm of /, ~, $HOME or a system directory',
    test: (c) => c.name === 'rm' && (c.args.includes('--no-preserve-root') || (isRecursive(c.args) && flags(c.args).operands.some(isCriticalPath))),
  },
  { pattern: 'mkfs', verdict: 'refuse', description: 'formatting a filesystem (mkfs)', test: (c) => c.name.startsWith('mkfs') },
  {
    pattern: 'dd-device',
    verdict: 'refuse',
    description: 'dd writing to a device (of=/dev/…)',
    test: (c) => c.name === 'dd' && c.args.some((a) => a.startsWith('of=/dev/') && !HARMLESS_DEVICES.test(a.slice(3))),
  },
  {
    pattern: 'write-device',
    verdict: 'refuse',
    description: 'redirecting output onto a disk device (> /dev/sd…)',
    test: (c) => c.redirects.some((r) => r.op.includes('>') && BLOCK_DEVICE.test(r.target)),
  },
  {
    pattern: 'fork-bomb',
    verdict: 'refuse',
    description: 'fork bomb',
    test: (c) => forkBombIn(c.line),
  },
  {
    pattern: 'shutdown',
    verdict: 'refuse',
    description: 'shutting down or rebooting the machine',
    test: (c) =>
      ['shutdown', 'reboot', 'halt', 'poweroff'].includes(c.name) ||
      (['init', 'telinit'].includes(c.name) && ['0', '6'].includes(c.args[0] ?? '')) ||
      (c.name === 'systemctl' && c.args.some((a) => ['poweroff', 'reboot', 'halt', 'kexec'].includes(a))),
  },
  { pattern: 'rm-recursive', verdict: 'approval', description: 'recursive rm', test: (c) => c.name === 'rm' && isRecursive(c.args) },
  {
    pattern: 'chmod-777',
    verdict: 'approval',
    description: 'chmod 777 (world-writable)',
    test: (c) => c.name === 'chmod' && c.args.some((a) => /^(0?777|(a|ugo)\+rwx)$/.test(a)),
  },
  { pattern: 'chown-recursive', verdict: 'approval', description: 'recursive chown', test: (c) => c.name === 'chown' && isRecursive(c.args) },
  {
    pattern: 'pipe-to-shell',
    verdict: 'approval',
    description: 'downloaded content piped to an interpreter (curl … | sh)',
    test: (c) =>
      INTERPRETERS.has(c.name) && (c.pipedFrom.some((n) => n === 'curl' || n === 'wget') || c.substitutions.some((s) => /\b(curl|wget)\b/.test(s))),
  },
  {
    pattern: 'sql-drop',
    verdict: 'approval',
    description: 'SQL DROP TABLE/DATABASE',
    test: (c) => sqlTexts(c).some((t) => /\bdrop\s+(table|database|schema)\b/i.test(t)),
  },
  { pattern: 'sql-truncate', verdict: 'approval', description: 'SQL TRUNCATE', test: (c) => sqlTexts(c).some((t) => isSqlTruncate(c, t)) },
  {
    pattern: 'sql-delete-all',
    verdict: 'approval',
    description: 'SQL DELETE without WHERE',
    test: (c) => sqlTexts(c).some(deletesAllRows),
  },
  {
    pattern: 'git-force-push',
    verdict: 'approval',
    description: 'git push --force',
    test: (c) => {
      const g = gitSub(c);
      if (g?.sub !== 'push') return false;
      const f = flags(g.args);
      return f.short.includes('f') || f.long.some((l) => l.startsWith('--force')) || f.operands.some((o) => o.startsWith('+'));
    },
  },
  {
    pattern: 'git-reset-hard',
    verdict: 'approval',
    description: 'git reset --hard',
    test: (c) => gitSub(c)?.sub === 'reset' && c.args.includes('--hard'),
  },
  {
    pattern: 'git-clean',
    verdict: 'approval',
    description: 'git clean -f (deletes untracked files)',
    test: (c) => {
      const g = gitSub(c);
      return g?.sub === 'clean' && (flags(g.args).short.includes('f') || g.args.includes('--force'));
    },
  },
  {
    pattern: 'kill-all',
    verdict: 'approval',
    description: 'killing every process (kill -1, pkill, killall)',
    test: (c) =>
      c.name === 'pkill' ||
      c.name === 'killall' ||
      // the first argument may be the signal (-9); a later -1 is the pid "every process"
      (c.name === 'kill' && c.args.slice(1).includes('-1')) ||
      (c.name === 'kill' && c.args[0] === '--' && c.args[1] === '-1'),
  },
  { pattern: 'sudo', verdict: 'approval', description: 'running as root (sudo)', test: (c) => c.sudo || c.name === 'su' },
  {
    // Not followed further, so not judged: a person decides (`eval eval … rm -rf /` was allowed past the depth).
    pattern: 'nested-too-deep',
    verdict: 'approval',
    description: 'commands nested more than 6 deep ($( ), bash -c, eval): not checked',
    test: (c) => c.tooDeep === true,
  },
  { pattern: 'write-etc', verdict: 'approval', description: 'writing under /etc', test: writesEtc },
  {
    pattern: 'find-delete',
    verdict: 'approval',
    description: 'find -delete / find -exec rm',
    test: (c) =>
      c.name === 'find' && (c.args.includes('-delete') || c.args.some((a, i) => /^-exec(dir)?$/.test(a) && basename(c.args[i + 1] ?? '') === 'rm')),
  },
  {
    pattern: 'xargs-rm',
    verdict: 'approval',
    description: 'xargs rm',
    test: (c) => c.name === 'xargs' && c.args.some((a) => basename(a) === 'rm'),
  },
];

const NAME_CHAR = /[\w:]/;

// Every command parsed from a line carries the whole line: looking at it once per line, not once per command,
// keeps a line of thousands of commands (`a;a;a;…`) linear. A pure memo of the last line: deterministic.
let lastLine: string | undefined;
let lastLineBomb = false;
function forkBombIn(line: string): boolean {
  if (line !== lastLine) {
    lastLine = line;
    lastLineBomb = hasForkBomb(line);
  }
  return lastLineBomb;
}

/**
 * `NAME(){ NAME|NAME& };NAME` once the spaces are out. Found by scanning, not by the backreference regex
 * /([\w:]+)\(\)\{\1\|\1&\};\1/ that says the same thing: that one is quadratic in the length of a word (an
 * `echo` of 16,000 letters took 340 ms), and this runs in the workflow task, where a stall of seconds fails the task.
 * The name is the word between `{` and `|`; the words after different `(){` never overlap, so the scan is linear.
 */
function hasForkBomb(line: string): boolean {
  const s = line.replace(/\s+/g, '');
  for (let at = s.indexOf('(){'); at >= 0; at = s.indexOf('(){', at + 3)) {
    let end = at + 3;
    while (end < s.length && NAME_CHAR.test(s[end]!)) end++;
    if (end === at + 3 || s[end] !== '|') continue;
    const name = s.slice(at + 3, end);
    if (s.endsWith(name, at) && s.startsWith(`|${name}&};${name}`, end)) return true;
  }
  return false;
}

/** Refuse beats approval beats allow; a dangerous part anywhere in a compound command decides. */
export function classifyCommand(command: string): CommandVerdict {
  const commands = parseCommandLine(command);
  let approval: TerminalRule | undefined;
  for (const rule of TERMINAL_RULES) {
    if (!commands.some((c) => rule.test(c))) continue;
    if (rule.verdict === 'refuse') return { verdict: 'refuse', reason: rule.description, pattern: rule.pattern };
    approval ??= rule;
  }
  return approval ? { verdict: 'approval', reason: approval.description, pattern: approval.pattern } : { verdict: 'allow' };
}
