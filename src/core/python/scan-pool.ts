// Scans files on worker threads, one parser per worker: the files are
// independent until the call graph is joined (scan-sources.ts), so they
// spread over cores with nothing shared.
//
// Partial (issue 13): on the standard library two workers peak at some 1.3 GB
// resident (bench/scan.ts), twice the one-thread scan: each worker has its own
// heap and trees, and the main thread holds every result besides.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { FileRequest, FileScan } from './scan-file.ts';
import type { FileScanner } from './scan-sources.ts';
import type { WorkerReply } from './scan-worker.ts';

/** Files each worker holds queued: enough to never wait on a message, few enough to spread the large files. */
const IN_FLIGHT_PER_WORKER = 2;

/**
 * The worker runs this file's TypeScript sibling. Workers do not inherit the tsx loader the CLI and the
 * bench run under, so the worker registers it itself before importing.
 */
function startWorker(paths: readonly string[]): Worker {
  const entry = new URL('./scan-worker.ts', import.meta.url).href;
  const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { eval: true, workerData: { paths } });
}

export function workerPool(threads = Math.max(1, availableParallelism())): FileScanner {
  return {
    scanAll(requests: readonly FileRequest[], paths: readonly string[]): Promise<FileScan[]> {
      const results: FileScan[] = new Array(requests.length);
      const workers = Array.from({ length: Math.min(threads, Math.max(1, requests.length)) }, () => startWorker(paths));
      let next = 0;
      let done = 0;
      return new Promise<FileScan[]>((resolve, reject) => {
        const finish = (error?: Error): void => {
          for (const worker of workers) void worker.terminate();
          if (error) reject(error);
          else resolve(results);
        };
        const feed = (worker: Worker): void => {
          if (next < requests.length) {
            const id = next++;
            worker.postMessage({ id, request: requests[id] });
          }
        };
        if (requests.length === 0) return finish();
        for (const worker of workers) {
          worker.on('message', (reply: WorkerReply) => {
            if ('error' in reply) return finish(new Error(`scan worker failed on ${reply.error}`));
            results[reply.id] = reply.scan;
            if (++done === requests.length) return finish();
            feed(worker);
          });
          worker.on('error', (error) => finish(new Error(`scan worker crashed: ${error.message}`)));
          for (let i = 0; i < IN_FLIGHT_PER_WORKER; i++) feed(worker);
        }
      });
    },
  };
}
