// The pure rules of src/versioning/deployment.ts: which build makes itself current, what the deployment is
// called, which settings are accepted. No server.
import { describe, expect, it } from 'vitest';
import { deploymentName, shouldBecomeCurrent, versioningMode, type DeploymentView } from '../src/versioning/deployment';

const view = (current: string | undefined, builds: Array<[id: string, createdMs: number, activated: boolean]>): DeploymentView => ({
  current,
  builds: builds.map(([buildId, createdMs, activated]) => ({ buildId, createdMs, activated })),
});

describe('shouldBecomeCurrent', () => {
  it('takes over when no build is current', () => {
    expect(shouldBecomeCurrent(view(undefined, [['a', 1, false]]), 'a')).toBe(true);
  });

  it('a new build takes over from the current one', () => {
    expect(
      shouldBecomeCurrent(
        view('a', [
          ['a', 1, true],
          ['b', 2, false],
        ]),
        'b',
      ),
    ).toBe(true);
  });

  it('an older build restarted does not take over again, nor does one that was current before', () => {
    expect(
      shouldBecomeCurrent(
        view('b', [
          ['a', 1, true],
          ['b', 2, true],
        ]),
        'a',
      ),
    ).toBe(false);
    // Rolled back by hand to a: b was current once, so it stays put even though it was seen later.
    expect(
      shouldBecomeCurrent(
        view('a', [
          ['a', 1, true],
          ['b', 2, true],
        ]),
        'b',
      ),
    ).toBe(false);
  });

  it('of two new builds, only the one seen last takes over', () => {
    const v = view('a', [
      ['a', 1, true],
      ['b', 2, false],
      ['c', 3, false],
    ]);
    expect(shouldBecomeCurrent(v, 'b')).toBe(false);
    expect(shouldBecomeCurrent(v, 'c')).toBe(true);
  });

  it('nothing to do for the current build, or one the server does not list yet', () => {
    expect(shouldBecomeCurrent(view('a', [['a', 1, true]]), 'a')).toBe(false);
    expect(shouldBecomeCurrent(view('a', [['a', 1, true]]), 'z')).toBe(false);
  });
});

describe('deploymentName and versioningMode', () => {
  it('names the deployment after the task queue unless HERMES_DEPLOYMENT says otherwise, in safe characters', () => {
    expect(deploymentName('hermes', {})).toBe('hermes');
    expect(deploymentName('team.a/queue', {})).toBe('team-a-queue');
    expect(deploymentName('hermes', { HERMES_DEPLOYMENT: 'agents' })).toBe('agents');
  });

  it('reads HERMES_VERSIONING (auto by default) and refuses anything else', () => {
    expect(versioningMode({})).toBe('auto');
    expect(versioningMode({ HERMES_VERSIONING: ' Manual ' })).toBe('manual');
    expect(versioningMode({ HERMES_VERSIONING: 'off' })).toBe('off');
    expect(() => versioningMode({ HERMES_VERSIONING: 'yes' })).toThrow('HERMES_VERSIONING=yes: expected auto, manual or off');
  });
});
