// A small, conservative bash parser for classifying commands (command-safety.ts). Workflow-safe: pure string
// work. It is not a full shell grammar; it only has to find every simple command a line could run, so when in
// doubt it splits more (heredoc bodies, for instance, are read as commands — they may be fed to a shell).

export interface ParsedCommand {
  /** Command name after wrappers (sudo, env, nice…) and the directory part are stripped, e.g. "rm". */
  name: string;
  args: string[];
  redirects: { op: string; target: string }[];
  /** Names of the commands before this one in the same pipeline (`curl … | sh` → ["curl"] for sh), the nearest 64. */
  pipedFrom: string[];
  /** Inner text of $( ), backticks and <( ) used by this command. */
  substitutions: string[];
  /** A privilege wrapper (sudo, doas) was stripped. */
  sudo: boolean;
  /** The whole line this command came from (for rules that look at raw text). */
  line: string;
  /** Nested past what the parser follows (substitutions, `bash -c`, `eval`): what runs in there is unknown. */
  tooDeep?: true;
}

type Token = { t: 'word'; v: string } | { t: 'op'; v: string } | { t: 'redir'; v: string };

const SUB_MARK = '__hermes_sub_';
const SUB_MARKS = /__hermes_sub_(\d+)__/g;
/** pipedFrom keeps the nearest stages: a copy of every earlier stage for every command made a long pipeline quadratic. */
const PIPED_FROM_MAX = 64;
const MAX_DEPTH = 6;

/** Replaces $( ), `…`, <( ) and >( ) with placeholders; returns their inner texts. */
function extractSubstitutions(s: string): { text: string; subs: string[] } {
  const subs: string[] = [];
  let out = '';
  let i = 0;
  let inDouble = false;
  while (i < s.length) {
    const c = s[i];
    if (c === '\\') {
      out += s.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (c === "'" && !inDouble) {
      const end = s.indexOf("'", i + 1);
      const stop = end < 0 ? s.length : end + 1;
      out += s.slice(i, stop);
      i = stop;
      continue;
    }
    if (c === '"') inDouble = !inDouble;
    const opensParen = (c === '$' || ((c === '<' || c === '>') && !inDouble)) && s[i + 1] === '(';
    if (opensParen) {
      const end = matchParen(s, i + 1);
      subs.push(s.slice(i + 2, end));
      out += `${SUB_MARK}${subs.length - 1}__`;
      i = end + 1;
      continue;
    }
    if (c === '`') {
      let j = i + 1;
      while (j < s.length && s[j] !== '`') j += s[j] === '\\' ? 2 : 1;
      subs.push(s.slice(i + 1, j).replace(/\\`/g, '`'));
      out += `${SUB_MARK}${subs.length - 1}__`;
      i = j + 1;
      continue;
    }
    out += c;
    i++;
  }
  return { text: out, subs };
}

/** Index of the ")" closing the "(" at `open`, honouring quotes; end of string when unbalanced. */
function matchParen(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') i++;
    else if (c === "'") i = s.indexOf("'", i + 1) < 0 ? s.length : s.indexOf("'", i + 1);
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return s.length;
}

function tokenize(s: string): Token[] {
  const tokens: Token[] = [];
  let word: string | null = null;
  const flush = () => {
    if (word !== null) tokens.push({ t: 'word', v: word });
    word = null;
  };
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    const rest = s.slice(i);
    if (c === '\\') {
      if (s[i + 1] !== '\n') word = (word ?? '') + (s[i + 1] ?? '');
      i += 2;
    } else if (c === "'" || (c === '$' && s[i + 1] === "'")) {
      const start = c === '$' ? i + 2 : i + 1;
      const end = s.indexOf("'", start);
      word = (word ?? '') + s.slice(start, end < 0 ? s.length : end);
      i = end < 0 ? s.length : end + 1;
    } else if (c === '"') {
      let j = i + 1;
      let v = '';
      while (j < s.length && s[j] !== '"') {
        if (s[j] === '\\' && '"\\$`\n'.includes(s[j + 1] ?? '')) j++;
        v += s[j] ?? '';
        j++;
      }
      word = (word ?? '') + v;
      i = j + 1;
    } else if (c === '#' && word === null) {
      const nl = s.indexOf('\n', i);
      i = nl < 0 ? s.length : nl;
    } else if (c === ' ' || c === '\t') {
      flush();
      i++;
    } else {
      // A digit inside a word cannot start a redirection ("2>" only counts at a word's start, below): not trying
      // there keeps a long run of digits linear (the anchored \d* would rescan the rest of the run at each one).
      const redir = word !== null && c >= '0' && c <= '9' ? null : /^(?:\d*|&)(?:>>|>\||>&|<<<|<<-?|<>|<&|>|<)/.exec(rest);
      const op = /^(?:&&|\|\||;;|\|&|[;&|\n()])/.exec(rest);
      // "2>" only counts as a redirection when the digits start a word.
      if (redir && (word === null || !/^\d/.test(redir[0]))) {
        flush();
        tokens.push({ t: 'redir', v: redir[0] });
        i += redir[0].length;
      } else if (op) {
        flush();
        tokens.push({ t: 'op', v: op[0] });
        i += op[0].length;
      } else {
        word = (word ?? '') + c;
        i++;
      }
    }
  }
  flush();
  return tokens;
}

const KEYWORDS = new Set(['{', '}', '!', 'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', 'case', 'esac']);
const PLAIN_WRAPPERS = new Set(['nohup', 'exec', 'builtin', 'command', 'time', 'stdbuf', 'ionice', 'nice', 'timeout', 'env']);

export function basename(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

/** Drops assignments, keywords and wrappers in front of the real command. */
function stripWrappers(words: string[]): { words: string[]; sudo: boolean } {
  let sudo = false;
  let w = words;
  for (;;) {
    const head = w[0];
    if (head === undefined) return { words: w, sudo };
    const name = basename(head);
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(head) || KEYWORDS.has(head)) {
      w = w.slice(1);
    } else if (name === 'sudo' || name === 'doas') {
      sudo = true;
      w = skipOptions(w.slice(1), ['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U']);
    } else if (PLAIN_WRAPPERS.has(name)) {
      // `command -v rm` only looks the name up
      if (name === 'command' && /^-[vV]/.test(w[1] ?? '')) return { words: [], sudo };
      w = skipOptions(w.slice(1), ['-n', '-u', '-s', '-k', '-c', '-o', '-e', '-i']);
      // timeout DURATION CMD / nice's numeric priority
      if ((name === 'timeout' || name === 'nice') && /^[\d.+-]+[smhd]?$/.test(w[0] ?? '')) w = w.slice(1);
    } else {
      return { words: w, sudo };
    }
  }
}

function skipOptions(words: string[], withValue: string[]): string[] {
  let i = 0;
  while (i < words.length && words[i].startsWith('-')) {
    if (words[i] === '--') return words.slice(i + 1);
    i += withValue.includes(words[i]) ? 2 : 1;
  }
  // env's NAME=value operands come after its options
  while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i])) i++;
  return words.slice(i);
}

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash']);

