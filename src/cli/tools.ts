// `hermes tools`: every tool a worker started here would offer — the built-ins and the config file's custom
// tools — with its toolset, source, whether it is read-only, and its JSON Schema. Loading the catalog is the
// worker's own start-up step, so a bad config or module fails here the same way.
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { configPath } from '../config/load';
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
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ config: configPath(), tools: rows, toolsets: groups }, null, 2)}\n`);
    return 0;
  }
  const out: string[] = [`Tools a worker started here offers (config: ${configPath()}):`, ''];
  for (const r of rows) {
    out.push(`${r.name}  [toolset ${r.toolset || '-'}, ${r.readOnly ? 'read-only' : 'changes state'}, ${r.source}]`);
    out.push(`  ${r.description}`);
    out.push(`  parameters: ${JSON.stringify(r.parameters)}`);
  }
  for (const [name, members] of Object.entries(groups)) out.push('', `toolset ${name} (config): ${members.join(', ')}`);
  process.stdout.write(`${out.join('\n')}\n`);
  return 0;
}
