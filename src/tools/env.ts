// The environment of processes a tool starts (terminal commands): an allow-list, never the worker's whole
// environment, so model keys, Temporal credentials and whatever else the worker runs with stay out of reach of
// `env` and `echo $OPENAI_API_KEY`. More variables are passed only when the configuration names them (passEnv).

/** Always passed (when set): what shells, compilers and package managers need to behave normally. */
export const BASE_TOOL_ENV = ['PATH', 'HOME', 'LANG', 'TERM', 'TZ', 'USER', 'LOGNAME', 'SHELL', 'TMPDIR'] as const;

/** True for a name the tool environment takes from the worker's: the base list, LC_*, and `passEnv` (NAME or PREFIX*). */
export function passesToTool(name: string, passEnv: readonly string[] = []): boolean {
  if ((BASE_TOOL_ENV as readonly string[]).includes(name) || name.startsWith('LC_')) return true;
  return passEnv.some((p) => (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : name === p));
}

/**
 * The allow-listed part of `source` (default: the worker's process.env) plus `extra`, which the tool sets itself
 * (and which wins over anything passed).
 */
export function toolEnv(
  passEnv: readonly string[] = [],
  extra: Record<string, string> = {},
  source: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(source)) {
    if (value !== undefined && passesToTool(name, passEnv)) env[name] = value;
  }
  return { ...env, ...extra };
}

/** Variable names from a comma- (or space-) separated list, e.g. HERMES_PASS_ENV. */
export function parseEnvList(list: string | undefined): string[] {
  return (list ?? '')
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}
