import { existsSync, readdirSync, readFileSync } from 'node:fs';
// Polling helpers shared by the scenario tests.
import type { ConversationHandle } from '../../src/client';
import type { ConversationState } from '../../src/shared/contract';

/** Polls fn until it returns something other than undefined/false; fails after timeoutMs. */
export async function waitFor<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Polls the `state` query until pred holds. */
export function stateWhen(handle: ConversationHandle, pred: (s: ConversationState) => boolean, timeoutMs = 20_000): Promise<ConversationState> {
  return waitFor(
    'the conversation state',
    async () => {
      const s = await handle.state().catch(() => undefined);
      return s && pred(s) ? s : undefined;
    },
    timeoutMs,
  );
}

/**
 * True while a process (or, with a negative pid, any member of that process group) is running. A zombie
 * counts as gone: it has exited and only waits to be reaped, which in a container can take PID 1 a while.
 */
export function alive(pid: number): boolean {
  if (!existsSync('/proc/self/stat')) {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
  if (pid > 0) return running(pid);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat && stat.pgrp === -pid && stat.state !== 'Z') return true;
  }
  return false;
}

function running(pid: number): boolean {
  const stat = readStat(pid);
  return Boolean(stat && stat.state !== 'Z');
}

function readStat(pid: number): { state: string; pgrp: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid pgrp ..." — comm may contain spaces and parentheses.
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: rest[0]!, pgrp: Number(rest[2]) };
  } catch {
    return undefined;
  }
}
