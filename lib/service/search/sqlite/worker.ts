import { parentPort, workerData } from 'node:worker_threads';
import type { SearchRequest } from '../backend.ts';
import { IndexReader } from './query.ts';

/**
 * A query worker (see pool.ts): its own read-only connection to the index, answering one search a
 * message. The connection is opened as the worker starts, so the first searches do not wait for
 * it, and again on the next message after a failure, so a missing or broken index gives errors,
 * not a dead worker.
 */
export type WorkerRequest = { id: number; req: SearchRequest };
export type WorkerReply = { id: number; answer: unknown } | { id: number; error: string };
/** What a worker is started with: the index, and its reader's options (query.ts). */
export type WorkerData = { file: string; listCacheBytes?: number };

const { file, listCacheBytes } = workerData as WorkerData;
let reader: IndexReader | null = null;
try {
  reader = new IndexReader(file, { listCacheBytes });
} catch {
  // Reported by the first search that tries again.
}

parentPort?.on('message', (msg: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    reader ??= new IndexReader(file, { listCacheBytes });
    reply = { id: msg.id, answer: reader.search(msg.req) };
  } catch (err) {
    reader?.close();
    reader = null;
    reply = { id: msg.id, error: (err as Error).message };
  }
  parentPort?.postMessage(reply);
});
