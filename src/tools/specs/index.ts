// Workflow-safe list of the file and terminal tool specs; the lead's registry combines it with other tools.
import type { ToolSpec } from '../spec';
import { listDirSpec } from './list_dir';
import { patchSpec } from './patch';
import { readFileSpec } from './read_file';
import { searchFilesSpec } from './search_files';
import { terminalSpec } from './terminal';
import { writeFileSpec } from './write_file';

export { listDirSpec, patchSpec, readFileSpec, searchFilesSpec, terminalSpec, writeFileSpec };
export { classifyCommand, TERMINAL_RULES } from './terminal-safety';
export type { CommandVerdict, TerminalRule } from './terminal-safety';

export const FILE_TOOL_SPECS: ToolSpec[] = [readFileSpec, writeFileSpec, patchSpec, listDirSpec, searchFilesSpec, terminalSpec];
