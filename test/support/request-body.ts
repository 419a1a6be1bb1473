// A fake server's view of a request body: JSON when it parses, else the text; undefined when empty.
import type { IncomingMessage } from 'node:http';

export async function readRequestBody(request: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
