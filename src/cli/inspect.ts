// `hermes inspect` (every step of a conversation from its history) and `hermes replay` (recorded histories
// against this version's workflow code).
import { parseArgs } from 'node:util';
import { Hermes } from '../client';
import { contextAsker } from '../inspect/context-asker';
import { fetchRuns, modelViewAt, stepRows } from '../inspect/step-context';
import { formatModelView, formatRows } from '../inspect/format';
import { installRuntimeLogger } from '../observe/logger';
import { historiesMatching, historiesOf, replayAll } from '../inspect/replay';
import { UsageError, withHermes } from './common';

export async function inspect(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { step: { type: 'string' }, json: { type: 'boolean' } },
  });
  const id = positionals[0];
  if (!id) throw new UsageError('hermes inspect needs a workflow id');
  const step = values.step !== undefined ? Number(values.step) : undefined;
  if (step !== undefined && !(Number.isInteger(step) && step > 0)) throw new UsageError('--step must be a positive whole number');
  return withHermes(async (hermes) => {
    if (step !== undefined) {
      const view = await modelViewAt(hermes.client, id, step, await contextAsker(hermes, id, (line) => process.stderr.write(`${line}\n`)));
      if (values.json) process.stdout.write(`${JSON.stringify(view, null, 2)}\n`);
      else process.stdout.write(formatModelView(view));
      return 0;
    }
    const rows = stepRows(
      await fetchRuns(hermes.client, id, (runId) =>
        process.stderr.write(
          `note: run ${runId} and the runs before it are past the namespace's retention; steps are numbered from the oldest run left\n`,
        ),
      ),
    );
    if (values.json)
      process.stdout.write(
        `${JSON.stringify(
          rows.map(({ input: _input, output: _output, ...r }) => r),
          null,
          2,
        )}\n`,
      );
    else process.stdout.write(formatRows(rows));
    return 0;
  });
}

export async function replay(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { query: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } },
  });
  if (!positionals.length && values.query === undefined) {
    throw new UsageError('hermes replay needs workflow ids, or --query "<visibility filter>" ("" for all conversations)');
  }
  const limit = values.limit !== undefined ? Number(values.limit) : 100;
  if (!(Number.isInteger(limit) && limit > 0)) throw new UsageError('--limit must be a positive whole number');
  installRuntimeLogger('ERROR');
  // Replay needs no worker, so no embedded one is started (withHermes would run one).
  const hermes = await Hermes.connect();
  try {
    const histories = positionals.length ? historiesOf(hermes.client, positionals) : historiesMatching(hermes.client, values.query ?? '', limit);
    const results = await replayAll(histories);
    const failed = results.filter((r) => r.error);
    if (values.json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    else {
      for (const r of results) process.stdout.write(`${r.error ? 'FAIL' : 'ok  '} ${r.workflowId} ${r.runId}${r.error ? `\n     ${r.error}` : ''}\n`);
      process.stdout.write(`${results.length - failed.length} of ${results.length} run(s) replay with this version's workflow code\n`);
    }
    return failed.length ? 1 : 0;
  } finally {
    await hermes.close();
  }
}