/** Every simple command the line could run, including inside substitutions, `bash -c '…'` and `eval`. */
export function parseCommandLine(line: string, depth = 0): ParsedCommand[] {
  if (depth > MAX_DEPTH) return [{ name: '', args: [], redirects: [], pipedFrom: [], substitutions: [], sudo: false, line, tooDeep: true }];
  const { text, subs } = extractSubstitutions(line);
  const result: ParsedCommand[] = [];
  for (const sub of subs) result.push(...parseCommandLine(sub, depth + 1));

  let words: string[] = [];
  let redirects: { op: string; target: string }[] = [];
  let pipeline: string[] = [];
  let pendingRedir: string | null = null;
  // The placeholders the words hold, read off the words (asking every word about every substitution was quadratic).
  const subsOf = (ws: string[]) => {
    const used = new Set<number>();
    for (const w of ws) for (const m of w.matchAll(SUB_MARKS)) used.add(Number(m[1]));
    return [...used].sort((a, b) => a - b).flatMap((n) => (n < subs.length ? [subs[n]!] : []));
  };
  const endCommand = () => {
    const all = [...words, ...redirects.map((r) => r.target)];
    const { words: real, sudo } = stripWrappers(words);
    const name = real[0] === undefined ? '' : basename(real[0]);
    const args = real.slice(1);
    if (name || sudo || redirects.length) {
      result.push({ name, args, redirects, pipedFrom: pipeline.slice(-PIPED_FROM_MAX), substitutions: subsOf(all), sudo, line });
    }
    if (SHELLS.has(name)) {
      const c = args.findIndex((a) => /^-[a-z]*c[a-z]*$/.test(a));
      const script = c >= 0 ? args.slice(c + 1).find((a) => !a.startsWith('-')) : undefined;
      if (script !== undefined) result.push(...parseCommandLine(script, depth + 1));
    }
    if (name === 'eval') result.push(...parseCommandLine(args.join(' '), depth + 1));
    if (name) pipeline.push(name);
    words = [];
    redirects = [];
  };
  for (const tok of tokenize(text)) {
    if (tok.t === 'word') {
      if (pendingRedir !== null) {
        redirects.push({ op: pendingRedir, target: tok.v });
        pendingRedir = null;
      } else words.push(tok.v);
    } else if (tok.t === 'redir') {
      pendingRedir = tok.v;
    } else {
      endCommand();
      if (tok.v !== '|' && tok.v !== '|&') pipeline = [];
    }
  }
  endCommand();
  if (result.length === 0) {
    result.push({ name: '', args: [], redirects: [], pipedFrom: [], substitutions: [], sudo: false, line });
  }
  return result;
}
