// The transport a profile speaks (its `transport` field; see types.ts for the seam).
import type { ModelProfile } from '../profiles';
import { anthropicTransport } from './anthropic';
import { chatTransport } from './chat';
import { responsesTransport } from './responses';
import type { Transport } from './types';

export function createTransport(p: ModelProfile, env: NodeJS.ProcessEnv): Transport {
  switch (p.transport) {
    case 'chat':
      return chatTransport(p, env);
    case 'responses':
      return responsesTransport(p, env);
    case 'anthropic':
      return anthropicTransport(p, env);
  }
}
