// The crash clean-up of terminal commands (src/tools/orphans.ts): a running command is written down, a finished
// one is forgotten, and a sweep kills only the groups whose worker is gone. The end-to-end case (a real worker
// process SIGKILLed, the next one killing its command) is in crash.test.ts.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { terminal } from '../src/tools/terminal/handler';
import { killOrphans, processStartTime, TOKEN_ENV, type ProcessRecord } from '../src/tools/orphans';
import { alive, waitFor } from './helpers/wait';

const dirs: string[] = [];
const groups: number[] = [];
afterEach(() => {
  for (const g of groups.splice(0)) {
    try {
      process.kill(-g, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tmp(prefix: string): string {
  const d = mkdtempSync(path.join(os.tmpdir(), prefix)); // mode 0700
  dirs.push(d);
  return d;
}

/** A detached `sleep` leading its own process group, like a terminal command. */
function sleeper(): number {
  const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
  child.unref();
  groups.push(child.pid!);
  return child.pid!;
}

const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();

function write(dir: string, rec: Omit<ProcessRecord, 'boot'> & { boot?: string }) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${rec.pgid}-${rec.token}.json`), JSON.stringify({ boot, ...rec }));
}

describe('terminal processes left by a dead worker', () => {
  it('writes a running command down and forgets it when it ends', async () => {
    const ws = tmp('hermes-orphans-ws-');
    const processDir = path.join(tmp('hermes-orphans-'), 'procs');
    const ac = new AbortController();
    const run = terminal(
      { command: 'echo $$ > pid; sleep 30' },
      { workspace: ws, signal: ac.signal, heartbeat: () => undefined, terminalTimeoutSec: 60, callId: 'c1', processDir, workflowId: 'wf-1' },
    );
    // Written down by its token before the spawn, by its group after it: one record once it runs.
    const byGroup = () => (existsSync(processDir) ? readdirSync(processDir).filter((n) => !n.startsWith('pending-')) : []);
    await waitFor('the record', () => byGroup().length === 1);
    expect(readdirSync(processDir)).toEqual(byGroup());
    const [name] = byGroup();
    const pid = Number(name!.split('-')[0]);
    await waitFor('the pid file', () => existsSync(path.join(ws, 'pid')));
    expect(pid).toBeGreaterThan(0);
    ac.abort();
    await expect(run).rejects.toThrow();
    // Kept until the SIGKILL that follows the SIGTERM has gone out (a crash in between must still find it).
    expect(readdirSync(processDir)).toHaveLength(1);
    await waitFor('the record to go', () => readdirSync(processDir).length === 0, 5_000);
  });

  it('writes nothing when a command finishes normally', async () => {
    const ws = tmp('hermes-orphans-ws-');
    const processDir = path.join(tmp('hermes-orphans-'), 'procs');
    const ctx = { workspace: ws, signal: new AbortController().signal, heartbeat: () => undefined, terminalTimeoutSec: 60, callId: 'c1', processDir };
    expect(await terminal({ command: 'echo $HERMES_TERMINAL_TOKEN | wc -c' }, ctx)).toMatch(/^25\nexit code: 0$/);
    expect(readdirSync(processDir)).toEqual([]);
  });

  it('kills the groups of dead owners only, and never a recycled pid', async () => {
    const dir = tmp('hermes-orphans-');
    const orphan = sleeper();
    const kept = sleeper();
    const recycled = sleeper();
    await waitFor('the sleepers to start', () => [orphan, kept, recycled].every((p) => processStartTime(p) !== undefined));
    const me = { owner: process.pid, ownerStarted: processStartTime(process.pid)! };
    const deadOwner = { owner: 2 ** 22 + 1, ownerStarted: '1' }; // above pid_max's default: no such process
    write(dir, { pgid: orphan, started: processStartTime(orphan)!, token: 'a1', ...deadOwner, command: 'sleep 30' });
    write(dir, { pgid: kept, started: processStartTime(kept)!, token: 'a2', ...me, command: 'sleep 30' });
    // Same pid, different start time: another process now has that pid.
    write(dir, { pgid: recycled, started: '1', token: 'a3', ...deadOwner, command: 'sleep 30' });

    const swept = killOrphans(dir);
    expect(swept.killed.map((r) => r.pgid)).toEqual([orphan]);
    expect(swept.removed).toBe(1);
    await waitFor('the orphan to die', () => !alive(orphan), 5_000);
    expect(alive(kept)).toBe(true);
    expect(alive(recycled)).toBe(true);
    // The live owner's record stays for a later sweep; the others are gone.
    expect(readdirSync(dir)).toEqual([`${kept}-a2.json`]);
  });

  it('kills a group whose leader has exited only when its members carry the token', async () => {
    const dir = tmp('hermes-orphans-');
    const deadOwner = { owner: 2 ** 22 + 1, ownerStarted: '1' };
    // bash leads the group, starts sleep in the background and exits: a group without its leader.
    const leaderless = (env: Record<string, string>) => {
      const child = spawn('bash', ['-c', 'sleep 30 >/dev/null 2>&1 & echo $!'], {
        detached: true,
        stdio: ['ignore', 'pipe', 'ignore'],
        env: { ...process.env, ...env },
      });
      groups.push(child.pid!);
      return new Promise<{ pgid: number; member: number }>((resolve) => {
        let out = '';
        child.stdout!.on('data', (d) => (out += d));
        child.on('close', () => resolve({ pgid: child.pid!, member: Number(out.trim()) }));
      });
    };
    const ours = await leaderless({ [TOKEN_ENV]: '0a0a' });
    const stranger = await leaderless({});
    await waitFor('both leaders to be gone', () => processStartTime(ours.pgid) === undefined && processStartTime(stranger.pgid) === undefined);
    write(dir, { pgid: ours.pgid, started: '1', token: '0a0a', ...deadOwner, command: 'x' });
    // A stale record whose pgid now names someone else's leaderless group: never killed.
    write(dir, { pgid: stranger.pgid, started: '1', token: 'dead', ...deadOwner, command: 'x' });

    const swept = killOrphans(dir);
    expect(swept.killed.map((r) => r.pgid)).toEqual([ours.pgid]);
    await waitFor('our orphan to die', () => !alive(ours.member), 5_000);
    expect(alive(stranger.member)).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('kills a command written down only by its token (its worker died between the spawn and the group record)', async () => {
    const dir = tmp('hermes-orphans-');
    const deadOwner = { owner: 2 ** 22 + 1, ownerStarted: '1' };
    const me = { owner: process.pid, ownerStarted: processStartTime(process.pid)! };
    const holding = (token: string) => {
      const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore', env: { ...process.env, [TOKEN_ENV]: token } });
      groups.push(child.pid!);
      return child.pid!;
    };
    const orphan = holding('c0');
    const kept = holding('c1');
    await waitFor('the sleepers to start', () => [orphan, kept].every((p) => processStartTime(p) !== undefined));
    const pending = (token: string, owner: typeof me) =>
      writeFileSync(path.join(dir, `pending-${token}.json`), JSON.stringify({ boot, token, ...owner, command: `sleep 30 (${token})` }));
    pending('c0', deadOwner);
    pending('c1', me); // its worker (this process) still runs it
    pending('c2', deadOwner); // never started: nothing carries its token

    const swept = killOrphans(dir);
    expect(swept.killed.map((r) => [r.token, r.pgid, r.command])).toEqual([['c0', undefined, 'sleep 30 (c0)']]);
    expect(swept.removed).toBe(1);
    await waitFor('the orphan to die', () => !alive(orphan), 5_000);
    expect(alive(kept)).toBe(true);
    expect(readdirSync(dir)).toEqual(['pending-c1.json']);
  });

  it('forgets the token record of a command the spawn refused', async () => {
    const ws = tmp('hermes-orphans-ws-');
    const processDir = path.join(tmp('hermes-orphans-'), 'procs');
    const ctx = { workspace: ws, signal: new AbortController().signal, heartbeat: () => undefined, terminalTimeoutSec: 60, callId: 'c1', processDir };
    await expect(terminal({ command: 'echo a\0b' }, ctx)).rejects.toThrow(/null bytes/);
    expect(readdirSync(processDir)).toEqual([]);
  });

  it('ignores a record directory others could write to', async () => {
    const dir = tmp('hermes-orphans-');
    const orphan = sleeper();
    await waitFor('the sleeper to start', () => processStartTime(orphan) !== undefined);
    write(dir, { pgid: orphan, started: processStartTime(orphan)!, token: 'a4', owner: 2 ** 22 + 1, ownerStarted: '1', command: 'sleep 30' });
    chmodSync(dir, 0o777);
    expect(killOrphans(dir)).toEqual({ killed: [], removed: 0 });
    const link = `${dir}-link`;
    dirs.push(link);
    chmodSync(dir, 0o700);
    symlinkSync(dir, link);
    expect(killOrphans(link)).toEqual({ killed: [], removed: 0 });
    expect(alive(orphan)).toBe(true);
  });

  it('survives whatever the directory holds, and leaves records from before a reboot alone', async () => {
    const dir = tmp('hermes-orphans-');
    const orphan = sleeper();
    await waitFor('the sleeper to start', () => processStartTime(orphan) !== undefined);
    writeFileSync(path.join(dir, '123-ab.json'), 'null');
    writeFileSync(path.join(dir, '124-ab.json'), '{"pgid": "x"}');
    writeFileSync(path.join(dir, '125-ab.json'), '{ half written');
    mkdirSync(path.join(dir, '126-ab.json'));
    writeFileSync(path.join(dir, 'notes.txt'), 'not a record');
    // A matching pid and start time, but from another boot: meaningless now.
    write(dir, {
      pgid: orphan,
      started: processStartTime(orphan)!,
      token: 'b0',
      owner: 2 ** 22 + 1,
      ownerStarted: '1',
      command: 'x',
      boot: 'another-boot',
    });
    expect(killOrphans(dir)).toEqual({ killed: [], removed: 1 });
    expect(alive(orphan)).toBe(true);
    const file = path.join(tmp('hermes-orphans-'), 'a-file');
    writeFileSync(file, '');
    expect(killOrphans(file)).toEqual({ killed: [], removed: 0 });
  });
});
