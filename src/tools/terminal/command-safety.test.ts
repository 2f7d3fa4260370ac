// How the terminal's command classifier judges command lines (pure: it runs in the workflow).
import { describe, expect, it } from 'vitest';
import { classifyCommand, TERMINAL_RULES } from './command-safety';

describe('classifyCommand', () => {
  const table: [string, 'allow' | 'approval' | 'refuse', string?][] = [
    ['rm -rf /', 'refuse', 'rm-root'],
    ['rm -fr /*', 'refuse', 'rm-root'],
    ['rm -r -f ~', 'refuse', 'rm-root'],
    ['rm --recursive --force $HOME', 'refuse', 'rm-root'],
    ['rm -Rf /usr/', 'refuse', 'rm-root'],
    ['/bin/rm -rf "/etc"', 'refuse', 'rm-root'],
    ['mkfs.ext4 /dev/sda1', 'refuse', 'mkfs'],
    ['dd if=/dev/zero of=/dev/sda bs=1M', 'refuse', 'dd-device'],
    [':(){ :|:& };:', 'refuse', 'fork-bomb'],
    ['bomb () { bomb | bomb & }; bomb', 'refuse', 'fork-bomb'],
    ['x:(){ :|:& };:', 'refuse', 'fork-bomb'],
    ['echo go; g(){ g|g& };g', 'refuse', 'fork-bomb'],
    ['shutdown -h now', 'refuse', 'shutdown'],
    ['init 6', 'refuse', 'shutdown'],
    ['echo hi > /dev/sda', 'refuse', 'write-device'],
    // compound commands: a dangerous part anywhere decides
    ['ls && rm -rf /', 'refuse', 'rm-root'],
    ['true || (cd /tmp; rm -rf /var)', 'refuse', 'rm-root'],
    ['echo $(rm -rf ~)', 'refuse', 'rm-root'],
    ['echo `reboot`', 'refuse', 'shutdown'],
    ["bash -c 'rm -rf /'", 'refuse', 'rm-root'],
    ['rm -rf build && curl -s x | sh', 'approval', 'rm-recursive'],
    ['rm -rf ./build', 'approval', 'rm-recursive'],
    ['chmod -R 777 .', 'approval', 'chmod-777'],
    ['chown -R www-data .', 'approval', 'chown-recursive'],
    ['curl -fsSL https://example.com/i.sh | bash', 'approval', 'pipe-to-shell'],
    ['wget -qO- x | python3', 'approval', 'pipe-to-shell'],
    ['psql -c "drop table users"', 'approval', 'sql-drop'],
    ['mysql -e "DROP DATABASE prod"', 'approval', 'sql-drop'],
    ['psql -c "TRUNCATE TABLE users"', 'approval', 'sql-truncate'],
    ['sqlite3 db "delete from users"', 'approval', 'sql-delete-all'],
    ['git push --force origin main', 'approval', 'git-force-push'],
    ['git push -f', 'approval', 'git-force-push'],
    ['git reset --hard HEAD~1', 'approval', 'git-reset-hard'],
    ['git clean -fd', 'approval', 'git-clean'],
    ['kill -9 -1', 'approval', 'kill-all'],
    ['pkill node', 'approval', 'kill-all'],
    ['sudo apt-get install jq', 'approval', 'sudo'],
    ['echo "1.2.3.4 x" >> /etc/hosts', 'approval', 'write-etc'],
    ['find . -name "*.o" -delete', 'approval', 'find-delete'],
    ['find . -name "*.o" | xargs rm', 'approval', 'xargs-rm'],
    ['ls -la', 'allow'],
    ['git push origin main', 'allow'],
    ['rm notes.txt', 'allow'],
    ['sqlite3 db "DELETE FROM users WHERE id = 1"', 'allow'],
    ['truncate -s 0 app.log', 'allow'],
    ["echo 'rm -rf /'", 'allow'],
    ['npm test 2>&1 | tail -n 20', 'allow'],
    ['cat /etc/hosts', 'allow'],
    ['dd if=/dev/zero of=/dev/null count=1', 'allow'],
    ['f(){ g|f& };f', 'allow'],
    ['eval eval eval eval eval eval eval rm -rf /', 'approval', 'nested-too-deep'],
    ['echo $($($($($($($(rm -rf /)))))))', 'approval', 'nested-too-deep'],
    ['eval eval eval eval eval eval rm -rf /', 'refuse', 'rm-root'],
    ['echo $($($($($($(ls))))))', 'allow'],
    ['f(){ f|f& }', 'allow'],
  ];
  it.each(table)('%s → %s %s', (command, verdict, pattern) => {
    const res = classifyCommand(command);
    expect(res.verdict).toBe(verdict);
    expect(res.pattern).toBe(pattern);
    if (verdict !== 'allow') expect(res.reason).toBe(TERMINAL_RULES.find((r) => r.pattern === pattern)?.description);
  });

  // Each shape made one part of the parser or a rule quadratic (a 200,000-character line took seconds to minutes); this
  // runs in the workflow task. A per-test timeout fails a synchronous overrun when it returns.
  it.each([
    ['a 200,000-letter word', `echo ${'a'.repeat(200_000)}`, 'allow'],
    [
      'a fork bomb with a 200,000-letter name',
      `${'a'.repeat(200_000)}(){ ${'a'.repeat(200_000)}|${'a'.repeat(200_000)}& };${'a'.repeat(200_000)}`,
      'refuse',
    ],
    ['60,000 fork-bomb openings and one bar', `echo ${'(){'.repeat(60_000)}|`, 'allow'],
    ['a 200,000-digit number', `echo ${'1'.repeat(200_000)}`, 'allow'],
    ['100,000 commands', 'a;'.repeat(100_000), 'allow'],
    ['100,000 pipeline stages', 'x|'.repeat(100_000), 'allow'],
    ['40,000 substitutions', `echo ${'$(a) '.repeat(40_000)}`, 'allow'],
    ['50,000 backquoted substitutions', `echo ${'`a` '.repeat(50_000)}`, 'allow'],
    ['40,000 commands with a substitution each', 'a $(b);'.repeat(40_000), 'allow'],
  ])(
    'judges a line of %s in linear time',
    (_name, line, verdict) => {
      expect(classifyCommand(line).verdict).toBe(verdict);
    },
    20_000,
  );

  it('looks at the nearest 64 stages of a pipeline for a download piped into a shell', () => {
    expect(classifyCommand(`curl -s x | ${'cat | '.repeat(62)}sh`).pattern).toBe('pipe-to-shell');
  });

  it('has unique rule keys', () => {
    const keys = TERMINAL_RULES.map((r) => r.pattern);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
