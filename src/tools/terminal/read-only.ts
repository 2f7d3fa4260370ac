// Whether a terminal command line only reads the workspace. Workflow-safe and pure. It decides one thing: whether
// the tool activity takes a checkpoint of the workspace before the command runs (src/checkpoints/). A wrong "read
// only" costs a step without a checkpoint, never a refusal, so it answers yes only for command lines every part of
// which it knows: a list of reading commands, their writing options excluded, and no redirection into a file.
import { parseCommandLine, type ParsedCommand } from './shell-parse';

const READERS = new Set([
  ...['ls', 'cat', 'head', 'tail', 'wc', 'grep', 'egrep', 'fgrep', 'rg', 'ag', 'stat', 'file', 'du', 'df', 'pwd'],
  ...['echo', 'printf', 'which', 'whereis', 'type', 'true', 'false', 'test', '[', '[[', 'tree', 'diff', 'cmp', 'comm'],
  ...['cut', 'tr', 'nl', 'od', 'hexdump', 'md5sum', 'sha1sum', 'sha256sum', 'sha512sum', 'cksum', 'basename', 'dirname'],
  ...['realpath', 'readlink', 'date', 'whoami', 'id', 'uname', 'printenv', 'cd', 'column', 'fold', 'rev', 'tac', 'seq'],
  ...['sleep', 'jq', 'less', 'more', 'env'],
]);
const FIND_WRITES = /^-(delete|exec|execdir|ok|okdir|fprint|fprint0|fprintf|fls)$/;
const GIT_READS = new Set(['status', 'log', 'diff', 'show', 'rev-parse', 'ls-files', 'ls-tree', 'blame', 'grep', 'describe', 'shortlog']);
const GIT_READS_MORE = new Set(['cat-file', 'rev-list', 'reflog', 'branch', 'tag', 'remote', 'fetch', 'config', 'add', 'help', 'version']);
const HARMLESS_TARGET = /^(\/dev\/(null|stdout|stderr|tty|fd\/\d+)|\d+|-)$/;

export function isReadOnlyCommand(command: string): boolean {
  return parseCommandLine(command).every(readsOnly);
}

function readsOnly(c: ParsedCommand): boolean {
  if (c.sudo) return false;
  if (c.redirects.some((r) => r.op.includes('>') && !HARMLESS_TARGET.test(r.target))) return false;
  if (c.name === '') return true; // assignments, keywords, input redirections
  if (READERS.has(c.name)) return true;
  const ops = c.args.filter((a) => !a.startsWith('-'));
  switch (c.name) {
    case 'find':
      return !c.args.some((a) => FIND_WRITES.test(a));
    case 'sort':
      return !c.args.some((a) => a === '-o' || a.startsWith('--output') || /^-[a-zA-Z]*o/.test(a));
    case 'uniq':
    case 'xxd':
      return ops.length <= 1; // a second operand is the output file
    case 'sed':
      return !c.args.some((a) => /^-[a-zA-Z]*i|^--in-place/.test(a) || /(^|[/;}\n])\s*[wW](\s|$)/.test(a));
    case 'awk':
    case 'gawk':
      return !c.args.some((a) => /[>|]|system|inplace/.test(a));
    case 'git': {
      const sub = c.args.find((a, i) => !a.startsWith('-') && !['-C', '-c'].includes(c.args[i - 1] ?? ''));
      // The workspace's .git is not in checkpoints: only commands that leave the working tree alone count.
      return sub !== undefined && (GIT_READS.has(sub) || GIT_READS_MORE.has(sub)) && !c.args.some((a) => a.startsWith('--output'));
    }
    default:
      return false;
  }
}
