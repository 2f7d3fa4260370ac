// Node-side implementations of the file and terminal tools, keyed by tool name (see ../specs for metadata).
import type { ToolHandler } from '../spec';
import { listDirSpec, patchSpec, readFileSpec, searchFilesSpec, terminalSpec, writeFileSpec } from '../specs';
import { webFetchSpec } from '../specs/web_fetch';
import { listDir } from './list_dir';
import { patch } from './patch';
import { readFile } from './read_file';
import { searchFiles } from './search_files';
import { terminal } from './terminal';
import { webFetchHandler } from './web_fetch';
import { writeFile } from './write_file';

export { listDir, patch, readFile, searchFiles, terminal, writeFile };

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each handler has its own argument type
export const FILE_TOOL_HANDLERS: Record<string, ToolHandler<any>> = {
  [readFileSpec.name]: readFile,
  [writeFileSpec.name]: writeFile,
  [patchSpec.name]: patch,
  [listDirSpec.name]: listDir,
  [searchFilesSpec.name]: searchFiles,
  [terminalSpec.name]: terminal,
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each handler has its own argument type
export const WEB_TOOL_HANDLERS: Record<string, ToolHandler<any>> = { [webFetchSpec.name]: webFetchHandler };
