// Which tool calls get a checkpoint of the workspace before they run: the built-in tools that write files, and
// terminal commands not classified read-only (src/tools/terminal/read-only.ts). Catalog tools (modules, HTTP, MCP)
// do not: most change nothing in the workspace, and one that does can say so here once it names its writes.
import { isReadOnlyCommand } from '../tools/terminal/read-only';

export function changesFiles(name: string, args: Record<string, unknown>): boolean {
  switch (name) {
    case 'write_file':
    case 'patch':
      return true;
    case 'terminal':
      return !isReadOnlyCommand(typeof args.command === 'string' ? args.command : '');
    default:
      return false;
  }
}
