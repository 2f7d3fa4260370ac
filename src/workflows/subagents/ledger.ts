// The parent's ledger of its sub-agents: the children of the current (or latest) delegate_task call as the state
// query lists them, what each has reported so far (its totals count in the parent's budgets as they come), and the
// approvals waiting in each running child's subtree as it last reported them.
import type { ChildProgress } from '../../shared/wire';
import { RUN_STATUSES, type ChildView, type PendingApproval, type Usage } from '../../shared/contract';
import { subUsage, ZERO_USAGE } from '../rules/usage';

type Totals = { modelCalls: number; seq: number; usage: Usage; settled: boolean };
export type ChildApprovals = { runs: number; seq: number; approvals: PendingApproval[] };

export class SubagentLedger {
  #views: ChildView[] = [];
  readonly #totals = new Map<string, Totals>();
  readonly #approvals = new Map<string, ChildApprovals>();

  /**
   * The children as the state query lists them. A child that has reported an approval of its own is shown waiting
   * even before its progress report says so: the two signals travel separately and may arrive in either order.
   */
  get views(): readonly ChildView[] {
    return this.#views.map((v) => (v.status === 'running' && this.#asksItself(v.workflowId) ? { ...v, status: 'waiting' } : v));
  }

  #asksItself(workflowId: string): boolean {
    return Boolean(this.#approvals.get(workflowId)?.approvals.some((a) => a.child?.workflowId === workflowId));
  }

  /** A delegate_task call's children, all queued. */
  plan(children: Array<{ workflowId: string; goal: string }>): void {
    this.#views = children.map((p) => ({ workflowId: p.workflowId, goal: p.goal.slice(0, 200), status: 'queued', iteration: 0, totalTokens: 0 }));
  }

  /** A sub-agent is about to start: its reports count from now on. */
  started(workflowId: string): void {
    this.#totals.set(workflowId, { modelCalls: 0, seq: -1, usage: ZERO_USAGE, settled: false });
    const view = this.view(workflowId);
    if (view) view.status = 'running';
  }

  view(workflowId: string): ChildView | undefined {
    return this.#views.find((v) => v.workflowId === workflowId);
  }

  /**
   * A sub-agent's totals so far (its progress signal, or its result with `settle`); returns what is new of its
   * usage, for the parent's. Reports of children this run did not start, of settled ones, or older than one already
   * counted change nothing.
   */
  report(p: ChildProgress & { status: ChildView['status'] }, settle: boolean): Usage | undefined {
    const t = this.#totals.get(p.workflowId);
    const seq = p.seq ?? 0;
    if (!t || t.settled || p.modelCalls < t.modelCalls || (p.modelCalls === t.modelCalls && seq <= t.seq && !settle)) return undefined;
    const delta = subUsage(p.usage, t.usage);
    if (p.usage.totalTokens >= t.usage.totalTokens) t.usage = p.usage;
    t.modelCalls = p.modelCalls;
    t.seq = seq;
    t.settled = settle;
    const view = this.view(p.workflowId);
    if (view) Object.assign(view, { iteration: p.iteration, totalTokens: p.usage.totalTokens, status: p.status });
    return delta.totalTokens > 0 || delta.costUsd > 0 ? delta : undefined;
  }

  /** A sub-agent this run started whose result is not in yet. */
  running(workflowId: string): boolean {
    const t = this.#totals.get(workflowId);
    return Boolean(t && !t.settled);
  }

  /** A sub-agent ended without a result (cancelled, failed to start): what it reported stays counted, nothing more. */
  close(workflowId: string, status: ChildView['status']): void {
    const t = this.#totals.get(workflowId);
    if (t) t.settled = true;
    const view = this.view(workflowId);
    if (view) view.status = status;
  }

  approvalsOf(workflowId: string): ChildApprovals | undefined {
    return this.#approvals.get(workflowId);
  }
  setApprovals(workflowId: string, a: ChildApprovals): void {
    this.#approvals.set(workflowId, a);
  }
  /** Returns how many approvals the child had listed. */
  dropApprovals(workflowId: string): number {
    const had = this.#approvals.get(workflowId)?.approvals.length ?? 0;
    this.#approvals.delete(workflowId);
    return had;
  }
  /** Approvals waiting in the sub-agents (their own and their sub-agents'), as they last reported them. */
  forwarded(): PendingApproval[] {
    return [...this.#approvals.values()].flatMap((r) => r.approvals);
  }
  /** [child the report came from, its approvals] for every running child that reported some. */
  approvalEntries(): IterableIterator<[string, ChildApprovals]> {
    return this.#approvals.entries();
  }
}

/** The child side: the sequence numbers of its reports to the parent in this run (the parent drops older ones). */
export class ParentReports {
  #progress = 0;
  #approvals = 0;
  nextProgress(): number {
    return ++this.#progress;
  }
  nextApprovals(): number {
    return ++this.#approvals;
  }
}

/** Reads a child's progress status into the state's vocabulary. */
export function childStatus(s: string): ChildView['status'] {
  return (RUN_STATUSES as readonly string[]).includes(s) ? (s as ChildView['status']) : 'running';
}
