import { parentPort, workerData } from 'node:worker_threads';
import type { SearchRequest } from '../backend.ts';
import { IndexReader } from './query.ts';

/**
 * A query worker (see pool.ts): its own read-only connection to the index, answering one search a
 * message. The connection is opened as the worker starts, and what a first search would read is
 * read then (IndexReader.warm), so the first searches do not wait for either; the worker says
 * `{ warm: true }` once it has (or failed to: the first search tries again). The connection is
 * opened again on the next message after a failure, so a missing or broken index gives errors,
 * not a dead worker.
 */
export type WorkerRequest = { id: number; req: SearchRequest };
export type WorkerReply = { id: number; answer: unknown } | { id: number; error: string } | { warm: true };
/** What a worker is started with: the index, and its reader's options (query.ts). */
export type WorkerData = { file: string; listCacheBytes?: number };

const { file, listCacheBytes } = workerData as WorkerData;
let reader: IndexReader | null = null;
try {
  reader = new IndexReader(file, { listCacheBytes });
  reader.warm();
} catch {
  // Reported by the first search that tries again.
  reader?.close();
  reader = null;
}
parentPort?.postMessage({ warm: true } satisfies WorkerReply);

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
