// Which terminal command lines count as read-only (no workspace checkpoint before them: src/checkpoints/).
import { describe, expect, it } from 'vitest';
import { changesFiles } from '../../checkpoints/changes-files';
import { isReadOnlyCommand } from './read-only';

describe('isReadOnlyCommand', () => {
  const readOnly = [
    'ls -la',
    'cat a.txt | grep -n foo | wc -l',
    'cd src && ls',
    'find . -name "*.ts" -type f',
    "sed -n '1,20p' a.txt",
    'git status && git diff HEAD~1',
    'git -C sub log --oneline',
    'grep -r TODO . 2>/dev/null',
    'ls missing 2>&1 | head',
    'sort -u a.txt',
    'echo "$(cat a.txt)"',
  ];
  const writes = [
    'echo hi > a.txt',
    'cat a >> b',
    'ls &> out.log',
    'rm b.txt',
    'ls && rm b.txt',
    'echo "$(touch x)"',
    "bash -c 'rm x'",
    'find . -name "*.tmp" -delete',
    'find . -exec rm {} \\;',
    "sed -i 's/a/b/' a.txt",
    "sed 's/a/b/w out.txt' a.txt",
    'sort -o a.txt a.txt',
    'uniq in.txt out.txt',
    'git checkout -- a.txt',
    'git stash',
    'git diff --output=p.diff',
    'python3 script.py',
    'npm install',
    'sudo ls',
    'awk \'{ print > "x" }\' a.txt',
    'cat <<EOF > a.txt\nhi\nEOF',
  ];
  it.each(readOnly)('read-only: %s', (cmd) => expect(isReadOnlyCommand(cmd)).toBe(true));
  it.each(writes)('may write: %s', (cmd) => expect(isReadOnlyCommand(cmd)).toBe(false));

  it('decides which tool calls get a checkpoint', () => {
    expect(changesFiles('write_file', { path: 'a', content: '' })).toBe(true);
    expect(changesFiles('patch', { path: 'a' })).toBe(true);
    expect(changesFiles('terminal', { command: 'rm a' })).toBe(true);
    expect(changesFiles('terminal', { command: 'ls' })).toBe(false);
    expect(changesFiles('read_file', { path: 'a' })).toBe(false);
    expect(changesFiles('memory', { action: 'add' })).toBe(false);
  });
});
