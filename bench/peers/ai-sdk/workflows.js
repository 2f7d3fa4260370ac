// bench/peers: the smallest @temporalio/ai-sdk agent, as samples-typescript's ai-sdk sample writes its tools
// agent: generateText with the plugin's provider (every model call is an activity) and one tool whose execute is
// an activity. Plain JS so the product's typecheck and lint do not need this folder installed.
import { generateText, stepCountIs, tool } from 'ai';
import { temporalProvider } from '@temporalio/ai-sdk/workflow';
import { proxyActivities } from '@temporalio/workflow';
import { z } from 'zod';

const { readFile } = proxyActivities({ startToCloseTimeout: '30 seconds' });

/** prompt = "bench|page|<n>|0|<id>": the scripted model asks for n read_file pages, then answers. */
export async function peerAgent(prompt) {
  const n = Number(prompt.split('|')[2]);
  const result = await generateText({
    model: temporalProvider.languageModel('mock-model'),
    system: 'You are a helpful agent. Use read_file to read files.',
    prompt,
    tools: {
      read_file: tool({
        description: 'Read lines of a text file in the workspace; returns them numbered, with a footer.',
        inputSchema: z.object({
          path: z.string().describe('File path relative to the workspace'),
          offset: z.number().describe('First line, 1-based'),
          limit: z.number().describe('Number of lines'),
        }),
        execute: readFile,
      }),
    },
    stopWhen: stepCountIs(n + 2),
  });
  return result.text;
}
