// The handlers of the built-in tools the tool activity runs (src/activities/tools.ts), keyed by the name in
// each tool's spec. Activity side: handlers do I/O, so the workflow never imports this (it has registry.ts).
// todo, clarify and delegate_task have no handler: the workflow runs them itself.
import type { BuiltinTool, ToolHandler } from './handler';
import { listDirTool } from './list_dir/handler';
import { memoryTool } from './memory/handler';
import { patchTool } from './patch/handler';
import { readFileTool } from './read_file/handler';
import { taskTools } from './schedules/handler';
import { searchFilesTool } from './search_files/handler';
import { sessionTools } from './sessions/handler';
import { skillTools } from './skills/handler';
import { terminalTool } from './terminal/handler';
import { webFetchTool } from './web_fetch/handler';
import { writeFileTool } from './write_file/handler';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each tool has its own argument type
const BUILTIN_TOOLS: BuiltinTool<any>[] = [
  readFileTool,
  writeFileTool,
  patchTool,
  listDirTool,
  searchFilesTool,
  terminalTool,
  ...taskTools,
  webFetchTool,
  memoryTool,
  ...sessionTools,
  ...skillTools,
];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each handler has its own argument type
export const BUILTIN_HANDLERS: Readonly<Record<string, ToolHandler<any>>> = Object.fromEntries(BUILTIN_TOOLS.map((t) => [t.spec.name, t.handler]));
