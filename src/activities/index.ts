// createActivities(deps): everything that touches the world, with its dependencies injected so tests and
// the worker can give it their own model profiles, workspace and handlers.
import type { ProfileSet } from '../llm/profiles';
import { ContextCache } from './context';
import { createDeliverActivities } from './deliver';
import { createModelActivities } from './model';
import { createToolActivities, type ToolDeps } from './tools';

export interface ActivityDeps extends ToolDeps {
  profiles: ProfileSet;
  env?: NodeJS.ProcessEnv;
  contextCache?: ContextCache;
}

export function createActivities(deps: ActivityDeps) {
  const contextCache = deps.contextCache ?? new ContextCache();
  return {
    ...createModelActivities({ profiles: deps.profiles, env: deps.env, contextCache }),
    ...createToolActivities({ ...deps, contextCache }),
    ...createDeliverActivities({ env: deps.env }),
  };
}
