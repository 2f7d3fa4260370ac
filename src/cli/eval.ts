// `hermes eval SUITE`: runs a suite's tasks as conversations and reports how well they did (src/eval/).
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Hermes } from '../client';
import { clusterConfigured } from '../startup/connection';
import { exportConversations } from '../export';
import { buildReport, formatReport } from '../eval/report';
import { runSuite, type RunRecord } from '../eval/run';
import { loadSuite } from '../eval/suite';
import { UsageError, withHermes } from './common';

export async function evalCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      concurrency: { type: 'string' },
      repeat: { type: 'string' },
      faults: { type: 'string' },
      json: { type: 'boolean', default: false },
      export: { type: 'string' },
      'export-format': { type: 'string' },
      model: { type: 'string' },
      workdir: { type: 'string' },
      name: { type: 'string' },
      quiet: { type: 'boolean', default: false },
    },
  });
  if (positionals.length !== 1) throw new UsageError('hermes eval needs one suite file: hermes eval examples/eval/suite.json');
  const concurrency = wholeNumber(values.concurrency, '--concurrency', 4);
  const repeat = wholeNumber(values.repeat, '--repeat', 1);
  const faultRate = values.faults === undefined ? undefined : Number(values.faults);
  if (faultRate !== undefined && !(Number.isFinite(faultRate) && faultRate >= 0 && faultRate <= 1)) {
    throw new UsageError(`--faults must be a rate between 0 and 1, got "${values.faults}"`);
  }
  if (values.name !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(values.name)) {
    throw new UsageError('--name: letters, digits and . _ - (up to 64, starting with a letter or digit)');
  }
  const exportFormat = values['export-format'] ?? 'openai';
  if (exportFormat !== 'openai' && exportFormat !== 'sharegpt') throw new UsageError('--export-format must be openai or sharegpt');
  let suite;
  try {
    suite = loadSuite(positionals[0]!);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const workdir = path.resolve(values.workdir ?? path.join(os.tmpdir(), 'hermes-eval'));
  mkdirSync(workdir, { recursive: true });
  if (faultRate !== undefined) {
    // The in-process worker of embedded mode reads it when it starts (src/activities/faults.ts); a cluster's
    // workers inject only what their own HERMES_FAULTS says.
    if (clusterConfigured()) {
      process.stderr.write(
        `--faults: with a cluster, faults are injected by workers started with HERMES_FAULTS=${faultRate}; this command counts them\n`,
      );
    } else process.env.HERMES_FAULTS = String(faultRate);
  }
  const say = values.quiet ? undefined : (line: string) => void process.stderr.write(`${line}\n`);
  say?.(`eval ${suite.name}: ${suite.tasks.length} task(s) × ${repeat}, ${concurrency} at a time, workspaces under ${workdir}`);
  // The run folder is a workspace root of the in-process worker (withHermes); a cluster's workers need it in theirs.
  return withHermes(
    async (hermes) => {
      const runs = await runSuite(hermes, suite, {
        concurrency,
        repeat,
        workdir,
        ...(values.model ? { model: values.model } : {}),
        ...(values.name ? { name: values.name } : {}),
        onRun: (r, done, total) => say?.(progressLine(r, done, total)),
      });
      const report = buildReport(runs, {
        suite: suite.name,
        ...(values.model ? { model: values.model } : {}),
        repeat,
        concurrency,
        ...(faultRate !== undefined ? { faultRate } : {}),
      });
      if (values.export) await writeExport(hermes, runs, values.export, exportFormat, say);
      process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
      return report.summary.passes === report.summary.runs ? 0 : 1;
    },
    { workspace: workdir },
  );
}

function wholeNumber(raw: string | undefined, flag: string, dflt: number): number {
  if (raw === undefined) return dflt;
  const n = Number(raw);
  if (!raw.trim() || !Number.isInteger(n) || n < 1 || n > 1_000) throw new UsageError(`${flag} must be a whole number from 1 to 1000, got "${raw}"`);
  return n;
}

function progressLine(r: RunRecord, done: number, total: number): string {
  const verdict = r.pass ? 'pass' : `FAIL ${r.reason ?? r.status}`;
  const faults = r.faults.total ? ` · ${r.faults.total} injected fault(s)` : '';
  return `[${done}/${total}] ${r.task} #${r.repeat} ${verdict.split('\n')[0]!.slice(0, 160)} (${(r.wallMs / 1000).toFixed(1)} s${faults})${r.workflowId ? ` ${r.workflowId}` : ''}`;
}

/**
 * --export: one line per run, the conversation's trajectory as `hermes export` writes it (messages, tools, usage,
 * timings; `format` openai or sharegpt) with the eval's verdict beside it under `eval`. A run without a conversation
 * (its setup failed) or one the export skips has the `eval` part alone.
 */
async function writeExport(
  hermes: Hermes,
  runs: RunRecord[],
  file: string,
  format: 'openai' | 'sharegpt',
  say?: (line: string) => void,
): Promise<void> {
  const lines: string[] = [];
  for (const r of runs) {
    let trajectory: object = { id: r.workflowId ?? null };
    if (r.workflowId) {
      try {
        for await (const rec of exportConversations(hermes, { ids: [r.workflowId], format, onSkip: (id, why) => say?.(`--export: ${id}: ${why}`) }))
          trajectory = rec;
      } catch (e) {
        say?.(`--export: ${r.workflowId}: ${(e as Error).message}`);
      }
    }
    lines.push(`${JSON.stringify({ ...trajectory, eval: evalFields(r) })}\n`);
  }
  writeFileSync(file, lines.join(''));
}

function evalFields(r: RunRecord) {
  return {
    task: r.task,
    repeat: r.repeat,
    status: r.status,
    pass: r.pass,
    ...(r.reason ? { reason: r.reason } : {}),
    ...(r.error ? { error: r.error } : {}),
    answer: r.answer,
    usage: r.usage,
    iterations: r.iterations,
    modelCalls: r.modelCalls,
    toolCalls: r.toolCalls,
    wallMs: r.wallMs,
    faults: r.faults,
    checks: r.checks,
  };
}
