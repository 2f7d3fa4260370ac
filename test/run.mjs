// `npm test`: the static checks (tsc --noEmit and eslint over one TypeScript program, then knip and prettier --check)
// alongside `vitest run`, not before it. The tiers leave part of two cores idle while tests wait on servers, timers
// and spawned CLIs, and the checks (a minute and a half of one core) fill that time instead of adding to it. vitest's
// output streams as it comes; the checks' output is printed when they are done (all of it when one fails, one line
// each otherwise). Arguments go to vitest. Exits non-zero when either part failed.
import { spawn } from 'node:child_process';

// Local binaries (node_modules/.bin) through npx, or a script of ours with this node.
const CHECKS = [
  ['tsc + eslint', [process.execPath, 'test/typecheck-lint.mjs']],
  ['knip', ['npx', '--no-install', 'knip']],
  ['prettier', ['npx', '--no-install', 'prettier', '--check', '.']],
];

/** Runs a command to its end: exit code and output (stdout and stderr interleaved). */
function run(args, stdio = 'pipe') {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(args[0], args.slice(1), { stdio: stdio === 'inherit' ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout?.on('data', (d) => (out += d));
    child.stderr?.on('data', (d) => (out += d));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), out, ms: Date.now() - t0 }));
  });
}

async function checks() {
  const lines = [];
  let failed = false;
  for (const [name, args] of CHECKS) {
    const r = await run(args);
    lines.push(`${r.code === 0 ? 'ok' : 'FAILED'}  ${name} (${(r.ms / 1000).toFixed(1)} s)`);
    if (r.code !== 0) {
      failed = true;
      lines.push(r.out.trimEnd());
    }
  }
  return { failed, lines };
}

const [statics, tests] = await Promise.all([checks(), run(['npx', '--no-install', 'vitest', 'run', ...process.argv.slice(2)], 'inherit')]);
console.log(`\n=== static checks\n${statics.lines.join('\n')}`);
process.exit(statics.failed || tests.code !== 0 ? 1 : 0);
