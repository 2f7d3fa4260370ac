// Profiles tuned to the server they point at, without configuration: a small model on a local server that takes
// JSON schemas gets the small profile and constrained steps; every profile gets the context size its server
// actually serves when that is smaller. An explicit setting always wins: `small` set either way, a toolCallMode
// other than `auto`, a context window smaller than the server's. Done where profiles are loaded for a worker, and
// by `hermes doctor` and `hermes run` to say what was chosen and why.
import { isSmallProfile, type ModelProfile, type ProfileSet } from './profiles';
import { isLocalEndpoint, probeEndpoint, type EndpointFacts } from './endpoint-probe';

/** Models up to this many parameters count as small (0.5–4B: the core tools and constrained steps help them). */
export const SMALL_PARAMS = 4e9;

export interface ProfileChoice {
  profile: ModelProfile;
  facts?: EndpointFacts;
  /** What was chosen and why, one clause each (empty: nothing to say, a hosted endpoint). */
  reasons: string[];
}

const billions = (n: number) => `${Number((n / 1e9).toFixed(n < 1e9 ? 2 : 1))}B`;

/** The profile as the facts suggest it, and why. Pure. */
export function chooseFor(p: ModelProfile, facts: EndpointFacts): ProfileChoice {
  const reasons: string[] = [];
  let out = p;
  if (facts.server === 'unknown') return { profile: p, facts, reasons: ['the server did not say what it is: settings as configured'] };
  reasons.push(`${facts.server}${facts.version ? ` ${facts.version}` : ''}`);
  if (facts.contextWindow && facts.contextWindow < p.contextWindow) {
    out = { ...out, contextWindow: facts.contextWindow };
    reasons.push(`context window ${facts.contextWindow} (the server's)`);
  }
  if (p.small === undefined && facts.params !== undefined) {
    const small = facts.params <= SMALL_PARAMS;
    if (small) out = { ...out, small: true };
    reasons.push(
      `${small ? 'small model' : 'model'}: ${billions(facts.params)} parameters (${facts.paramsFrom === 'server' ? 'the server says' : 'from its name'})`,
    );
  } else if (p.small !== undefined) reasons.push(`small: ${p.small} (configured)`);
  // A large model on a small context gets the core tools (isSmallProfile) but keeps native calls: it makes them.
  const smallModel = p.small ?? (facts.params !== undefined ? facts.params <= SMALL_PARAMS : isSmallProfile(out));
  if (p.toolCallMode !== 'auto') reasons.push(`${p.toolCallMode} tool calls (configured)`);
  else if (smallModel && facts.schemas) {
    out = { ...out, toolCallMode: 'constrained' };
    reasons.push('constrained steps (the server constrains replies to a JSON schema)');
  } else if (smallModel) reasons.push('auto tool calls (this server does not take JSON schemas)');
  return { profile: out, facts, reasons };
}

const asked = new Map<string, Promise<EndpointFacts>>();

/**
 * The facts of a local endpoint, asked once per process (a worker and `hermes run` in one process ask once). Only
 * chat-completions servers are asked: what is chosen from the answers (constrained steps) is theirs alone.
 */
function factsOf(p: ModelProfile): Promise<EndpointFacts> | undefined {
  if (p.transport !== 'chat' || !isLocalEndpoint(p.baseURL)) return undefined;
  const key = `${p.baseURL}\n${p.model}`;
  let f = asked.get(key);
  if (!f) asked.set(key, (f = probeEndpoint(p.baseURL, p.model)));
  return f;
}

/** One profile chosen for: probed when its endpoint is local, else as it is. */
export async function choose(p: ModelProfile): Promise<ProfileChoice> {
  const facts = factsOf(p);
  return facts ? chooseFor(p, await facts) : { profile: p, reasons: [] };
}

/** Every profile of the set chosen for (HERMES_DETECT=0: none, as configured). */
export async function chooseAll(set: ProfileSet, env: NodeJS.ProcessEnv = process.env): Promise<{ set: ProfileSet; choices: ProfileChoice[] }> {
  if (env.HERMES_DETECT === '0') return { set, choices: [] };
  const choices = await Promise.all(Object.values(set.profiles).map(choose));
  return { set: { ...set, profiles: Object.fromEntries(choices.map((c) => [c.profile.name, c.profile])) }, choices };
}

/** "profile default (qwen at http://…): llama.cpp, small model: 1.5B parameters (…), constrained steps (…)". */
export function describeChoice(c: ProfileChoice): string {
  return `profile ${c.profile.name} (${c.profile.model} at ${c.profile.baseURL}): ${c.reasons.join(', ')}`;
}
