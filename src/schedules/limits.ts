// The limits of a task definition, in one place: `task_register`'s schema (src/tools/schedules/spec.ts) and the
// check every registration passes (src/schedules/tasks.ts checkTask: the client and the CLI) use these. No
// imports: the tool specs are part of the workflow bundle.

export const TASK_LIMITS = {
  /** The prompt every firing starts with. */
  promptChars: 20_000,
  /** Shown by task_list and `hermes schedule list`. */
  descriptionChars: 500,
  /** The `when` text (cron, interval, one-shot). */
  whenChars: 200,
  timezoneChars: 64,
  /** A webhook URL or `$NAME` (the run config's schema has the same limit). */
  webhookChars: 2_000,
  /** Tool and toolset names a task's firings may use. */
  tools: 50,
} as const;

/** 1–63 lowercase letters, digits, `-` and `_`, starting with a letter or digit. */
const TASK_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const isTaskName = (name: string): boolean => TASK_NAME_PATTERN.test(name);
