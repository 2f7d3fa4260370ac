// `hermes doctor`'s builds line: the builds of this task queue's Worker Deployment that still have conversations
// pinned to them, which is current, and whether their bundles are kept here (docs/versioning.md). Asks the
// server, so it is the one check that connects; it never starts the embedded server to do so.
import { Client } from '@temporalio/client';
import { buildId } from '../startup/bundle';
import { clusterConfigured, connectClient, resolveTemporal, type TemporalTarget } from '../startup/connection';
import { tcpOpen } from '../dev-server/probe';
import { TASK_QUEUE } from '../shared/defaults';
import { keptBuilds } from '../versioning/builds';
import { buildsWithOpenRuns, deploymentName, versioningMode, versioningUnsupported } from '../versioning/deployment';

export interface BuildsCheck {
  name: 'builds';
  ok: boolean;
  text: string;
  details?: Record<string, unknown>;
}

export async function buildsCheck(env: NodeJS.ProcessEnv): Promise<BuildsCheck> {
  const deployment = deploymentName(env.HERMES_TASK_QUEUE || TASK_QUEUE, env);
  let mode;
  try {
    mode = versioningMode(env);
  } catch (err) {
    return { name: 'builds', ok: false, text: (err as Error).message };
  }
  if (mode === 'off') return { name: 'builds', ok: true, text: 'HERMES_VERSIONING=off: workers run unversioned' };
  let target: TemporalTarget;
  if (clusterConfigured(env)) {
    target = await resolveTemporal(env);
  } else {
    const port = Number(env.HERMES_TEMPORAL_PORT) || 7233;
    if (!(await tcpOpen('127.0.0.1', port))) {
      return { name: 'builds', ok: true, text: 'the embedded server is not running (any hermes command starts it): builds not listed' };
    }
    target = { connectionOptions: { address: `127.0.0.1:${port}` }, namespace: 'default' };
  }
  let connection;
  try {
    connection = await connectClient(target, env);
  } catch (err) {
    return { name: 'builds', ok: false, text: `could not list the builds: ${(err as Error).message}` };
  }
  try {
    const client = new Client({ connection, namespace: target.namespace });
    const why = await versioningUnsupported(client.workflowService, target.namespace, deployment);
    if (why) return { name: 'builds', ok: false, text: `worker versioning unavailable: ${why}; workers run unversioned` };
    const mine = buildId();
    const kept = keptBuilds(deployment);
    const builds = await buildsWithOpenRuns(client, deployment);
    const parts = builds.map((b) => {
      const tags = [b.current ? 'current' : '', b.buildId === mine ? 'this code' : '', kept.includes(b.buildId) ? '' : 'bundle not kept here'].filter(
        Boolean,
      );
      return `${b.buildId} ${b.open} open${tags.length ? ` (${tags.join(', ')})` : ''}`;
    });
    const stranded = builds.some((b) => b.open > 0 && !b.current && !kept.includes(b.buildId));
    return {
      name: 'builds',
      ok: !stranded,
      text: `deployment ${deployment}: ${parts.length ? parts.join('; ') : 'no build has open conversations'}${stranded ? ' — a build not kept here needs a worker of its own' : ''}`,
      details: { deployment, thisBuild: mine, builds: builds.map((b) => ({ ...b, kept: kept.includes(b.buildId) })) },
    };
  } catch (err) {
    return { name: 'builds', ok: false, text: `could not list the builds: ${(err as Error).message}` };
  } finally {
    await connection.close().catch(() => undefined);
  }
}
