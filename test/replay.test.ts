// Determinism and behaviour: every recorded history in test/fixtures/histories replays with today's workflow code,
// and every command it issues carries what the history recorded (activity inputs, timers, child inputs, signals,
// search attributes, the result: test/replay/commands.ts) — Temporal's replay alone compares only the commands'
// types and order. Negative controls change the workflow the way real edits do, in one variant bundle that
// survives refactors of src/workflows (test/fixtures/changed-workflow/) with one control switched on per replay, and
// each must fail the corpus: which
// histories it must break is read from the histories themselves (test/replay/corpus.ts), so re-recording the
// corpus (`npm run record-histories`) needs no change here. `hermes replay` on live conversations: replay-cli.test.ts.
import { bundleWorkflowCode, type InjectedSinks } from '@temporalio/worker';
import type { Sinks } from '@temporalio/workflow';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleOptions, tracingInterceptorsPath } from '../src/startup/bundle';
import { installRuntimeLogger } from '../src/observe/logger';
import { TOOL_SPECS } from '../src/tools/registry';
import { replayChecked, type ReplayCheck } from './replay/commands';
import { knownDifferences, loadCorpus, type CorpusEntry } from './replay/corpus';

installRuntimeLogger('ERROR');
const corpus = loadCorpus();
const known = knownDifferences();
const CAPTURE = path.resolve('test/replay/capture-commands.ts');
const CONTROLS = path.resolve('test/fixtures/changed-workflow');

/** A bundle with the command capture; `entry` replaces the workflows' index, `interceptors` are added. */
const build = (entry?: string, interceptors: string[] = []) =>
  bundleWorkflowCode({ ...bundleOptions(entry), workflowInterceptorModules: [CAPTURE, ...interceptors] });

let current: { code: string };
let traced: { code: string };
let controls: { code: string };
beforeAll(async () => {
  [current, traced, controls] = await Promise.all([
    build(),
    build(undefined, [tracingInterceptorsPath()]),
    build(path.join(CONTROLS, 'controls.ts'), [path.join(CONTROLS, 'reordered-tool-calls.ts')]),
  ]);
});

/** The controls' bundle with one control on (test/fixtures/changed-workflow/control.ts), the others off. */
function withControl(name: 'added-timer' | 'added-default-tool' | 'reordered-tool-calls'): string {
  const off = "'replay-control:off'";
  expect(controls.code.split(off).length - 1, "the controls bundle holds control.ts's switch once, as written").toBe(1);
  return controls.code.replace(off, `'replay-control:${name}'`);
}

interface Outcome {
  entry: CorpusEntry;
  check: ReplayCheck;
  /** Why it does not replay as recorded, known differences aside (undefined: it does). */
  why?: string;
}

async function replay(code: string, sinks?: InjectedSinks<Sinks>): Promise<Outcome[]> {
  const checks = await replayChecked({ workflowBundle: { code }, ...(sinks ? { sinks } : {}) }, corpus);
  expect(checks).toHaveLength(corpus.length);
  return checks.map((check) => {
    const entry = corpus.find((e) => e.history.events?.[0]?.workflowExecutionStartedEventAttributes?.originalExecutionRunId === check.runId)!;
    const accepted = new Set(known[entry.file] ?? []);
    const why = check.error ?? check.differences.find((d) => !accepted.has(d));
    return { entry, check, ...(why ? { why } : {}) };
  });
}

/** Asserts the control breaks at least `expected` (non-empty: else the corpus lacks a scenario it changes). */
function expectBroken(outcomes: Outcome[], expected: CorpusEntry[], scenario: string) {
  expect(expected.length, `the corpus has no history with ${scenario}: record one (test/record-histories.test.ts)`).toBeGreaterThan(0);
  const passed = outcomes.filter((o) => !o.why).map((o) => o.entry.file);
  expect(expected.map((e) => e.file).filter((f) => passed.includes(f))).toEqual([]);
}

