// Kept builds: the workflow bundle of every build that ran here as a version of a deployment, under
// HERMES_HOME/builds/<deployment>/<buildId>.js, so that after an upgrade `hermes worker` can still serve the
// conversations pinned to an older build (docs/versioning.md). Written when a build first runs; removed once no
// run is pinned to it any more. Per deployment, because whether a build drained is a question about one
// deployment: two task queues served from one HERMES_HOME drain apart.
import { copyFileSync, existsSync, linkSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { hermesHome } from '../shared/paths';

const BUILD_FILE = /^([A-Za-z0-9_-]+)\.js$/;

export function buildsDir(deployment: string, home: string = hermesHome()): string {
  return path.join(home, 'builds', deployment);
}

export function keptBundlePath(deployment: string, buildId: string, home?: string): string {
  return path.join(buildsDir(deployment, home), `${buildId}.js`);
}

/** Keeps the bundle of a build (no-op when kept already); returns its kept path. */
export function keepBuild(deployment: string, buildId: string, bundlePath: string, home?: string): string {
  const file = keptBundlePath(deployment, buildId, home);
  if (existsSync(file)) return file;
  mkdirSync(path.dirname(file), { recursive: true });
  // A hard link when it can (the bundle cache is under the same HERMES_HOME: no second copy of ~4 MB), else a
  // copy; either way written under a temporary name first, so a process starting meanwhile never reads half.
  const tmp = `${file}.${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  try {
    linkSync(bundlePath, tmp);
  } catch {
    copyFileSync(bundlePath, tmp);
  }
  renameSync(tmp, file);
  return file;
}

/** The build ids of the deployment whose bundles are kept here. */
export function keptBuilds(deployment: string, home?: string): string[] {
  const dir = buildsDir(deployment, home);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((f) => BUILD_FILE.exec(f)?.[1])
    .filter((id): id is string => Boolean(id))
    .sort();
}

export function dropBuild(deployment: string, buildId: string, home?: string): void {
  rmSync(keptBundlePath(deployment, buildId, home), { force: true });
}
