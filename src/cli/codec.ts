// `hermes codec-server`: serves the Temporal codec-server endpoints with this machine's payload key, so the Web UI
// and the stock `temporal` CLI (`--codec-endpoint`) show encrypted histories in clear to whoever runs it.
import { parseArgs } from 'node:util';
import { payloadCodec } from '../codec';
import { DEFAULT_CODEC_PORT, startCodecServer } from '../codec/server';
import { UsageError } from './common';

export async function codecServer(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      origin: { type: 'string', multiple: true },
      token: { type: 'string' },
    },
  });
  const port = values.port === undefined ? DEFAULT_CODEC_PORT : Number(values.port.trim() || NaN);
  if (!(Number.isInteger(port) && port >= 0 && port <= 65535))
    throw new UsageError(`--port must be a port number (0 for any free one), got "${values.port}"`);
  const codec = payloadCodec();
  if (!codec) {
    throw new UsageError('hermes codec-server needs the payload key the workers encrypt with: set HERMES_PAYLOAD_KEY (or HERMES_PAYLOAD_KEY_FILE)');
  }
  const uiPort = process.env.HERMES_UI_PORT || '8233';
  const origins = values.origin?.length
    ? values.origin.flatMap((o) => o.split(',').map((s) => s.trim().replace(/\/+$/, ''))).filter(Boolean)
    : [`http://localhost:${uiPort}`, `http://127.0.0.1:${uiPort}`];
  const token = values.token ?? (process.env.HERMES_CODEC_TOKEN || undefined);
  const s = await startCodecServer({
    codec,
    port,
    host: values.host ?? '127.0.0.1',
    origins,
    ...(token ? { token } : {}),
    onError: (m) => process.stderr.write(`codec-server: ${m}\n`),
  });
  const auth = !token ? '' : values.token === undefined ? ` --codec-auth "Bearer $HERMES_CODEC_TOKEN"` : ` --codec-auth "Bearer <token>"`;
  process.stderr.write(
    `hermes codec server on ${s.url} (key ${codec.keyId}${codec.keyIds.length > 1 ? `, decrypts ${codec.keyIds.join(', ')}` : ''}; ` +
      `${token ? 'bearer token required' : 'no token'})\n` +
      `  stock CLI: temporal workflow show -w <id> --codec-endpoint ${s.url}${auth}\n` +
      `  Web UI (${origins.join(', ')}): set the codec server endpoint to ${s.url}\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await s.close();
  return 0;
}
