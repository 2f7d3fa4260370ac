// The file tools together, without a Temporal server: unreadable directories (as a non-root user), special
// files, workspace confinement and how long output is cut and saved. One tool's own tests are beside it
// (src/tools/<tool>/<tool>.test.ts).
import { describe, it, expect } from 'vitest';
import * as fs from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { ToolError } from '../src/tools/handler';
import { listDir } from '../src/tools/list_dir/handler';
import { patch } from '../src/tools/patch/handler';
import { readFile } from '../src/tools/read_file/handler';
import { searchFiles } from '../src/tools/search_files/handler';
import { terminal } from '../src/tools/terminal/handler';
import { writeFile } from '../src/tools/write_file/handler';
import { resolveInWorkspace } from '../src/tools/workspace';
import { finishToolOutput } from '../src/tools/output';
import { toolTestBed } from './helpers/tool-context';

const bed = toolTestBed();
const { ctx, tempDir } = bed;

async function listAndSearch(workspace: string) {
  const c = { ...ctx(), workspace };
  return { listed: await listDir({ depth: 2 }, c), found: await searchFiles({ pattern: 'needle' }, c) };
}

/** listAndSearch in a child process running as `nobody` (the workspace made readable to it). */
async function asNobody(workspace: string): Promise<{ listed: string; found: string }> {
  await fs.chmod(workspace, 0o755);
  for (const f of ['open.txt', 'locked/secret.txt'].map((p) => path.join(workspace, p))) await fs.chmod(f, 0o644).catch(() => undefined);
  const script = path.join(workspace, '..', `nobody-${path.basename(workspace)}.mts`);
  await fs.writeFile(
    script,
    `import { listDir } from ${JSON.stringify(path.resolve('src/tools/list_dir/handler.ts'))};\n` +
      `import { searchFiles } from ${JSON.stringify(path.resolve('src/tools/search_files/handler.ts'))};\n` +
      `const c = { workspace: ${JSON.stringify(workspace)}, signal: new AbortController().signal, heartbeat() {}, terminalTimeoutSec: 30, callId: 'c', processDir: '/nonexistent' };\n` +
      `console.log(JSON.stringify({ listed: await listDir({ depth: 2 }, c), found: await searchFiles({ pattern: 'needle' }, c) }));\n`,
  );
  try {
    const out = execFileSync(process.execPath, ['--import', 'tsx', script], { uid: 65534, gid: 65534, encoding: 'utf8' });
    return JSON.parse(out) as { listed: string; found: string };
  } finally {
    await fs.rm(script, { force: true });
  }
}

describe('unreadable entries', () => {
  it('lists and searches around an unreadable directory and says what was left out', async () => {
    await fs.mkdir(path.join(bed.ws, 'locked'));
    await fs.writeFile(path.join(bed.ws, 'locked', 'secret.txt'), 'needle\n');
    await fs.writeFile(path.join(bed.ws, 'open.txt'), 'needle here\n');
    await fs.chmod(path.join(bed.ws, 'locked'), 0o000);
    try {
      // Root reads everything: then the tools run in a child process as `nobody`, like a worker without root.
      const { listed, found } = process.getuid?.() === 0 ? await asNobody(bed.ws) : await listAndSearch(bed.ws);
      expect(listed).toContain('locked/ (not readable: permission denied)');
      expect(found).toContain('open.txt:1: needle here');
      expect(found).toContain('[not searched: locked/ (not readable: permission denied)]');
    } finally {
      await fs.chmod(path.join(bed.ws, 'locked'), 0o755);
    }
  });
});

describe('special files', () => {
  it('refuses a named pipe instead of blocking on it forever', async () => {
    execFileSync('mkfifo', [path.join(bed.ws, 'pipe')]);
    const refused = /pipe is a named pipe, not a regular file/;
    await expect(readFile({ path: 'pipe' }, ctx())).rejects.toThrow(refused);
    await expect(writeFile({ path: 'pipe', content: 'x' }, ctx())).rejects.toThrow(refused);
    await expect(patch({ path: 'pipe', old_string: 'a', new_string: 'b' }, ctx())).rejects.toThrow(refused);
    await expect(searchFiles({ pattern: 'x', path: 'pipe' }, ctx())).rejects.toThrow(refused);
    // A directory search skips it, and list_dir shows it.
    await fs.writeFile(path.join(bed.ws, 'a.txt'), 'x marks\n');
    expect(await searchFiles({ pattern: 'x' }, ctx())).toBe('a.txt:1: x marks');
    expect(await listDir({}, ctx())).toContain('pipe');
  });
});

