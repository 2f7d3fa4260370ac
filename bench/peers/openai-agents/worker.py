"""bench/peers: the smallest OpenAI Agents SDK agent on Temporal (temporalio-openai-agents), as its README shows.

    .venv/bin/python worker.py <temporal address> <task queue> <model base URL> <workspace>

Runs one worker: the plugin's model activity (chat completions against the bench's scripted model) and a
`read_file` activity as the agent's tool (`activity_as_tool`), returning the same numbered ~2 KB pages as
Hermes's read_file. The bench (bench/peers/run.ts) starts `PeerAgent` workflows by name with the prompt
"bench|page|<n>|0|<id>"; the agent may take n + 2 turns. Prints "ready" once polling.
"""

import asyncio
import os
import sys
from datetime import timedelta

from agents import Agent, OpenAIProvider, Runner
from openai import AsyncOpenAI
from temporalio import activity, workflow
from temporalio.client import Client
from temporalio.openai_agents import ModelActivityParameters, OpenAIAgentsPlugin
from temporalio.openai_agents.workflow import activity_as_tool
from temporalio.worker import Worker

WORKSPACE = sys.argv[4] if len(sys.argv) > 4 else "."


@activity.defn
async def read_file(path: str, offset: int, limit: int) -> str:
    """Read lines offset..offset+limit-1 of a text file in the workspace; returns them numbered, with a footer."""
    with open(os.path.join(WORKSPACE, path), encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    total = len(lines)
    end = min(total, offset - 1 + limit)
    width = max(4, len(str(end)))
    body = [f"{str(offset + i).rjust(width)}| {line}" for i, line in enumerate(lines[offset - 1 : end])]
    more = f"; {total - end} more — call read_file with offset={end + 1} for the next page" if end < total else "; end of file"
    return "\n".join(body) + f"\n[lines {offset}-{end} of {total}{more}]"


@workflow.defn
class PeerAgent:
    @workflow.run
    async def run(self, prompt: str) -> str:
        n = int(prompt.split("|")[2])
        agent = Agent(
            name="Assistant",
            instructions="You are a helpful agent. Use read_file to read files.",
            model="mock-model",
            tools=[activity_as_tool(read_file, start_to_close_timeout=timedelta(seconds=30))],
        )
        result = await Runner.run(agent, input=prompt, max_turns=n + 2)
        return str(result.final_output)


async def main() -> None:
    address, task_queue, base_url = sys.argv[1], sys.argv[2], sys.argv[3]
    provider = OpenAIProvider(openai_client=AsyncOpenAI(base_url=base_url, api_key="not-set", max_retries=0), use_responses=False)
    plugin = OpenAIAgentsPlugin(
        model_params=ModelActivityParameters(start_to_close_timeout=timedelta(seconds=60)), model_provider=provider
    )
    client = await Client.connect(address, plugins=[plugin])
    worker = Worker(client, task_queue=task_queue, workflows=[PeerAgent], activities=[read_file], max_concurrent_activities=100)
    async with worker:
        print("ready", flush=True)
        await asyncio.Event().wait()


if __name__ == "__main__":
    os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")
    asyncio.run(main())
