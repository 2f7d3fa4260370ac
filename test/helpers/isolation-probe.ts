// What this machine offers for terminal commands, found out once per test file by the code under test (the
// namespace launcher, bubblewrap); cases that need what is missing are skipped, saying why (bubblewrap:
// `apt-get install bubblewrap`; the launcher: util-linux and user namespaces, or root). And `sleep` markers whose
// processes a failed test does not leave behind.
import { beforeAll } from 'vitest';
import { probeIsolation, type Isolation } from '../../src/tools/isolation';
import { probeBwrap, type BwrapProbe } from '../../src/tools/sandbox';
import { processesWith, sleepMarker } from './procs';

export interface MachineIsolation {
  /** The namespace launcher's probe (set in beforeAll). */
  iso: Isolation;
  /** Bubblewrap's probe (set in beforeAll). */
  bwrap: BwrapProbe;
  /** Skips the test when the machine lacks it. */
  needs: (ctx: { skip: (condition: boolean, note?: string) => void }, what: 'namespace' | 'bwrap') => void;
  /** A unique `sleep` marker (helpers/procs.ts) whose processes are SIGKILLed after the test. */
  marker: () => string;
  /** True when no process carries any of the markers any more. */
  gone: (...markers: string[]) => boolean;
}

export function machineIsolation(cleanups: Array<() => unknown>): MachineIsolation {
  const m: MachineIsolation = {
    iso: { kind: 'none', reason: 'not probed yet' },
    bwrap: { ok: false, bwrap: 'bwrap', reason: 'not probed yet' },
    needs: (ctx, what) => {
      if (what === 'namespace') ctx.skip(m.iso.kind !== 'namespace', `no pid namespace here: ${m.iso.kind === 'none' ? m.iso.reason : ''}`);
      else ctx.skip(!m.bwrap.ok, `bubblewrap does not work here: ${m.bwrap.ok ? '' : m.bwrap.reason}`);
    },
    marker: () => {
      const marker = sleepMarker();
      cleanups.push(() => {
        for (const p of processesWith(marker)) {
          try {
            process.kill(p.pid, 'SIGKILL');
          } catch {
            // gone
          }
        }
      });
      return marker;
    },
    gone: (...markers) => markers.every((x) => processesWith(x).length === 0),
  };
  beforeAll(async () => {
    [m.iso, m.bwrap] = await Promise.all([probeIsolation(), probeBwrap()]);
  });
  return m;
}
