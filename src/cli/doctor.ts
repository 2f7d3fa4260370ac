// `hermes doctor`: what a worker started here, with this environment, would run with — node, the temporal CLI,
// bubblewrap and the terminal's sandbox, its process isolation outside bwrap, the default model endpoint (never the key), the workspace and its
// roots — and the builds of the worker deployment that still have open conversations (doctor-builds.ts). Exits 1
// when such a worker would refuse to start (HERMES_SANDBOX=bwrap without a working bwrap, an invalid setting or
// model configuration), else 0.
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { isSmallProfile, loadProfiles } from '../llm/profiles';
import { choose, describeChoice } from '../llm/auto-profile';
import { buildsCheck } from './doctor-builds';
import { findTemporalBinary } from '../dev-server/temporal-cli';
import { workspaceRoots } from '../tools/roots';
import { isolationWarning, probeIsolation, unshareBinary, type Isolation } from '../tools/isolation';
import { bwrapBinary, probeBwrap, resolveWorkerSandbox, SandboxUnavailableError } from '../tools/sandbox';
import { payloadStoreSetting } from '../storage';

interface Check {
  name: string;
  ok: boolean;
  /** One line for the text report. */
  text: string;
  /** The worker would not start. */
  fatal?: boolean;
  details?: Record<string, unknown>;
}

/** `bwrap` resolved on PATH (or the given path), for the report. */
function which(bin: string, env: NodeJS.ProcessEnv): string | undefined {
  const candidates = bin.includes('/') ? [bin] : (env.PATH ?? '').split(path.delimiter).map((d) => path.join(d || '.', bin));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return path.resolve(c);
    } catch {
      // next
    }
  }
  return undefined;
}

function version(file: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(file, ['--version'], { timeout: 5_000 }, (err, stdout) => resolve(err ? undefined : stdout.trim().split('\n')[0]));
  });
}

/** What terminal commands outside bwrap run under (src/tools/isolation.ts); a warning, never fatal. */
function isolationCheck(iso: Isolation, defaultSandboxed: boolean): Check {
  const outside = defaultSandboxed ? 'runs that opt out of the sandbox run commands in' : 'commands run in';
  return iso.kind === 'namespace'
    ? {
        name: 'isolation',
        ok: true,
        text: `${outside} ${iso.description}: they cannot read the worker's environment, and what they leave running ends with them`,
        details: { ...iso },
      }
    : { name: 'isolation', ok: false, text: isolationWarning(iso, defaultSandboxed)!, details: { ...iso } };
}

