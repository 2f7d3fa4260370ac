// bench/peers: the @temporalio/ai-sdk worker (SDK 1.23, its own node_modules: npm install --prefix bench/peers/ai-sdk).
//   node bench/peers/ai-sdk/worker.js <temporal address> <task queue> <model base URL> <workspace>
// AiSdkPlugin registers the model activities (an OpenAI-compatible provider against the bench's scripted model);
// readFile returns the same numbered ~2 KB pages as Hermes's read_file. Prints "ready" once polling.
const { readFileSync } = require('node:fs');
const path = require('node:path');
const { createOpenAICompatible } = require('@ai-sdk/openai-compatible');
const { AiSdkPlugin } = require('@temporalio/ai-sdk');
const { DefaultLogger, NativeConnection, Runtime, Worker } = require('@temporalio/worker');

const [address, taskQueue, baseURL, workspace] = process.argv.slice(2);

async function readFile({ path: file, offset, limit }) {
  const lines = readFileSync(path.join(workspace, file), 'utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  const total = lines.length;
  const end = Math.min(total, offset - 1 + limit);
  const width = Math.max(4, String(end).length);
  const body = lines.slice(offset - 1, end).map((line, i) => `${String(offset + i).padStart(width)}| ${line}`);
  const more = end < total ? `; ${total - end} more — call read_file with offset=${end + 1} for the next page` : '; end of file';
  return `${body.join('\n')}\n[lines ${offset}-${end} of ${total}${more}]`;
}

async function main() {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const connection = await NativeConnection.connect({ address });
  const provider = createOpenAICompatible({ name: 'mock', baseURL, apiKey: 'not-set' });
  const worker = await Worker.create({
    plugins: [new AiSdkPlugin({ modelProvider: provider })],
    connection,
    taskQueue,
    workflowsPath: require.resolve('./workflows'),
    activities: { readFile },
    maxConcurrentActivityTaskExecutions: 100,
  });
  await worker.runUntil(
    new Promise((resolve) => {
      console.log('ready');
      process.once('SIGTERM', resolve);
    }),
  );
  await connection.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
