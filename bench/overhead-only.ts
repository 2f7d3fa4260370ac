// `npx tsx bench/overhead-only.ts [runs] [iterations] [key=value …]`: scenario 1 alone (orchestration overhead per
// iteration), for checking a change to the loop without the whole benchmark; dynamic config values given replace
// the product's. Prints; writes nothing.
import { bundleWorkflowCode } from '@temporalio/worker';
import { bundleOptions } from '../src/startup/bundle';
import path from 'node:path';
import { installRuntimeLogger } from '../src/observe/logger';
import { temporalExecutable } from '../src/dev-server/temporal-cli';
import { PRODUCT_SERVER, withServer } from './harness';
import { scenarioOverhead } from './overhead';
import { f2 } from './report';
import { TARGETS, verdict } from './targets';

installRuntimeLogger('ERROR');

async function main() {
  const runs = Number(process.argv[2] ?? 5);
  const iterations = Number(process.argv[3] ?? 50);
  const exe = await temporalExecutable('cli', { install: true });
  const bundle = await bundleWorkflowCode(bundleOptions(path.join(__dirname, 'workflows-entry.ts')));
  const extra = process.argv.slice(4);
  const server = extra.length
    ? { ...PRODUCT_SERVER, label: extra.join(' '), args: extra.flatMap((a) => ['--dynamic-config-value', a]) }
    : PRODUCT_SERVER;
  await withServer(server, exe, bundle, async (h) => {
    const s = await scenarioOverhead(h, runs, iterations);
    const per = s.perRun.ours.map((o, i) => `${f2(o.hist)}/${f2(s.perRun.floor[i]!.hist)}=${f2(o.hist / s.perRun.floor[i]!.hist)}`).join(' ');
    console.log(
      `ours ${f2(s.oursIter)} ms/iteration, floor ${f2(s.floorPair)} ms → ${verdict(s.ratio, TARGETS.stepOverFloor)} (per run: ${per}); ` +
        `model ${f2(s.model.exec)} ms, tool ${f2(s.tool.exec)} ms, noop ${f2(s.noop.exec)} ms; ` +
        `workflow task ${f2(s.oursWft.exec)} vs ${f2(s.floorWft.exec)} ms`,
    );
  });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
