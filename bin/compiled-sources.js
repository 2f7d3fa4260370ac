// A JavaScript copy of src/, compiled once per content by esbuild (the compiler tsx runs on every start), so
// each `hermes` process loads plain CommonJS instead of transpiling ~200 files through tsx's hook: that is about
// half of a short command's CPU. The copy is keyed by the sources' names, sizes and modification times plus
// esbuild's version and Node's major, so an edited file gets a new copy on the next start; an install that
// cannot write one (read-only, no esbuild, a syntax error) runs the sources through tsx as before.
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');

const STALE_MS = 7 * 24 * 3600 * 1000; // copies no start has used for a week are removed

/** The .ts sources under `dir` (not tests, not declarations), relative paths in a stable order. */
function sources(dir, rel = '') {
  const out = [];
  for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const name = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...sources(dir, name));
    else if (/\.ts$/.test(entry.name) && !/\.(test|d)\.ts$/.test(entry.name)) out.push(name);
  }
  return out;
}

function esbuildVersion(root) {
  // Read, not required: loading esbuild costs more than the whole key when the copy is already there.
  const file = require.resolve('esbuild/package.json', { paths: [root] });
  return JSON.parse(fs.readFileSync(file, 'utf8')).version;
}

/**
 * The directory of the compiled copy of `src` (created when missing), or undefined to run the sources through tsx.
 * `entry` is only checked for existence, so a partial copy is never used.
 */
function compiledSources({ root = path.join(__dirname, '..'), src = path.join(root, 'src'), cache, entry = 'cli/index.js' } = {}) {
  if (process.env.HERMES_COMPILED === 'off') return undefined;
  try {
    if (!fs.existsSync(src)) return undefined;
    const files = sources(src);
    const hash = crypto.createHash('sha256').update(`${esbuildVersion(root)}\0${process.versions.node.split('.')[0]}\0`);
    for (const f of files) {
      const st = fs.statSync(path.join(src, f));
      hash.update(`${f}\0${st.size}\0${st.mtimeMs}\0`);
    }
    const base = cache ?? path.join(root, '.hermes', 'compiled');
    const dir = path.join(base, hash.digest('hex').slice(0, 16));
    if (fs.existsSync(path.join(dir, entry))) {
      touch(dir);
      return dir;
    }
    compile(root, src, files, dir);
    prune(base, dir);
    return dir;
  } catch {
    return undefined;
  }
}

function compile(root, src, files, dir) {
  const tmp = `${dir}.${process.pid}.tmp`;
  fs.rmSync(tmp, { recursive: true, force: true });
  // Required only when a copy must be made.
  const esbuild = require(require.resolve('esbuild', { paths: [root] }));
  try {
    esbuild.buildSync({
      entryPoints: files.map((f) => path.join(src, f)),
      outdir: tmp,
      outbase: src,
      format: 'cjs',
      platform: 'node',
      target: `node${process.versions.node.split('.')[0]}`,
      tsconfig: path.join(root, 'tsconfig.json'),
      logLevel: 'silent',
    });
    try {
      fs.renameSync(tmp, dir);
    } catch (err) {
      // Another process made the same copy first: use theirs.
      if (!fs.existsSync(dir)) throw err;
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

function touch(dir) {
  const now = new Date();
  try {
    fs.utimesSync(dir, now, now);
  } catch {
    // a read-only copy still works; it is only pruned sooner
  }
}

function prune(base, keep) {
  for (const name of fs.readdirSync(base)) {
    const dir = path.join(base, name);
    if (dir === keep) continue;
    try {
      if (Date.now() - fs.statSync(dir).mtimeMs > STALE_MS) fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // gone already, or not ours to remove
    }
  }
}

module.exports = { compiledSources };
