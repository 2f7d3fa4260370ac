// The speed and memory targets the benchmarks are held to (issue 34), in one place, and how a result is told
// against one: every command that measures one prints its ratio with "met" or "above target".
export const TARGETS = {
  /** Loop iteration (model + tool activity and their workflow tasks) against two no-op activities of the floor. */
  stepOverFloor: 1.2,
  /** Memory per cached idle conversation against the SDK's bare idle workflow, at 300 conversations. */
  idleMemoryOverSdk: 1.15,
} as const;

export function verdict(ratio: number, target: number): string {
  return `${ratio.toFixed(2)}× (target ≤ ${target.toFixed(2)}×: ${ratio <= target ? 'met' : 'above target'})`;
}
