// A worker thread of the scan pool (scan-pool.ts): one parser, one file per
// message, the file's tree freed between messages (each message is its own
// turn of the event loop, so the tree's finalizer runs).
import { parentPort, workerData } from 'node:worker_threads';
import { scanFile, type FileRequest } from './scan-file.ts';
import { namesOf } from './scan-sources.ts';
import { TreeMemory } from './tree-memory.ts';

export interface WorkerRequest {
  id: number;
  request: FileRequest;
}

export type WorkerReply = { id: number; scan: ReturnType<typeof scanFile> } | { id: number; error: string };

const names = namesOf((workerData as { paths: string[] }).paths);
// Collects now and then; the yield it needs comes between messages.
const trees = new TreeMemory();
parentPort!.on('message', ({ id, request }: WorkerRequest) => {
  try {
    parentPort!.postMessage({ id, scan: scanFile(request, names) } satisfies WorkerReply);
    trees.parsed(request.bytes.byteLength);
  } catch (error) {
    parentPort!.postMessage({ id, error: `${request.path}: ${error instanceof Error ? error.stack ?? error.message : String(error)}` } satisfies WorkerReply);
  }
});
