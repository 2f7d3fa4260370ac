// `terminal`: runs a bash command line in the workspace. Workflow-safe: the spec and its approval rule (every part of
// the line classified by command-safety.ts); handler.ts beside it runs the command in the tool activity.
import { z } from 'zod';
import { defineTool } from '../spec';
import { classifyCommand } from './command-safety';

export const TERMINAL_MAX_TIMEOUT_SEC = 600;

export const terminalSpec = defineTool({
  name: 'terminal',
  description:
    'Runs a bash command in the workspace and returns its combined stdout/stderr followed by "exit code: N" ' +
    '(a non-zero exit is reported, not an error); a command that exceeds its timeout is killed and the output ' +
    'so far is returned.',
  brief: 'Runs a bash command in the workspace and returns what it printed.',
  // The 1.5B model filled in every optional parameter: a 600 s timeout, and as `cwd` the workspace path misspelt.
  briefParams: ['command'],
  schema: () =>
    z.object({
      command: z.string().min(1).describe('The bash command line to run (bash -c).'),
      timeout: z
        .number()
        .positive()
        .max(TERMINAL_MAX_TIMEOUT_SEC)
        .optional()
        .describe('Timeout in seconds, at most 600. Default: the configured terminal timeout.'),
      cwd: z.string().optional().describe('Working directory, relative to the workspace. Default: the workspace root.'),
    }),
  concurrency: 'write',
  writesVerbatim: true,
  idempotent: false,
  // Every part of the command line is classified (command-safety.ts); a human approves or the call is refused.
  // args passed the schema: command is a string.
  approval: (args) => classifyCommand((args.command as string | undefined) ?? ''),
});