export async function doctorChecks(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Promise<Check[]> {
  const checks: Check[] = [];
  checks.push({ name: 'node', ok: true, text: `${process.version} (${process.platform}/${process.arch})` });

  const temporal = await findTemporalBinary('cli').catch(() => undefined);
  checks.push(
    temporal
      ? { name: 'temporal CLI', ok: true, text: `${temporal.path} (from ${temporal.source})`, details: { ...temporal } }
      : { name: 'temporal CLI', ok: false, text: 'not found (TEMPORAL_CLI_PATH, PATH, .hermes/venv); `hermes install-temporal` installs it' },
  );
  checks.push({
    name: 'Temporal',
    ok: true,
    text: env.TEMPORAL_ADDRESS
      ? `${env.TEMPORAL_ADDRESS} (namespace ${env.TEMPORAL_NAMESPACE || 'default'}; TEMPORAL_ADDRESS)`
      : 'embedded dev server (no TEMPORAL_ADDRESS)',
  });

  const bin = bwrapBinary(env);
  const probe = await probeBwrap(bin);
  const found = which(bin, env);
  checks.push(
    probe.ok
      ? {
          name: 'bubblewrap',
          ok: true,
          text: `works: ${found ?? bin}${found ? ` (${(await version(found)) ?? 'version unknown'})` : ''}, a sandbox starts in ${Math.round(probe.ms)} ms`,
          details: { path: found ?? bin, ms: probe.ms },
        }
      : { name: 'bubblewrap', ok: false, text: `does not work: ${probe.reason}`, details: { path: found ?? bin, reason: probe.reason } },
  );

  try {
    const s = await resolveWorkerSandbox({ env });
    const from = env.HERMES_SANDBOX?.trim() ? `HERMES_SANDBOX=${s.setting}` : `HERMES_SANDBOX unset: ${s.setting}`;
    const net = `network ${s.network ? 'allowed (HERMES_SANDBOX_NETWORK)' : 'off unless a run allows it'}`;
    checks.push(
      s.mode === 'bwrap'
        ? { name: 'sandbox', ok: true, text: `terminal runs in the bubblewrap sandbox (${from}; ${net})`, details: { ...s } }
        : {
            name: 'sandbox',
            ok: s.setting === 'none',
            text: s.warning ? `${s.warning} (${from})` : `terminal runs without a sandbox (${from}); runs may still ask for one`,
            details: { ...s },
          },
    );
    checks.push(isolationCheck(s.isolation!, s.mode === 'bwrap'));
  } catch (err) {
    const text = err instanceof SandboxUnavailableError ? `a worker would refuse to start: ${err.message}` : (err as Error).message;
    checks.push({ name: 'sandbox', ok: false, fatal: true, text });
    checks.push(isolationCheck(await probeIsolation(unshareBinary(env)), false));
  }

  try {
    const set = loadProfiles(env, cwd);
    const p = set.profiles[set.defaultName]!;
    const key = env[p.apiKeyEnv] ? 'set' : 'NOT set';
    checks.push({
      name: 'model',
      ok: Boolean(env[p.apiKeyEnv]) || !/api\.(openai|anthropic)\.com/.test(p.baseURL),
      text: `profile "${p.name}": ${p.model} at ${p.baseURL}${p.transport === 'chat' ? '' : ` over ${p.transport}`} (key variable ${p.apiKeyEnv}: ${key})`,
      details: {
        profile: p.name,
        model: p.model,
        baseURL: p.baseURL,
        transport: p.transport,
        apiKeyEnv: p.apiKeyEnv,
        keySet: Boolean(env[p.apiKeyEnv]),
      },
    });
    const chosen = env.HERMES_DETECT === '0' ? undefined : await choose(p);
    if (chosen?.reasons.length) {
      const c = chosen.profile;
      checks.push({
        name: 'model choice',
        ok: true,
        text: describeChoice(chosen),
        details: { server: chosen.facts?.server, small: isSmallProfile(c), toolCallMode: c.toolCallMode, contextWindow: c.contextWindow },
      });
    }
  } catch (err) {
    checks.push({ name: 'model', ok: false, fatal: true, text: `a worker would refuse to start: ${(err as Error).message}` });
  }

  const workspace = path.resolve(env.HERMES_WORKSPACE ?? cwd);
  checks.push({ name: 'workspace', ok: true, text: `${workspace} (${env.HERMES_WORKSPACE ? 'HERMES_WORKSPACE' : 'the current directory'})` });
  const roots = workspaceRoots(workspace, env);
  checks.push({
    name: 'workspace roots',
    ok: true,
    text: `${roots.join(', ')} (${env.HERMES_WORKSPACE_ROOTS?.trim() ? 'HERMES_WORKSPACE_ROOTS' : 'the workspace only; HERMES_WORKSPACE_ROOTS adds more'})`,
  });
  checks.push(await buildsCheck(env));
  checks.push(payloadStoreCheck(env));
  return checks;
}

/** Where a long conversation's carried state goes; off on a remote cluster means a prune past 1.5 M characters. */
function payloadStoreCheck(env: NodeJS.ProcessEnv): Check {
  try {
    const s = payloadStoreSetting(env);
    const text = s.folder
      ? `${s.folder}: payloads of ${s.threshold} bytes or more are kept there (${s.why}); every worker and client must see it`
      : `off (${s.why}): a continue-as-new carries the state inline, past 1.5 M characters old tool outputs are pruned`;
    return { name: 'payload store', ok: true, text, details: { ...s } };
  } catch (err) {
    return { name: 'payload store', ok: false, fatal: true, text: `a worker would refuse to start: ${(err as Error).message}` };
  }
}

export async function doctor(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean' } } });
  const checks = await doctorChecks();
  const fatal = checks.some((c) => c.fatal);
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ ok: !fatal, checks }, null, 2)}\n`);
  } else {
    const width = Math.max(...checks.map((c) => c.name.length));
    // `!` a problem to look at; `!!` one that stops a worker from starting.
    for (const c of checks) process.stdout.write(`${c.fatal ? '!!' : c.ok ? '  ' : '! '} ${c.name.padEnd(width)}  ${c.text}\n`);
    if (fatal) process.stdout.write('\nA worker started with this environment would refuse to start (the lines marked !!).\n');
  }
  return fatal ? 1 : 0;
}
