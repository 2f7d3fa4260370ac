// `search_files`: lines matching a regular expression, optionally within a glob. Workflow-safe: the spec only;
// handler.ts beside it searches in the tool activity.
import { z } from 'zod';
import { defineTool } from '../spec';

export const searchFilesSpec = defineTool({
  name: 'search_files',
  description:
    'Returns the lines of workspace files that match a JavaScript regular expression, as "path:line: text"; ' +
    'skips binary files, node_modules and .git; `glob` narrows the files searched.',
  brief: 'Finds the lines of workspace files that match a regular expression.',
  schema: () =>
    z.object({
      pattern: z.string().min(1).describe('JavaScript regular expression (without slashes), e.g. "function \\w+".'),
      path: z.string().optional().describe('Directory or file to search, relative to the workspace. Default ".".'),
      glob: z
        .string()
        .optional()
        .describe(
          'Files to search, as a glob: "*.ts", "*.{ts,tsx}" (no slash: the file name, at any depth); "src/*.ts", "**/*.test.ts" ' +
            '(with a slash: the path relative to the workspace or to `path`; ** spans directories). Default: every file.',
        ),
      max_results: z.number().int().min(1).max(1000).optional().describe('Maximum matching lines to return. Default 100.'),
    }),
  concurrency: 'read',
  idempotent: true,
});
