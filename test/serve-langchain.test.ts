// LangChain's ChatOpenAI (the Python package langchain-openai, run as a process of its own) against `hermes serve`:
// `bind_tools` gets the model's call of the client's tool as `tool_calls`, the ToolMessage with its result lets the
// durable session answer, and `with_structured_output` (response_format json_schema) gets a parsed object. Skipped,
// saying so, where the package is not installed (`pip install langchain-openai`; HERMES_TEST_PYTHON names the
// interpreter, default python3). .ci/run installs it into a venv of its own and sets HERMES_REQUIRE_LANGCHAIN=1, so
// there a missing package fails the test instead of skipping it.
import { spawn, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type RunningServe } from '../src/http-api/server';
import { answer, createHarness, toolResult, type Harness } from './helpers/harness';

const PYTHON = process.env.HERMES_TEST_PYTHON ?? 'python3';
const probe = spawnSync(PYTHON, ['-c', 'import langchain_openai'], { encoding: 'utf8' });
const missing = probe.status === 0 ? undefined : `the Python package langchain-openai is not installed for ${PYTHON} (pip install langchain-openai)`;

const SCRIPT = String.raw`
import json, sys
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI

@tool
def get_weather(city: str) -> str:
    """Gets the weather of a city."""
    return "sunny in " + city

base, session = sys.argv[1], sys.argv[2]
llm = ChatOpenAI(base_url=base, api_key="unused", model="hermes", max_retries=0, default_headers={"X-Hermes-Session-Id": session})
bound = llm.bind_tools([get_weather])
question = HumanMessage("What is the weather in Paris?")
asked = bound.invoke([question])
call = asked.tool_calls[0]
final = bound.invoke([question, asked, ToolMessage(content=get_weather.invoke(call["args"]), tool_call_id=call["id"])])
schema = {"title": "Weather", "type": "object", "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}}, "required": ["city", "celsius"]}
structured = ChatOpenAI(base_url=base, api_key="unused", model="hermes", max_retries=0).with_structured_output(schema, method="json_schema")
parsed = structured.invoke("The weather in Paris as JSON")
print(json.dumps({"tool_calls": asked.tool_calls, "final": final.content, "parsed": parsed}))
`;

let h: Harness;
let s: RunningServe;

beforeAll(async () => {
  if (missing) return;
  h = await createHarness();
  s = await startServe({ hermes: h.hermes, port: 0, profiles: () => ({ defaultName: 'default', names: ['default'] }) });
});
afterAll(async () => {
  await s?.close();
  await h?.close();
});

function runPython(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(PYTHON, ['-c', SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.once('exit', (code) => resolve({ code, out, err }));
  });
}

describe('hermes serve with LangChain (Python)', () => {
  it('bind_tools gets tool_calls, the tool result goes back, and with_structured_output gets its object', async (ctx) => {
    if (missing && process.env.HERMES_REQUIRE_LANGCHAIN === '1') throw new Error(`required here (HERMES_REQUIRE_LANGCHAIN=1): ${missing}`);
    if (missing) ctx.skip(missing);
    const session = `lc-${Date.now().toString(36)}`;
    h.mock.push(
      { toolCalls: [{ id: 'lc1', name: 'get_weather', arguments: { city: 'Paris' } }] },
      answer('It is sunny in Paris.'),
      answer('{"city": "Paris", "celsius": 24}'),
    );
    const r = await h.run(() => runPython([`${s.url}/v1`, session]));
    expect(r.code, r.err).toBe(0);
    const got = JSON.parse(r.out) as { tool_calls: Array<{ name: string; args: unknown; id: string }>; final: string; parsed: unknown };
    expect(got.tool_calls).toEqual([expect.objectContaining({ name: 'get_weather', args: { city: 'Paris' }, id: 'lc1' })]);
    expect(got.final).toBe('It is sunny in Paris.');
    expect(got.parsed).toEqual({ city: 'Paris', celsius: 24 });
    const [first, second, third] = h.mock.requests.slice(-3);
    expect(first!.tools).toContain('get_weather');
    expect(toolResult(second!.messages, 'lc1')).toBe('sunny in Paris');
    expect(third!.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'Weather' } });
    h.mock.assertDone();
  }, 120_000);
});
