// createActivities(deps): everything that touches the world, with its dependencies injected so tests and
// the worker can give it their own model profiles, workspace and handlers.
import type { ProfileSet } from '../llm/profiles';
import type { WebPolicy } from '../tools/web_fetch/address-policy';
import { Redactor, type RedactConfig } from '../security/redact';
import { ContextCache } from './context';
import { createDeliverActivities } from './webhook-post';
import { createMemoryActivities } from './memory';
import { createModelActivities } from './model';
import { prepareRunActivity } from './prepare-run';
import { createPromptActivities } from './system-prompt';
import { createToolActivities, type ToolDeps } from './tools';

export interface ActivityDeps extends ToolDeps {
  profiles: ProfileSet;
  env?: NodeJS.ProcessEnv;
  contextCache?: ContextCache;
  /** Extra patterns and values for the redactor (ignored when `redactor` is given). */
  redact?: RedactConfig;
  /** Non-public addresses webhooks may be delivered to (default: HERMES_WEBHOOK_ALLOW_* and the config file). */
  webhookPolicy?: WebPolicy;
  /** The worker's data converter offloads large payloads (src/storage): a carried state has no 2 MiB limit. */
  payloadStore?: boolean;
  /** The payload store's size threshold in bytes: a payload this large or larger goes to the store. */
  payloadStoreThreshold?: number;
  /** The worker's namespace's missing search attributes (src/startup/usable-attributes.ts); unknown without it. */
  missingAttributes?: () => Promise<string[] | undefined>;
}

export function createActivities(deps: ActivityDeps) {
  const contextCache = deps.contextCache ?? new ContextCache();
  // One redactor for tool results and model replies: the worker's secret-named variables, shapes, config.
  const redactor = deps.redactor ?? new Redactor({ env: { ...process.env, ...deps.env }, ...deps.redact });
  const tools = createToolActivities({ ...deps, contextCache, redactor });
  const prompt = createPromptActivities({
    workspace: deps.workspace,
    redactor,
    profiles: deps.profiles,
    ...(deps.skillsStore ? { skillsStore: deps.skillsStore } : {}),
  });
  return {
    ...createModelActivities({ profiles: deps.profiles, env: deps.env, contextCache, redactor, catalog: deps.catalog }),
    ...tools,
    ...createDeliverActivities({ env: deps.env, ...(deps.webhookPolicy ? { policy: deps.webhookPolicy } : {}) }),
    ...createMemoryActivities({ redactor }),
    ...prompt,
    prepareRun: prepareRunActivity({ ...tools, ...prompt, ...(deps.missingAttributes ? { missingAttributes: deps.missingAttributes } : {}) }),
    /**
     * Does nothing: the workflow runs it as a local activity so that an outcome no other event shows (an approval
     * that timed out or was denied, an interrupt, a stop, a retried model call) is a row with a summary in the
     * Web UI's compact view and in `temporal workflow show` (src/workflows/engine/trace.ts).
     */
    async outcome(): Promise<void> {},
    /**
     * Whether this worker keeps large payloads in the payload store, and from what size: asked (as a local
     * activity, so the answer is recorded) at each continue-as-new, which prunes without a store and tells the
     * next run where its carried state is.
     */
    async payloadStore(): Promise<{ stored: boolean; threshold?: number }> {
      const stored = deps.payloadStore === true;
      return { stored, ...(stored && deps.payloadStoreThreshold !== undefined ? { threshold: deps.payloadStoreThreshold } : {}) };
    },
  };
}
