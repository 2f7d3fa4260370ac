// The parent's view of a child: the approvals report and the progress report travel as separate signals and may
// arrive in either order; the state query must show the child waiting as soon as either says so.
import { describe, expect, it } from 'vitest';
import { ZERO_USAGE } from '../rules/usage';
import { SubagentLedger } from './ledger';

const approval = (child: string) => ({
  callId: 't1',
  tool: 'terminal',
  command: 'rm -rf x',
  reason: 'r',
  pattern: 'p',
  child: { workflowId: child, goal: 'g' },
});

describe('SubagentLedger views', () => {
  it('shows a child waiting once it reported an approval of its own, before its progress report', () => {
    const l = new SubagentLedger();
    l.plan([{ workflowId: 'c1', goal: 'g' }]);
    l.started('c1');
    expect(l.views[0]!.status).toBe('running');
    l.setApprovals('c1', { runs: 1, seq: 0, approvals: [approval('c1')] });
    expect(l.views[0]!.status).toBe('waiting');
    l.setApprovals('c1', { runs: 1, seq: 1, approvals: [] });
    expect(l.views[0]!.status).toBe('running');
  });

  it('does not show a child waiting for a grandchild it only forwards', () => {
    const l = new SubagentLedger();
    l.plan([{ workflowId: 'c1', goal: 'g' }]);
    l.started('c1');
    l.setApprovals('c1', { runs: 1, seq: 0, approvals: [approval('c1-agent1-d1-1')] });
    expect(l.views[0]!.status).toBe('running');
    l.report({ workflowId: 'c1', status: 'waiting', iteration: 1, modelCalls: 1, seq: 0, usage: ZERO_USAGE }, false);
    expect(l.views[0]!.status).toBe('waiting');
  });
});
