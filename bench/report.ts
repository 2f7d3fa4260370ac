// The results block of bench/RESULTS.md: written between the markers, the hand-written rest of the file is kept.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Growth } from './growth';
import type { CacheUse } from './harness';
import { loadavg, type Metered } from './meter';
import type { Instrumented, Overhead } from './overhead';
import type { Memory } from './memory';
import type { Throughput } from './throughput';
import { TARGETS } from './targets';

export interface Machine {
  cpu: string;
  nproc: string;
  mem: string;
  node: string;
  temporal: string;
  load0: string;
}

export interface Results {
  command: string;
  tookMs: number;
  mach: Machine;
  bundleBytes: number;
  /** On the dev server as the product starts it (DEV_SERVER_DYNAMIC_CONFIG): the headline numbers. */
  product: { label: string; s1: Overhead; inst: Instrumented; s2: Growth; s3: Throughput; s4: Memory };
  /** On a stock dev server, for reference (skipped with --no-stock). */
  stock?: { s1: Overhead; s3: Throughput };
}

export const kb = (b: number) => `${(b / 1024).toFixed(1)} KiB`;
export const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MiB`;
export const f1 = (x: number) => x.toFixed(1);
export const f2 = (x: number) => x.toFixed(2);
const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const pass = (ok: boolean) => (ok ? '**PASS**' : '**FAIL**');
const n = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

export const cacheLine = (c: CacheUse) =>
  `${pct(c.hitRate)} of model calls without a query (${c.rebuilt} rebuilt, ${c.whole} first calls with their context, ` +
  `${c.queries} queried: ${n(c.queries - c.extraQueries, 'first call')} + ${n(c.extraQueries, 'mismatch', 'mismatches')})`;

export function flat(s2: Growth): boolean {
  return s2.ours.every((x) => x.growth <= 1.3) && s2.naive[s2.naive.length - 1]!.growth > 1.3;
}

export function report(r: Results): string {
  const { s1, inst, s2, s3, s4 } = r.product;
  const st = r.stock;
  const na = '—';
  const L: string[] = [];
  const cores = (cpu: number, m: Metered) => f2(cpu / m.wall);
  const coreSplit = (m: Metered) => `${cores(m.benchCpu, m)} / ${cores(m.serverCpu, m)} / ${cores(m.otherCpu, m)} / ${cores(m.idleCpu, m)}`;
  const perIt = (cpu: number, s: Throughput) => f2(cpu / (s.C * s.N));

  L.push(
    `Run ${new Date().toISOString()} · \`${r.command}\` · took ${f1(r.tookMs / 1000)} s · ` +
      `load average at start ${r.mach.load0}, at end ${loadavg()}`,
  );
  L.push('');
  L.push(
    `Machine: ${r.mach.nproc} CPUs (\`nproc\`) · ${r.mach.cpu} · ${r.mach.mem} RAM · Node ${r.mach.node} · @temporalio/* 1.24.0 · ` +
      `${r.mach.temporal.split('\n')[0]} · in-memory dev server started with TestWorkflowEnvironment.createLocal · ` +
      `workflow bundle ${kb(r.bundleBytes)} (src/workflows + bench/workflows.ts)`,
  );
  L.push('');
  L.push(`Headline numbers: ${r.product.label}.${st ? ' The last column repeats scenarios 1 and 3 on a stock dev server for reference.' : ''}`);
  L.push('');
  L.push(`| target | result |${st ? ' stock dev server (reference) |' : ''}`);
  L.push(`|---|---|${st ? '---|' : ''}`);
  L.push(
    `| loop overhead ≤ ${TARGETS.stepOverFloor}× engine floor per iteration | ${f2(s1.oursIter)} vs ${f2(s1.floorPair)} ms = ${f2(s1.ratio)}× ${pass(s1.ratio <= TARGETS.stepOverFloor)} |` +
      (st ? ` ${f2(st.s1.oursIter)} vs ${f2(st.s1.floorPair)} ms = ${f2(st.s1.ratio)}× |` : ''),
  );
  L.push(
    `| history flat: last decile ≤ 1.3× first, naive grows | ours ${s2.ours.map((x) => `${f2(x.growth)}×`).join(' / ')}; ` +
      `naive ${s2.naive.map((x) => `${f2(x.growth)}×`).join(' / ')} at n = ${s2.ours.map((x) => x.n).join(' / ')} ${pass(flat(s2))} |` +
      (st ? ` ${na} |` : ''),
  );
  L.push(
    `| ${s3.C}×${s3.N} (${s3.delayMs} ms model) within 2× ideal | ${f1(s3.wallMs)} vs ${f1(s3.ideal)} ms = ${f2(s3.ratio)}× ${pass(s3.ratio <= 2)}; ` +
      `engine floor of the same shape ${f2(s3.floorRatio)}×, ours / floor = ${f2(s3.wallMs / s3.floorWallMs)}×; ` +
      `the same loop without Temporal ${f2(s3.directWallMs / s3.ideal)}× |` +
      (st ? ` ${f2(st.s3.ratio)}×; floor ${f2(st.s3.floorRatio)}×, ours / floor ${f2(st.s3.wallMs / st.s3.floorWallMs)}× |` : ''),
  );
  L.push(
    `| worker peak RSS (bench process, ${s3.C} conversations) | ${mb(s3.ours.peak)} (+${mb(s3.ours.peak - s3.rssBefore)} over ${mb(s3.rssBefore)} before) |` +
      (st ? ` (see § 3) |` : ''),
  );
  L.push(
    `| memory per cached conversation ≤ ${TARGETS.idleMemoryOverSdk}× the SDK's idle workflow (${s4.N} idle chats) | ${kb(s4.oursPerConversation)}, the SDK alone ${kb(s4.floorPerWorkflow)}: ` +
      `${f2(s4.oursPerConversation / s4.floorPerWorkflow)}× ${pass(s4.oursPerConversation / s4.floorPerWorkflow <= TARGETS.idleMemoryOverSdk)} |` +
      (st ? ` ${na} |` : ''),
  );
  L.push(
    `| context cache: model calls without a \`context\` query | overhead ${pct(s1.contextCache.hitRate)}, throughput ${pct(s3.contextCache.hitRate)}, ` +
      `history ${pct(s2.contextCache.hitRate)}; ${s1.contextCache.extraQueries + s3.contextCache.extraQueries + s2.contextCache.extraQueries} mismatches |` +
      (st ? ` ${pct(st.s1.contextCache.hitRate)} / ${pct(st.s3.contextCache.hitRate)} |` : ''),
  );
  L.push('');

  // 1 -------------------------------------------------------------------------------------------------------
  L.push(`### 1. Orchestration overhead per loop iteration (${n(s1.runs, 'run')} × ${s1.N} iterations, instant model)`);
  L.push('');
  L.push('One loop iteration = one model activity + one tool activity (+ the workflow tasks between them), so it is compared');
  L.push(`with **two** no-op activities of the floor workflow (which runs ${2 * s1.N + 1} sequential no-op activities, as many as the`);
  L.push(`loop runs for ${s1.N} iterations plus the final answer). "History" = median over the runs of the median interval between`);
  L.push(
    'consecutive model-activity `ActivityTaskScheduled` events (floor: between activity k and k+2); "wall" = client start → result / iterations.' +
      (st ? ` Stock server: ${n(st.s1.runs, 'run')}.` : ''),
  );
  L.push('');
  L.push(`| | history | wall |${st ? ' stock: history | stock: wall |' : ''}`);
  L.push(`|---|---|---|${st ? '---|---|' : ''}`);
  const r4 = (name: string, a: string, b: string, c?: string, d?: string) => L.push(`| ${name} | ${a} | ${b} |${st ? ` ${c} | ${d} |` : ''}`);
  const ms = (x: number | undefined) => (x === undefined ? na : `${f2(x)} ms`);
  r4('our loop, per iteration (`callModel` + `read_file` of 1 line)', ms(s1.oursIter), ms(s1.oursWall), ms(st?.s1.oursIter), ms(st?.s1.oursWall));
  r4('engine floor, per 2 no-op activities', ms(s1.floorPair), ms(s1.floorWall), ms(st?.s1.floorPair), ms(st?.s1.floorWall));
  r4('engine floor, per 1 no-op activity', ms(s1.floorOne), ms(s1.floorWall / 2), ms(st?.s1.floorOne), ms(st && st.s1.floorWall / 2));
  r4(
    '**ratio** ours / floor per iteration',
    `**${f2(s1.ratio)}×**`,
    `${f2(s1.ratioWall)}×`,
    st && `${f2(st.s1.ratio)}×`,
    st && `${f2(st.s1.ratioWall)}×`,
  );
  L.push('');
  L.push(`Context cache: ${cacheLine(s1.contextCache)}.`);
  L.push('');
  L.push(`CPU used by other processes on the machine during this scenario: ${f2(s1.cpu.otherCpu / s1.cpu.wall)} cores.`);
  L.push('');
  L.push(
    `Per-run medians (ms per iteration): ours ${s1.perRun.ours.map((x) => f2(x.hist)).join(', ')}; floor ${s1.perRun.floor.map((x) => f2(x.hist)).join(', ')}.`,
  );
  L.push('');
  L.push('Where the time goes (medians from history event timestamps; activities are dispatched eagerly, so scheduled → started ≈ 0):');
  L.push('');
  L.push(`| step | ms |${st ? ' stock: ms |' : ''}`);
  L.push(`|---|---|${st ? '---|' : ''}`);
  const row = (name: string, a: number, b?: number) => L.push(`| ${name} | ${f2(a)} |${st ? ` ${b === undefined ? na : f2(b)} |` : ''}`);
  row('`callModel` started → completed (ours)', s1.model.exec, st?.s1.model.exec);
  row('`runTool` started → completed (ours)', s1.tool.exec, st?.s1.tool.exec);
  row('`benchNoop` started → completed (floor)', s1.noop.exec, st?.s1.noop.exec);
  row('workflow task scheduled → started (ours)', s1.oursWft.schedToStart, st?.s1.oursWft.schedToStart);
  row('workflow task scheduled → started (floor)', s1.floorWft.schedToStart, st?.s1.floorWft.schedToStart);
  row('workflow task started → completed (ours)', s1.oursWft.exec, st?.s1.oursWft.exec);
  row('workflow task started → completed (floor)', s1.floorWft.exec, st?.s1.floorWft.exec);
  row('activity completed → next activity scheduled, after `callModel` (ours)', s1.model.gapAfter, st?.s1.model.gapAfter);
  row('activity completed → next activity scheduled, after `runTool` (ours)', s1.tool.gapAfter, st?.s1.tool.gapAfter);
  row('activity completed → next activity scheduled (floor)', s1.noop.gapAfter, st?.s1.noop.gapAfter);
  L.push('');
  L.push(
    `Inside the activities (${n(inst.conversations, 'conversation')} × ${inst.N} iterations on a worker configured like \`createHermesWorker\` whose ` +
      'activities wrap the real `createActivities`; `bench/instrumented.ts`):',
  );
  L.push('');
  L.push('| | ms |');
  L.push('|---|---|');
  const one = (name: string, a: number) => L.push(`| ${name} | ${Number.isFinite(a) ? f2(a) : na} |`);
  one(`\`ContextCache.get\`, context rebuilt from this worker's results (${n(inst.calls - inst.queries, 'call')})`, inst.rebuiltGet);
  one(`\`ContextCache.get\` with a \`context\` query (${n(inst.queries, 'call')}: each conversation's first model call)`, inst.queryGet);
  one('rest of `callModel` (tool schemas, HTTP to the mock, parsing)', inst.modelRest);
  one('`callModel` handler total', inst.callModel);
  one('`callModel` started → completed as the server sees it', inst.serverModelExec);
  one('`runTool` handler total', inst.runTool);
  one('`runTool` started → completed as the server sees it', inst.serverToolExec);
  L.push('');

  // 2 -------------------------------------------------------------------------------------------------------
  L.push(`### 2. History bytes per iteration (tool output ≈ 2 KB per call: \`read_file\` pages of 41 lines)`);
  L.push('');
  L.push('Bytes of iteration k = the protobuf-encoded events from the k-th model `ActivityTaskScheduled` up to the next one;');
  L.push('total = `History.encode(fetchHistory())`. The naive loop (`naiveLoopWorkflow`) passes the whole message list into every');
  L.push('model activity and gets the tool result back from the same real `runTool` activity; its model activity calls the same');
  L.push('mock with the real openai client.');
  L.push('');
  L.push('| loop | iterations | total history | events | bytes/iteration, first decile | last decile | last / first | run time |');
  L.push('|---|---|---|---|---|---|---|---|');
  for (const [name, xs] of [
    ['ours', s2.ours],
    ['naive', s2.naive],
  ] as const) {
    for (const x of xs) {
      L.push(
        `| ${name} | ${x.n} | ${kb(x.totalBytes)} | ${x.events} | ${Math.round(x.firstDecile)} B | ${Math.round(x.lastDecile)} B | ${f2(x.growth)}× | ${f1(x.wallMs / 1000)} s |`,
      );
    }
  }
  const big = s2.naive[s2.naive.length - 1]!;
  const oursBig = s2.ours[s2.ours.length - 1]!;
  L.push('');
  L.push(
    `At ${big.n} iterations the naive history is ${f1(big.totalBytes / oursBig.totalBytes)}× ours. Temporal's defaults: ` +
      'continue-as-new suggested at 4 MiB, warning at 10 MiB, workflow terminated at 50 MiB (raised for this run so the naive loop could finish).',
  );
  L.push(`Context cache (our loop, ~2 KB tool outputs): ${cacheLine(s2.contextCache)}.`);
  L.push('');

  // 3 -------------------------------------------------------------------------------------------------------
  L.push(`### 3. Throughput: ${s3.C} concurrent conversations × ${s3.N} iterations, model latency ${s3.delayMs} ms, one worker`);
  L.push('');
  L.push(
    `Ideal = ${s3.N} × (${s3.delayMs} ms model + tool time) + ${s3.delayMs} ms final answer, all conversations in parallel ` +
      '(tool time = median `runTool` started → completed from scenario 1). The engine floor runs the same shape with bench activities ' +
      `(a ${s3.delayMs} ms sleep activity + a no-op activity, × ${s3.N}, + a ${s3.delayMs} ms sleep): what Temporal itself costs for this ` +
      'many workflow tasks and activities on this machine, with no agent code at all.',
  );
  L.push('');
  L.push(`| | result |${st ? ' stock dev server |' : ''}`);
  L.push(`|---|---|${st ? '---|' : ''}`);
  const r2 = (name: string, a: string, b?: string) => L.push(`| ${name} | ${a} |${st ? ` ${b ?? na} |` : ''}`);
  r2('ideal', `${f1(s3.ideal)} ms`, st && `${f1(st.s3.ideal)} ms`);
  r2('our loop: wall time (ratio to ideal)', `**${f1(s3.wallMs)} ms (${f2(s3.ratio)}×)**`, st && `${f1(st.s3.wallMs)} ms (${f2(st.s3.ratio)}×)`);
  r2(
    'engine floor: wall time (ratio to ideal)',
    `${f1(s3.floorWallMs)} ms (${f2(s3.floorRatio)}×)`,
    st && `${f1(st.s3.floorWallMs)} ms (${f2(st.s3.floorRatio)}×)`,
  );
  r2('our loop / engine floor', `${f2(s3.wallMs / s3.floorWallMs)}×`, st && `${f2(st.s3.wallMs / st.s3.floorWallMs)}×`);
  r2(
    'engine floor with local activities (no server round trip per step): wall time (ratio to ideal)',
    `${f1(s3.localFloorWallMs)} ms (${f2(s3.localFloorWallMs / s3.ideal)}×)`,
    st && `${f1(st.s3.localFloorWallMs)} ms (${f2(st.s3.localFloorWallMs / st.s3.ideal)}×)`,
  );
  r2(
    'the same loop without Temporal (`bench/direct.ts`: openai client + mock + read_file in one process): wall time (ratio to ideal)',
    `${f1(s3.directWallMs)} ms (${f2(s3.directWallMs / s3.ideal)}×)`,
    st && `${f1(st.s3.directWallMs)} ms (${f2(st.s3.directWallMs / st.s3.ideal)}×)`,
  );
  r2(
    'the same loop without Temporal: CPU cores used — bench process / dev server / other / idle',
    coreSplit(s3.direct),
    st && coreSplit(st.s3.direct),
  );
  r2(
    'our loop: per conversation, median / slowest',
    `${f1(s3.convMedian)} / ${f1(s3.convMax)} ms`,
    st && `${f1(st.s3.convMedian)} / ${f1(st.s3.convMax)} ms`,
  );
  r2('our loop: CPU cores used — bench process / dev server / other processes / idle', coreSplit(s3.ours), st && coreSplit(st.s3.ours));
  r2('engine floor: CPU cores used — bench process / dev server / other / idle', coreSplit(s3.floor), st && coreSplit(st.s3.floor));
  r2(
    'CPU ms per iteration, bench process (ours / floor)',
    `${perIt(s3.ours.benchCpu, s3)} / ${perIt(s3.floor.benchCpu, s3)}`,
    st && `${perIt(st.s3.ours.benchCpu, st.s3)} / ${perIt(st.s3.floor.benchCpu, st.s3)}`,
  );
  r2(
    'CPU ms per iteration, dev server (ours / floor)',
    `${perIt(s3.ours.serverCpu, s3)} / ${perIt(s3.floor.serverCpu, s3)}`,
    st && `${perIt(st.s3.ours.serverCpu, st.s3)} / ${perIt(st.s3.floor.serverCpu, st.s3)}`,
  );
  r2(
    `peak RSS of the bench process (RSS before the ${s3.C} conversations; growth)${st ? ' — the stock server runs second, in the same process' : ''}`,
    `**${mb(s3.ours.peak)}** (${mb(s3.rssBefore)}; +${mb(s3.ours.peak - s3.rssBefore)})`,
    st && `${mb(st.s3.ours.peak)} (${mb(st.s3.rssBefore)}; +${mb(st.s3.ours.peak - st.s3.rssBefore)})`,
  );
  r2('peak RSS of the dev server', mb(s3.ours.serverPeak), st && mb(st.s3.ours.serverPeak));
  r2('context cache', cacheLine(s3.contextCache), st && pct(st.s3.contextCache.hitRate));
  L.push('');
  L.push(
    'The worker runs in the bench process, together with the reference worker, the client and the mock model server; peak RSS ' +
      'is `process.memoryUsage().rss` sampled every 100 ms while the conversations run (the mock drops request bodies). CPU from ' +
      '`process.cpuUsage()` and `/proc`; an iteration = model call + tool call.',
  );
  L.push('');

  // 4 -------------------------------------------------------------------------------------------------------
  L.push(`### 4. Memory per cached conversation`);
  L.push('');
  L.push(
    `${s4.N} chat conversations started and left idle, each in the worker's cache after its first workflow task, ` +
      `on the product worker in a fresh process (\`bench/memory-child.ts ours\`): growth of that process's RSS / ${s4.N} = ` +
      `**${kb(s4.oursPerConversation)}** per conversation. The same number of idle workflows from a bundle holding nothing ` +
      `but one waiting workflow (\`bench/idle-entry.ts\`) on a bare worker, also in a fresh process: ${kb(s4.floorPerWorkflow)} ` +
      'each — what the SDK keeps per cached workflow (its reusable V8 context gives every workflow its own instance of every ' +
      'module in the bundle). RSS after a GC and a 1.5 s settle.',
  );
  return L.join('\n');
}

/** Rewrites the block between `<!-- bench:<name>:start -->` and `:end -->` (appended when the file has none). */
export function writeResults(body: string, file = path.join(__dirname, 'RESULTS.md'), name = 'results') {
  const START = `<!-- bench:${name}:start -->`;
  const END = `<!-- bench:${name}:end -->`;
  const block = `${START}\n${body}\n${END}`;
  if (existsSync(file)) {
    const text = readFileSync(file, 'utf8');
    const a = text.indexOf(START);
    const b = text.indexOf(END);
    writeFileSync(file, a >= 0 && b > a ? text.slice(0, a) + block + text.slice(b + END.length) : `${text.trimEnd()}\n\n${block}\n`);
    return;
  }
  writeFileSync(file, `# Benchmark results\n\n${block}\n`);
}
