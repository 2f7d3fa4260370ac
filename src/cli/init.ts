// `hermes init`: a commented starter config (hermes.config.mjs: JSON has no comments) and one example tool
// module in ./tools, written into the current directory. Existing files are left alone.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CONFIG_NAMES } from '../config/load';

export const STARTER_CONFIG = `// Hermes configuration. Loaded by \`hermes worker\`, \`hermes run\`, \`hermes tools\`… from the current directory
// (or the file HERMES_CONFIG names). Checked at start: a wrong field stops the start with its path.
// Reference: docs/reference/configuration.md of hermes-temporal.
export default {
  // Named model profiles (any OpenAI-compatible endpoint). The key stays in the environment variable named here.
  // Without profiles, "default" comes from OPENAI_BASE_URL, OPENAI_API_KEY and HERMES_MODEL.
  // defaultProfile: 'local',
  // profiles: {
  //   local: { baseURL: 'http://127.0.0.1:11434/v1', model: 'qwen2.5-coder:7b', apiKeyEnv: 'OLLAMA_API_KEY', contextWindow: 32768 },
  // },

  // Defaults for the conversations this directory starts (per-run options win).
  limits: {
    maxIterations: 90,
    // maxCostUsd: 1,
  },

  // Your own tools: modules (files or directories of *.mjs / *.js) that export defineTool({ ... }).
  tools: {
    modules: ['./tools'],
  },

  // Named groups of tools a conversation can ask for with --tools, like the built-in "files" or "web".
  // toolsets: { review: ['files', 'word_count'] },

  // Defaults for scheduled tasks.
  // schedules: { timezone: 'Europe/Paris' },

  // web_fetch may reach these non-public hosts; terminal commands get these extra variables.
  // web: { allowHosts: ['intranet.example.com'] },
  // passEnv: ['MY_TOOL_*'],
};
`;

export const EXAMPLE_TOOL = `// An example tool. A function default export gets defineTool and zod from Hermes, so this file needs nothing
// installed. The handler gets the validated arguments and a context: workspace, resolvePath, signal, heartbeat, log.
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';

export default ({ defineTool, z }) =>
  defineTool({
    name: 'word_count',
    description: 'Counts the lines, words and characters of a text file in the workspace; returns them as JSON.',
    parameters: z.object({
      path: z.string().describe('File path, relative to the workspace'),
    }),
    readOnly: true,
    async handler({ path }, ctx) {
      // The real path (symlinks followed); a path outside the workspace throws, and a thrown error is the result
      // the model reads.
      const file = await ctx.resolvePath(path);
      const rel = relative(ctx.workspace, file);
      const text = await readFile(file, { encoding: 'utf8', signal: ctx.signal });
      ctx.log('counted', { path: rel });
      return { path: rel, lines: text.split('\\n').length - (text.endsWith('\\n') ? 1 : 0), words: text.split(/\\s+/).filter(Boolean).length, characters: text.length };
    },
  });
`;

export async function init(args: string[]): Promise<number> {
  parseArgs({ args, options: {} });
  const dir = process.cwd();
  const existing = CONFIG_NAMES.map((n) => path.join(dir, n)).find((f) => existsSync(f));
  const written: string[] = [];
  const skipped: string[] = [];
  const write = (file: string, text: string) => {
    if (existsSync(file)) return void skipped.push(file);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    written.push(file);
  };
  if (existing) skipped.push(existing);
  else write(path.join(dir, 'hermes.config.mjs'), STARTER_CONFIG);
  write(path.join(dir, 'tools', 'word_count.mjs'), EXAMPLE_TOOL);
  for (const f of written) process.stdout.write(`wrote ${path.relative(dir, f)}\n`);
  for (const f of skipped) process.stdout.write(`kept ${path.relative(dir, f)} (exists)\n`);
  if (written.length) process.stdout.write('Next: `hermes tools` lists what a worker here offers; `hermes run "…"` uses them.\n');
  return 0;
}