describe('workspace confinement', () => {
  it('refuses .. paths with the workspace in the message', async () => {
    await expect(readFile({ path: '../x' }, ctx())).rejects.toThrow(new ToolError(`path "../x" is outside the workspace (${bed.ws})`));
    await expect(writeFile({ path: 'a/../../x', content: '' }, ctx())).rejects.toThrow(/is outside the workspace/);
  });

  it('allows absolute paths only inside the workspace', async () => {
    const other = await tempDir('hermes-outside-');
    await fs.writeFile(path.join(other, 'secret.txt'), 'secret');
    await expect(readFile({ path: path.join(other, 'secret.txt') }, ctx())).rejects.toThrow(/is outside the workspace/);
    await fs.writeFile(path.join(bed.ws, 'in.txt'), 'ok');
    expect(await readFile({ path: path.join(bed.ws, 'in.txt') }, ctx())).toBe('   1| ok\n[lines 1-1 of 1; end of file]');
    expect(await resolveInWorkspace(bed.ws, 'new/dir/file.txt')).toBe(path.join(bed.ws, 'new/dir/file.txt'));
  });

  it('refuses symlinks that point outside, also for files that do not exist yet', async () => {
    const other = await tempDir('hermes-outside-');
    await fs.writeFile(path.join(other, 'secret.txt'), 'secret');
    await fs.symlink(other, path.join(bed.ws, 'link'));
    await fs.symlink(path.join(other, 'missing.txt'), path.join(bed.ws, 'dangling'));
    await expect(readFile({ path: 'link/secret.txt' }, ctx())).rejects.toThrow('path "link/secret.txt" is outside the workspace');
    await expect(writeFile({ path: 'link/new.txt', content: 'x' }, ctx())).rejects.toThrow(/outside the workspace/);
    await expect(writeFile({ path: 'dangling', content: 'x' }, ctx())).rejects.toThrow(/outside the workspace/);
    await expect(fs.access(path.join(other, 'new.txt'))).rejects.toThrow();
    await expect(fs.access(path.join(other, 'missing.txt'))).rejects.toThrow();
    await expect(terminal({ command: 'pwd', cwd: 'link' }, ctx())).rejects.toThrow(/outside the workspace/);
  });
});

describe('finishToolOutput', () => {
  it('keeps head and tail and saves the full text for read_file', async () => {
    const text = 'H'.repeat(100) + 'M'.repeat(800) + 'T'.repeat(100);
    const res = await finishToolOutput(text, { limit: 100, workspace: bed.ws, callId: 'call_1' });
    expect(res.size).toBe(1000);
    expect(res.truncated).toBe(true);
    expect(res.content).toBe(
      'H'.repeat(70) +
        '\n[... 900 characters omitted ...]\n' +
        'T'.repeat(30) +
        '\n[full output (1000 characters) saved to .hermes-output/call_1.txt; page through it with read_file]',
    );
    expect(await fs.readFile(path.join(bed.ws, '.hermes-output/call_1.txt'), 'utf8')).toBe(text);
    expect(await readFile({ path: '.hermes-output/call_1.txt' }, ctx())).toContain('[lines 1-1 of 1; end of file]');
  });

  it('names the file after the conversation, and follows no link the model planted', async () => {
    const long = 'L'.repeat(500);
    const a = await finishToolOutput(long, { limit: 100, workspace: bed.ws, callId: 'call_0', workflowId: 'conv/a' });
    const b = await finishToolOutput(long + 'b', { limit: 100, workspace: bed.ws, callId: 'call_0', workflowId: 'conv/b' });
    expect(a.content).toContain('saved to .hermes-output/conv_a-call_0.txt');
    expect(b.content).toContain('saved to .hermes-output/conv_b-call_0.txt');
    expect(await fs.readFile(path.join(bed.ws, '.hermes-output/conv_a-call_0.txt'), 'utf8')).toBe(long);

    // A link in place of the file: not followed, the victim keeps its content, nothing is claimed as saved.
    const outside = await tempDir('hermes-victim-');
    await fs.writeFile(path.join(outside, 'victim'), 'precious');
    await fs.symlink(path.join(outside, 'victim'), path.join(bed.ws, '.hermes-output/conv_c-call_0.txt'));
    const c = await finishToolOutput(long, { limit: 100, workspace: bed.ws, callId: 'call_0', workflowId: 'conv/c' });
    expect(c.truncated).toBe(true);
    expect(c.content).not.toContain('saved to');
    // A link in place of the directory: refused as outside the workspace.
    await fs.rm(path.join(bed.ws, '.hermes-output'), { recursive: true });
    await fs.symlink(outside, path.join(bed.ws, '.hermes-output'));
    const d = await finishToolOutput(long, { limit: 100, workspace: bed.ws, callId: 'call_9', workflowId: 'conv/d' });
    expect(d.content).not.toContain('saved to');
    expect((await fs.readdir(outside)).sort()).toEqual(['victim']);
    expect(await fs.readFile(path.join(outside, 'victim'), 'utf8')).toBe('precious');
  });

  it('leaves short output alone and saves nothing', async () => {
    expect(await finishToolOutput('short', { limit: 100, workspace: bed.ws, callId: 'c2' })).toEqual({
      content: 'short',
      size: 5,
      truncated: false,
    });
    await expect(fs.access(path.join(bed.ws, '.hermes-output'))).rejects.toThrow();
  });
});
