// A namespace on the production server whose three Text search attribute slots (SQL visibility's limit) other
// applications have taken: HermesSummary cannot be registered. The worker registers the seven others, says which
// one it could not, and conversations run to their end with the attributes the namespace has — before, the one
// failed registration left all eight out and every workflow task that upserted them was refused: Running for good.
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { describe, expect, inject, it } from 'vitest';
import { Hermes } from '../../src/client';
import type { ConversationRow } from '../../src/inspect/list';
import { cleanupsAfterEach } from '../helpers/worker-process';
import { answer } from '../helpers/harness';
import { waitFor } from '../helpers/wait';
import { clusterSetup } from './cluster';

const cleanups = cleanupsAfterEach();

/** A fresh namespace with its Text slots taken; resolves once the server serves it. */
async function crowdedNamespace(connection: Connection): Promise<string> {
  const namespace = `hermes-crowded-${process.pid}-${Date.now().toString(36)}`;
  await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  const others = { OtherText1: 1, OtherText2: 1, OtherText3: 1 }; // IndexedValueType TEXT
  // A new namespace reaches the frontend's cache within seconds.
  await waitFor(
    `namespace ${namespace}`,
    () =>
      connection.operatorService.addSearchAttributes({ namespace, searchAttributes: others }).then(
        () => true,
        () => false,
      ),
    60_000,
  );
  return namespace;
}

describe('a namespace that cannot take every search attribute', () => {
  it('registers the others, says which it could not, and runs conversations to their end', async () => {
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    cleanups.push(() => connection.close());
    const namespace = await crowdedNamespace(connection);
    const { worker, cli, taskQueue } = await clusterSetup(cleanups, 'crowded', [answer('first answer')], {
      TEMPORAL_NAMESPACE: namespace,
    });
    const w = worker();
    await w.ready;
    expect(w.output()).toContain(`could not register search attribute(s) HermesSummary in namespace ${namespace}`);
    const listed = await connection.operatorService.listSearchAttributes({ namespace });
    expect(
      Object.keys(listed.customAttributes ?? {})
        .filter((k) => k.startsWith('Hermes'))
        .sort(),
    ).toEqual(['HermesEncryption', 'HermesIterations', 'HermesModel', 'HermesSchedule', 'HermesScope', 'HermesStatus', 'HermesWaitingFor']);

    const client = new Client({ connection, namespace });
    const hermes = await Hermes.connect({ client, taskQueue });
    const handle = await hermes.start({ prompt: 'the first question' });
    expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'first answer' });
    const history = await handle.workflow.fetchHistory();
    expect(history.events?.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
    const described = await handle.workflow.describe();
    expect(described.searchAttributes.HermesStatus).toEqual(['completed']);
    expect(described.searchAttributes.HermesSummary).toBeUndefined();

    // Visibility on PostgreSQL lists it by the attribute it has, through the real CLI.
    const rows = await waitFor(
      'the conversation listed completed',
      async () => {
        const r = await cli(['list', '--status', 'completed', '--json']);
        const list = r.code === 0 ? (JSON.parse(r.stdout) as ConversationRow[]) : [];
        return list.length > 0 && list;
      },
      30_000,
    );
    expect(rows.map((r) => [r.id, r.status])).toEqual([[handle.id, 'completed']]);
  });
});
