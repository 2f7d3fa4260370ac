// `hermes tools`: every tool a worker started here would offer — the built-ins and the config file's custom
// modules, HTTP tools and MCP servers' tools — with its toolset, source, whether it is read-only, and its JSON
// Schema; for HTTP tools also the circuit states the workers running on this host publish. Loading the catalog
// is the worker's own start-up step (MCP servers are started, listed and stopped), so a bad config, module or
// server fails here the same way.
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { configPath } from '../config/load';
import { hermesHome } from '../shared/paths';
import { readPublishedCircuitStates, type PublishedCircuits } from '../tools/http';
import { TOOL_SPECS, TOOLSETS } from '../tools/registry';
import { loadCatalog } from '../worker';

interface Row {
  name: string;
  toolset: string;
  source: string;
  readOnly: boolean;
  description: string;
  parameters: Record<string, unknown>;
}

export async function tools(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean' } } });
  const catalog = await loadCatalog();
  try {
    return print(catalog, Boolean(values.json));
  } finally {
    await catalog.close();
  }
}

function print(catalog: Awaited<ReturnType<typeof loadCatalog>>, json: boolean): number {
  const rows: Row[] = [
    ...TOOL_SPECS.map((s) => {
      const { $schema: _drop, ...parameters } = z.toJSONSchema(s.schema, { io: 'input' }) as Record<string, unknown>;
      const toolset = Object.entries(TOOLSETS).find(([, names]) => names.includes(s.name))?.[0] ?? '';
      return {
        name: s.name,
        toolset,
        source: s.internal ? 'builtin (in the workflow)' : 'builtin',
        readOnly: s.concurrency === 'read',
        description: s.description,
        parameters,
      };
    }),
    ...catalog.tools().map((t) => ({
      name: t.name,
      toolset: t.toolset,
      source: t.source,
      readOnly: t.readOnly,
      description: t.description,
      parameters: t.parameters,
    })),
  ];
  const groups = catalog.toolsetNames();
  const http = new Set(catalog.tools().flatMap((t) => (t.source === 'http' ? [t.name] : [])));
  const circuits = http.size ? readPublishedCircuitStates(hermesHome()) : [];
  if (json) {
    process.stdout.write(`${JSON.stringify({ config: configPath(), tools: rows, toolsets: groups, httpCircuits: circuits }, null, 2)}\n`);
    return 0;
  }
  const out: string[] = [`Tools a worker started here offers (config: ${configPath()}):`, ''];
  for (const r of rows) {
    out.push(`${r.name}  [toolset ${r.toolset || '-'}, ${r.readOnly ? 'read-only' : 'changes state'}, ${r.source}]`);
    out.push(`  ${r.description}`);
    out.push(`  parameters: ${JSON.stringify(r.parameters)}`);
  }
  for (const [name, members] of Object.entries(groups)) out.push('', `toolset ${name} (config): ${members.join(', ')}`);
  if (http.size) out.push('', ...circuitLines(circuits, http));
  process.stdout.write(`${out.join('\n')}\n`);
  return 0;
}

/** Each running worker's circuit per HTTP tool; a tool no call has reached yet is closed. */
function circuitLines(published: PublishedCircuits[], http: Set<string>): string[] {
  if (!published.length) return ['HTTP tool circuits: no worker running on this host publishes its states'];
  const out = ['HTTP tool circuits (workers running on this host):'];
  for (const p of published) {
    out.push(`  worker pid ${p.pid} (updated ${p.updatedAt}):`);
    const states = p.states.filter((s) => http.has(s.tool));
    if (!states.length) out.push('    every circuit closed (no failures yet)');
    for (const s of states) {
      const until = s.openUntil ? ` until ${s.openUntil}` : '';
      const last = s.lastError ? `, last error: ${s.lastError.split('\n')[0]!.slice(0, 120)}` : '';
      out.push(`    ${s.tool}: ${s.state}${until}, ${s.failures}/${s.threshold} failures${last}`);
    }
  }
  return out;
}