describe('replay corpus', () => {
  it('has the main scenarios', () => {
    const files = corpus.map((e) => e.file);
    for (const name of [
      'tool-round-trip',
      'invalid-and-parallel',
      'budget-exhausted',
      'model-retry',
      'model-auth',
      'continue-as-new-run1',
      'interrupt-redirect',
      'clarify-approval',
      'chat',
      'client-tools',
      'token-budget',
      'delegate',
      'delegate-child',
      'child-approvals',
      'child-approvals-child',
      'prompt-order',
      'fallback-chain',
      'memory-chat',
      'memory-store',
      'system-prompt',
      'tool-limits',
      'tool-call-cap',
    ]) {
      expect(files).toContain(`${name}.json`);
    }
  });

  it('replays every recorded history with the current workflow code, each command carrying what was recorded', async () => {
    const outcomes = await replay(current.code);
    const failing = outcomes.filter((o) => o.why).map((o) => `${o.entry.file}: ${o.why}`);
    expect(failing, 'an intended change of behaviour: re-record the corpus with `npm run record-histories`').toEqual([]);
    // known-differences.json lists only what still happens: an entry the code no longer produces is stale.
    for (const o of outcomes) {
      for (const d of known[o.entry.file] ?? []) expect(o.check.differences, `${o.entry.file}: stale known difference`).toContain(d);
    }
  });
});

describe('replay with the OpenTelemetry interceptors (a worker with OTEL_EXPORTER_OTLP_ENDPOINT set)', () => {
  it('replays every recorded history as the plain bundle does, and exports no span while replaying', async () => {
    const exported: unknown[] = [];
    const sinks = { exporter: { export: { fn: (_info: unknown, spans: unknown[]) => void exported.push(...spans) } } };
    const [plain, withTracing] = [await replay(current.code), await replay(traced.code, sinks as InjectedSinks<Sinks>)];
    expect(withTracing.map((o) => `${o.entry.file}: ${o.why ?? 'ok'}`)).toEqual(plain.map((o) => `${o.entry.file}: ${o.why ?? 'ok'}`));
    expect(withTracing.filter((o) => o.why)).toEqual([]);
    expect(exported).toEqual([]);
    // The interceptors are in that bundle and not in the plain one (the check would pass vacuously without them).
    expect(traced.code.includes('OpenTelemetryInboundInterceptor'), 'the traced bundle has the interceptors').toBe(true);
    expect(current.code.includes('OpenTelemetryInboundInterceptor'), 'the plain bundle has none').toBe(false);
  });
});

describe('negative controls: each fails the corpus', () => {
  it('a timer added before the loop: Temporal rejects every history (nondeterminism)', async () => {
    const outcomes = await replay(withControl('added-timer'));
    expect(outcomes.filter((o) => !o.check.error).map((o) => o.entry.file)).toEqual([]);
    for (const o of outcomes) expect(o.check.error).toMatch(/DeterminismViolation/);
  });

  it('a changed prompt text: every fresh conversation that calls the model', async () => {
    // The edit as a source edit would make it: the prompt's opening words, wherever the bundle has them.
    const opening = 'You are Hermes';
    const count = current.code.split(opening).length - 1;
    expect(count, `the prompt no longer starts "${opening}": point this control at its opening words`).toBeGreaterThan(0);
    const outcomes = await replay(current.code.replaceAll(opening, 'You are Hermes, edited,'));
    expectBroken(
      outcomes,
      corpus.filter((e) => e.type === 'conversationWorkflow' && e.fresh && e.offered.length > 0),
      'a conversation calling the model',
    );
  });

  it('a tool added to the defaults: every fresh conversation offered all of them', async () => {
    const all = TOOL_SPECS.map((s) => s.name);
    const outcomes = await replay(withControl('added-default-tool'));
    expectBroken(
      outcomes,
      corpus.filter((e) => e.type === 'conversationWorkflow' && e.fresh && e.defaultTools && all.every((t) => e.offered[0]?.includes(t))),
      'a conversation that names no tools',
    );
  });

  it('the calls of a model reply run in reverse order: every history with such a reply', async () => {
    const outcomes = await replay(withControl('reordered-tool-calls'));
    expectBroken(
      outcomes,
      corpus.filter((e) => e.parallelReply),
      'a model reply of several tool calls',
    );
  });
});
