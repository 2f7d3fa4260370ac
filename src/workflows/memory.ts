// The durable memory of one scope: a long-lived workflow (`hermes-memory-<scope>`) that holds two stores, agent
// notes and user profile. Writes are updates, reads a query, so memory is as durable and as visible as the
// conversations, and every worker sees the same. The first write creates it (update-with-start, src/memory/).
//
// Updates are serialised by the workflow: the handlers are synchronous, so each validator and handler pair runs
// to completion before the next update is looked at — two conversations writing at once lose neither write.
// Every check (arguments, injection patterns, credentials, the entry a match finds, the limit) is in the validator:
// a refused write is rejected before it is recorded, for our client and the stock `temporal` CLI alike. The
// credential check is in the validator only (validators do not run on replay), so histories recorded before it
// replay unchanged.
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  setCurrentDetails,
  setHandler,
  setWorkflowOptions,
  workflowInfo,
} from '@temporalio/workflow';
import { issuesText, parseArgs } from '../shared/contract';
import {
  applyMemoryWrite,
  credentialRefusal,
  DEFAULT_MEMORY_LIMITS,
  emptyMemory,
  listEntries,
  MEMORY_STORES,
  memoryClearSchema,
  memoryInputSchema,
  memoryWriteSchema,
  MemoryWriteError,
  STORE_TITLES,
  usedChars,
  type MemoryInput,
  type MemoryState,
  type MemoryView,
} from '../shared/memory';
import { memoryQuery, memoryClearUpdate, memoryWriteUpdate } from '../shared/messages';
import { rejecting } from './engine/validators';

/** What continue-as-new hands to the next run. */
export interface MemoryCarried {
  state: MemoryState;
  writes: number;
}

const WRITES_PER_RUN = 500;

export async function memoryWorkflow(rawInput: unknown, carried?: MemoryCarried): Promise<MemoryView> {
  const parsed = memoryInputSchema().safeParse(rawInput);
  if (!parsed.success)
    throw ApplicationFailure.create({ type: 'BadInput', message: `memory workflow input: ${issuesText(parsed.error)}`, nonRetryable: true });
  const input: MemoryInput = parsed.data;
  let state =
    carried?.state ?? emptyMemory({ notes: input.notesLimit ?? DEFAULT_MEMORY_LIMITS.notes, user: input.userLimit ?? DEFAULT_MEMORY_LIMITS.user });
  let writes = carried?.writes ?? 0;
  let writesThisRun = 0;
  const view = (): MemoryView => ({ scope: input.scope, ...state, writes });
  const changed = () => {
    writes++;
    writesThisRun++;
    details(input.scope, state);
  };

  setHandler(memoryQuery, view, { description: 'The memory of this scope: { scope, notes: { entries, limit }, user: { entries, limit }, writes }' });
  setHandler(
    memoryWriteUpdate,
    (raw) => {
      const next = applyMemoryWrite(state, memoryWriteSchema().parse(raw));
      state = next.state;
      changed();
      return next.result;
    },
    {
      // Throws with the reason: the update is rejected and nothing is recorded.
      validator: rejecting((raw) => {
        const w = parseArgs(memoryWriteSchema(), raw, 'memory write');
        const refused = credentialRefusal(w);
        if (refused) throw new MemoryWriteError(refused);
        applyMemoryWrite(state, w);
      }),
      description:
        'Adds, replaces or removes an entry: { action: "add", store: "notes"|"user", text } | { action: "replace", store, match, text } | { action: "remove", store, match }',
    },
  );
  setHandler(
    memoryClearUpdate,
    (raw) => {
      const { store } = memoryClearSchema().parse(raw);
      for (const name of store ? [store] : MEMORY_STORES) state = { ...state, [name]: { ...state[name], entries: [] } };
      changed();
      return view();
    },
    {
      validator: rejecting((raw) => void parseArgs(memoryClearSchema(), raw, 'memory clear')),
      description: 'Empties one store or both: { store?: "notes"|"user" }',
    },
  );
  details(input.scope, state);

  // History grows by a few events per write: start a fresh run now and then, carrying the stores.
  const perRun = input.writesPerRun ?? WRITES_PER_RUN;
  await condition(() => writesThisRun >= perRun || workflowInfo().continueAsNewSuggested);
  await condition(allHandlersFinished);
  return continueAsNew<typeof memoryWorkflow>(input, { state, writes });
}

/** The Web UI's workflow page shows the stores. */
function details(scope: string, state: MemoryState): void {
  const parts = MEMORY_STORES.map((n) => `**${STORE_TITLES[n]}** (${usedChars(state[n].entries)}/${state[n].limit})\n\n${listEntries(state[n])}`);
  setCurrentDetails(`Memory scope \`${scope}\`\n\n${parts.join('\n\n')}`);
}

// A memory scope is open for good and records no commands between its continue-as-news (its updates are
// synchronous), so it follows the current build instead of keeping an old one alive; a change to its commands
// needs a patch gate (docs/versioning.md). Conversations and deliveries take the worker's default, PINNED. A getter,
// asked once per run: an unversioned worker must not name a behaviour (the server rejects the task's completion).
setWorkflowOptions(() => (workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior: 'AUTO_UPGRADE' } : {}), memoryWorkflow);
