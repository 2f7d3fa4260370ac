// What a built-in tool's handler gets, for the tools' unit tests (no Temporal): every test has a fresh workspace
// (a real path), removed after it with every directory tempDir made, and a heartbeat that counts.
import { afterEach, beforeEach } from 'vitest';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ToolContext } from '../../src/tools/handler';

/** Where the terminal tool writes down running commands in these tests. */
export const PROCESS_DIR = path.join(os.tmpdir(), `hermes-test-procs-${process.pid}`);

export interface ToolTestBed {
  /** This test's workspace. */
  readonly ws: string;
  /** Heartbeats since this test started. */
  readonly heartbeats: number;
  readonly ctx: (over?: Partial<ToolContext>) => ToolContext;
  /** Another directory, removed after the test. */
  readonly tempDir: (prefix: string) => Promise<string>;
}

/** Registers the hooks that make and remove the workspace: call it at the top of a test file. */
export function toolTestBed(prefix = 'hermes-tools-'): ToolTestBed {
  let ws = '';
  let heartbeats = 0;
  const created: string[] = [];
  const tempDir = async (p: string) => {
    const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), p)));
    created.push(dir);
    return dir;
  };
  beforeEach(async () => {
    ws = await tempDir(prefix);
    heartbeats = 0;
  });
  afterEach(async () => {
    await Promise.all(created.splice(0).map((d) => fs.rm(d, { recursive: true, force: true })));
  });
  return {
    get ws() {
      return ws;
    },
    get heartbeats() {
      return heartbeats;
    },
    ctx: (over = {}) => ({
      workspace: ws,
      signal: new AbortController().signal,
      heartbeat: () => void heartbeats++,
      terminalTimeoutSec: 30,
      callId: 'call_1',
      processDir: PROCESS_DIR,
      ...over,
    }),
    tempDir,
  };
}
