// The human gate: the clarify question and the approvals this conversation waits for, the decisions people
// sent, and the command patterns approved for the rest of the conversation ("remember").
import { z } from 'zod';
import type { ApproveArgs, PendingApproval, PendingQuestion } from '../../shared/contract';

export function humanCarry() {
  return z.object({ approvedPatterns: z.array(z.string()) });
}
export type HumanCarry = z.infer<ReturnType<typeof humanCarry>>;

type Decision = { decision: 'approve' | 'deny'; remember: boolean };

export class HumanGate {
  #question: PendingQuestion | null = null;
  #answer: string | undefined;
  #approvals: PendingApproval[] = [];
  readonly #decisions = new Map<string, Decision>();
  readonly #approvedPatterns: string[];

  constructor(carried: HumanCarry | undefined) {
    this.#approvedPatterns = carried?.approvedPatterns ?? [];
  }

  carry(): HumanCarry {
    return { approvedPatterns: this.#approvedPatterns };
  }

  get question(): PendingQuestion | null {
    return this.#question;
  }
  get approvals(): readonly PendingApproval[] {
    return this.#approvals;
  }

  ask(question: PendingQuestion): void {
    this.#question = question;
    this.#answer = undefined;
  }
  answered(): boolean {
    return this.#answer !== undefined;
  }
  takeAnswer(): string {
    return this.#answer!;
  }
  closeQuestion(): void {
    this.#question = null;
  }
  /** The `answer` update (its validator checks that a question is pending). */
  answer(text: string): { callId: string } {
    this.#answer = text;
    return { callId: this.#question!.callId };
  }

  isRemembered(pattern: string): boolean {
    return this.#approvedPatterns.includes(pattern);
  }
  awaitApproval(a: PendingApproval): void {
    this.#approvals.push(a);
  }
  decision(callId: string): Decision | undefined {
    return this.#decisions.get(callId);
  }
  /** A decision for one of this conversation's own pending calls (approvalGate waits for it). */
  decide(args: ApproveArgs): void {
    this.#decisions.set(args.callId, { decision: args.decision, remember: Boolean(args.remember) });
  }
  /** The call is settled (decided, timed out, cut short); an approval with "remember" covers its pattern from now on. */
  settle(callId: string, remember?: string): void {
    this.#approvals = this.#approvals.filter((a) => a.callId !== callId);
    this.#decisions.delete(callId);
    if (remember !== undefined && !this.#approvedPatterns.includes(remember)) this.#approvedPatterns.push(remember);
  }
}
