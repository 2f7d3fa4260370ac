// The skills store (`hermes-skills-<store>`): skills the agent saved with skill_manage, or a person with `hermes
// skills add`, shared by every worker of the cluster. The state is the workflow's memo, one field per skill
// (`skill.<name>`: its files and version), so readers use `describe` and need no worker — right after the worker
// that wrote a skill died, another reads it at once (a query would wait for the dead worker's sticky queue to time
// out, ~10 s; see "Memory" in docs/design-notes.md). Writes are updates: each validator and handler pair runs to
// completion before the next update is looked at, so concurrent writes are serialised, and a refused write (every
// check is in the validator: src/shared/skills.ts) is not recorded.
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  makeContinueAsNewFunc,
  setCurrentDetails,
  setHandler,
  setWorkflowOptions,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import { issuesText, parseArgs } from '../shared/contract';
import {
  applySkillWrite,
  SKILL_MEMO_PREFIX,
  skillsFromMemo,
  skillsInputSchema,
  skillWriteSchema,
  SkillWriteError,
  type SkillsState,
} from '../shared/skills';
import { skillWriteUpdate } from '../shared/messages';
import { rejecting } from './engine/validators';

const WRITES_PER_RUN = 200;

export async function skillsWorkflow(rawInput: unknown): Promise<void> {
  const parsed = skillsInputSchema().safeParse(rawInput);
  if (!parsed.success)
    throw ApplicationFailure.create({ type: 'BadInput', message: `skills workflow input: ${issuesText(parsed.error)}`, nonRetryable: true });
  const input = parsed.data;
  // A continued run starts with the memo its predecessor handed over: that is the whole state.
  let state: SkillsState = skillsFromMemo(workflowInfo().memo);
  let writesThisRun = 0;

  setHandler(
    skillWriteUpdate,
    (raw) => {
      const w = skillWriteSchema().parse(raw);
      const next = applySkillWrite(state, w);
      state = next.state;
      upsertMemo({ [SKILL_MEMO_PREFIX + w.name]: state[w.name] });
      writesThisRun++;
      details(input.store, state);
      return next.result;
    },
    {
      validator: rejecting((raw) => {
        const w = parseArgs(skillWriteSchema(), raw, 'skill write');
        try {
          applySkillWrite(state, w);
        } catch (err) {
          if (err instanceof SkillWriteError) throw err;
          throw new SkillWriteError((err as Error).message);
        }
      }),
      description:
        'Creates, patches or deletes a skill: { action: "create", name, content, files? } | { action: "patch", name, old_string, new_string, path? } | ' +
        '{ action: "write_file", name, path, content } | { action: "delete", name }',
    },
  );
  details(input.store, state);

  const perRun = input.writesPerRun ?? WRITES_PER_RUN;
  await condition(() => writesThisRun >= perRun || workflowInfo().continueAsNewSuggested);
  await condition(allHandlersFinished);
  const memo = Object.fromEntries(Object.entries(state).map(([name, s]) => [SKILL_MEMO_PREFIX + name, s]));
  return makeContinueAsNewFunc<typeof skillsWorkflow>({ memo })(input);
}

/** The Web UI's workflow page lists the skills. */
function details(store: string, state: SkillsState): void {
  const names = Object.keys(state).sort();
  const lines = names.map((n) => `- \`${n}\` (version ${state[n]!.version}, ${Object.keys(state[n]!.files).length} file(s))`);
  setCurrentDetails(`Skills store \`${store}\`: ${names.length} skill(s)\n\n${lines.join('\n')}`);
}

// Like a memory scope: open for good, no commands between continue-as-news, so it follows the current build.
setWorkflowOptions(() => (workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior: 'AUTO_UPGRADE' } : {}), skillsWorkflow);
