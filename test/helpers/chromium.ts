// Where a headless Chromium is for the real-browser tests: HERMES_CHROMIUM or PUPPETEER_EXECUTABLE_PATH, else
// `chromium` or `chromium-browser` on PATH. .ci/run installs it and sets HERMES_REQUIRE_CHROMIUM=1, so a CI run
// without one fails instead of skipping; elsewhere the test is skipped and says why.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export type ChromiumLookup = { ok: true; path: string } | { ok: false; why: string };

export function findChromium(env: NodeJS.ProcessEnv = process.env): ChromiumLookup {
  const named = env.HERMES_CHROMIUM || env.PUPPETEER_EXECUTABLE_PATH;
  if (named)
    return existsSync(named)
      ? { ok: true, path: named }
      : { ok: false, why: `${named} (HERMES_CHROMIUM / PUPPETEER_EXECUTABLE_PATH) does not exist` };
  for (const name of ['chromium', 'chromium-browser']) {
    const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    const found = r.stdout.trim();
    if (r.status === 0 && found) return { ok: true, path: found };
  }
  return { ok: false, why: 'no chromium or chromium-browser on PATH (apt-get install chromium, or set HERMES_CHROMIUM)' };
}

/** True when a missing Chromium must fail the run (CI, where .ci/run installed it). */
export function chromiumRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.HERMES_REQUIRE_CHROMIUM === '1';
}
