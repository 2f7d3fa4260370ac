// Prompt-injection and exfiltration patterns. Text that matches one must not enter the model's system prompt:
// a memory entry is recalled into every later conversation of its scope, so one poisoned write (from a web page
// or a file the model read) would steer all of them; a project context file (HERMES.md, AGENTS.md, CLAUDE.md) comes
// from whoever wrote the repository. Pure (workflow-safe): the memory workflow's update validator
// checks every write with it, whichever client sent it. A guard rail, not a proof: it catches the usual phrasings.

export interface InjectionFinding {
  /** Stable id of the pattern, e.g. `ignore-instructions`. */
  id: string;
  /** Why the text is refused, worded for the model (and the person) that wrote it. */
  reason: string;
}

interface Pattern {
  id: string;
  reason: string;
  test: RegExp;
}

const SECRET = String.raw`(?:api[\s_-]?keys?|secrets?|passwords?|passwd|tokens?|credentials?|private[\s_-]?keys?|ssh[\s_-]?keys?|env(?:ironment)?[\s_-]?(?:variables?|vars?)|\.env\b|system[\s_-]?prompt)`;
const DESTINATION = String.raw`(?:https?:\/\/|ftp:\/\/|[\w.+-]+@[\w-]+\.[\w.-]+|webhook|pastebin|requestbin|ngrok)`;

const PATTERNS: Pattern[] = [
  {
    id: 'ignore-instructions',
    reason: 'it tells the model to ignore or override its previous or system instructions',
    test: /\b(?:ignore|disregard|forget|override|bypass|skip)\s+(?:all\s+|any\s+|the\s+|your\s+|every\s+)*(?:previous|prior|above|earlier|preceding|system|original|existing|safety|developer)\s+(?:instructions?|rules?|prompts?|directions?|guidelines?|guardrails?|messages?|context)/i,
  },
  {
    id: 'ignore-instructions',
    reason: 'it tells the model to ignore or override its previous or system instructions',
    test: /\b(?:disregard|ignore)\s+(?:all\s+|any\s+)?(?:your|the)\s+(?:instructions|rules|guidelines|restrictions)/i,
  },
  {
    id: 'new-instructions',
    reason: 'it claims to give the model new system-level instructions or a new role',
    test: /\b(?:new\s+system\s+(?:prompt|instructions?)|system\s+prompt\s+override|you\s+are\s+now\s+(?:a|an|in|no\s+longer)\b|from\s+now\s+on,?\s+you\s+(?:must|will|are)\b|act\s+as\s+if\s+you\s+have\s+no\s+(?:restrictions|rules|limits))/i,
  },
  {
    id: 'hide-from-user',
    reason: 'it tells the model to hide something from the user',
    test: /\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|show|mention\s+(?:this|it)\s+to|let)\s+the\s+user\b/i,
  },
  {
    id: 'reveal-secrets',
    reason: 'it asks to reveal, print or send secrets (keys, tokens, passwords, the environment or the system prompt)',
    test: new RegExp(
      String.raw`\b(?:reveal|print|show|dump|output|leak|expose|share|disclose|echo|cat|read\s+out)\s+(?:\S+\s+){0,4}?(?:all\s+|any\s+|the\s+|your\s+|my\s+)*${SECRET}`,
      'i',
    ),
  },
  {
    id: 'exfiltrate',
    reason: 'it tells the model to send or upload data to a URL, an e-mail address or another outside destination',
    test: new RegExp(
      String.raw`\b(?:send|upload|post|exfiltrate|forward|transmit|leak|e-?mail|mail|pipe|submit|beacon)\b[^\n]{0,120}?\b(?:to|at|into)\s+(?:the\s+|this\s+|my\s+|a\s+|an\s+|some\s+)?${DESTINATION}`,
      'i',
    ),
  },
  {
    id: 'exfiltrate-command',
    reason: 'it contains a network command that carries secrets or local files out (curl/wget/nc with a key, token or file)',
    // Each scan stops at the next command word (tempered): scanning to the line's end from every `curl` was quadratic.
    test: /\b(?:curl|wget|nc|ncat|netcat|scp|rsync)\b(?:(?!\b(?:curl|wget|nc|ncat|netcat|scp|rsync)\b)[^\n])*(?:\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)|--data(?:-binary)?\s+@|-d\s+@|-T\s|--upload-file|<\s*[~/])/i,
  },
  {
    id: 'read-secrets',
    reason: 'it points at secret files (SSH keys, .env, credential stores)',
    test: /(?:~|\$HOME|\/root|\/home\/\w+)\/\.(?:ssh|aws|gnupg|netrc|pgpass|npmrc|pypirc|docker\/config)|\bauthorized_keys\b|\bid_(?:rsa|ed25519|ecdsa)\b/i,
  },
  {
    id: 'pipe-to-shell',
    reason: 'it tells the model to download a script and run it (curl or wget piped into a shell or interpreter)',
    test: /\b(?:curl|wget)\b(?:(?!\b(?:curl|wget)\b)[^\n|])*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:ba|z|da|k|fi)?sh\b|\b(?:curl|wget)\b(?:(?!\b(?:curl|wget)\b)[^\n|])*\|\s*(?:sudo\s+)?(?:python[\d.]*|perl|ruby|node)\b|\b(?:ba|z)?sh\s+(?:-c\s+)?["']?\$\(\s*(?:curl|wget)\b/i,
  },
  {
    id: 'fence-break',
    reason: 'it contains a marker that opens or closes a block of the system prompt (recalled memory, project context or the skill list)',
    test: /<\/?\s*(?:(?:memory|project)-context|available-skills)\b/i,
  },
];

/**
 * Invisible and bidirectional-control characters: text that reads one way to a person and another way to the
 * model (zero-width spaces and joiners, word joiner, BOM, bidi embeddings/overrides/isolates, Unicode tag
 * characters, soft hyphen).
 */
const INVISIBLE = /[\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|\uDB40[\uDC00-\uDC7F]/;

function codePoint(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The first pattern the text matches, or undefined when it looks clean. */
export function scanForInjection(text: string): InjectionFinding | undefined {
  const hidden = INVISIBLE.exec(text);
  if (hidden) {
    return { id: 'invisible-unicode', reason: `it contains an invisible or bidirectional-control character (${codePoint(hidden[0])})` };
  }
  for (const p of PATTERNS) if (p.test.test(text)) return { id: p.id, reason: p.reason };
  return undefined;
}

/** The pattern ids, for documentation and tests. */
export const INJECTION_PATTERN_IDS = [...new Set(['invisible-unicode', ...PATTERNS.map((p) => p.id)])];
