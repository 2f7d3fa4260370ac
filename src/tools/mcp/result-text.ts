// An MCP tool result as the text a tool result is: text blocks as they are, other blocks described in a line
// (the model cannot see an image through a text result, but it should know one came back).

interface Block {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
}

export interface McpCallResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
}

/** Bytes of base64 data, without decoding it. */
function base64Bytes(data = ''): number {
  const pad = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - pad);
}

function blockText(b: Block): string {
  switch (b.type) {
    case 'text':
      return b.text ?? '';
    case 'image':
    case 'audio':
      return `[${b.type}: ${b.mimeType ?? 'unknown type'}, ${base64Bytes(b.data)} bytes]`;
    case 'resource': {
      const r = b.resource ?? {};
      if (typeof r.text === 'string') return `[resource ${r.uri ?? ''}${r.mimeType ? ` (${r.mimeType})` : ''}]\n${r.text}`;
      return `[resource ${r.uri ?? ''}: ${r.mimeType ?? 'binary'}, ${base64Bytes(r.blob)} bytes]`;
    }
    case 'resource_link':
      return `[resource link: ${b.uri ?? ''}${b.name ? ` (${b.name})` : ''}${b.mimeType ? `, ${b.mimeType}` : ''}]`;
    default:
      return `[${b.type} content]`;
  }
}

/** The result's content blocks joined by newlines; structured content as JSON when there are no blocks. */
export function flattenContent(result: McpCallResult): string {
  const blocks = (result.content ?? []) as Block[];
  if (blocks.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent, null, 2);
  return blocks.map(blockText).join('\n');
}
