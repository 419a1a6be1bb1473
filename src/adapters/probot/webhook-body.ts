// The webhook's body, read with a cap before it is buffered: GitHub sends at most 25 MB,
// and an unsigned 300 MB body must not cost the App gigabytes of memory (issue 9).
import type { IncomingMessage } from 'node:http';

export const MAX_WEBHOOK_BYTES = 25 * 1024 * 1024;

export class BodyTooLargeError extends Error {}

/** The body as text, or BodyTooLargeError as soon as the declared or the received size passes `maxBytes`. */
export function readCappedBody(request: IncomingMessage, maxBytes = MAX_WEBHOOK_BYTES): Promise<string> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.reject(tooLarge(maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    request.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) {
        chunks.length = 0;
        request.removeAllListeners('data');
        request.resume(); // drained, not kept, until the answer closes the connection
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    });
    request.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.once('error', reject);
  });
}

function tooLarge(maxBytes: number): BodyTooLargeError {
  return new BodyTooLargeError(`the request body is larger than ${maxBytes / 1024 / 1024} MB, the most GitHub sends`);
}
