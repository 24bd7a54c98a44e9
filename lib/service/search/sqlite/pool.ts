import { Worker } from 'node:worker_threads';
import type { SearchAnswer, SearchRequest } from '../backend.ts';
import type { WorkerData, WorkerReply, WorkerRequest } from './worker.ts';

type Pending = { resolve: (r: SearchAnswer) => void; reject: (e: Error) => void };
/** A worker, its searches in flight, and whether it has read what a first search reads (worker.ts). */
type Slot = { worker: Worker; pending: Map<number, Pending>; warm: Promise<void>; isWarm: boolean };

/**
 * A few worker threads that run searches (worker.ts), each on its own read-only connection to the
 * WAL database, so that concurrent searches use every core and the event loop that serves HTTP is
 * never blocked by one. A search goes to the worker with the fewest in flight. A worker that dies
 * fails its searches and is replaced; errors come back as rejections (the backend maps them).
 */
export class QueryPool {
  readonly #data: WorkerData;
  readonly #slots: Slot[] = [];
  #next = 0;
  #closed = false;

  /** `listCacheBytes`: each worker's reader's cache of posting lists (query.ts). */
  constructor(file: string, size: number, options: { listCacheBytes?: number } = {}) {
    this.#data = { file, listCacheBytes: options.listCacheBytes };
    for (let i = 0; i < size; i++) this.#slots.push(this.#spawn());
  }

  get size(): number {
    return this.#slots.length;
  }

  #spawn(): Slot {
    const worker = new Worker(new URL('./worker.ts', import.meta.url), { workerData: this.#data });
    const { promise: warm, resolve } = Promise.withResolvers<void>();
    const slot: Slot = { worker, pending: new Map(), warm, isWarm: false };
    const warmed = () => {
      slot.isWarm = true;
      resolve();
    };
    worker.on('message', (m: WorkerReply) => {
      if ('warm' in m) return warmed();
      const p = slot.pending.get(m.id);
      if (!p) return;
      slot.pending.delete(m.id);
      if (slot.pending.size === 0) worker.unref();
      if ('error' in m) p.reject(new Error(m.error));
      else p.resolve(m.answer as SearchAnswer);
    });
    worker.on('error', (err) => this.#failAll(slot, err));
    worker.on('exit', (code) => {
      warmed();
      this.#failAll(slot, new Error(`search worker exited with code ${code}`));
      const i = this.#slots.indexOf(slot);
      if (i >= 0 && !this.#closed) this.#slots[i] = this.#spawn();
    });
    // Idle workers must not keep the process alive (a worker with searches in flight does).
    worker.unref();
    return slot;
  }

  #failAll(slot: Slot, err: Error): void {
    for (const p of slot.pending.values()) p.reject(err);
    slot.pending.clear();
  }

  /** Whether a worker is still reading what a first search reads (worker.ts). */
  get warming(): boolean {
    return this.#slots.some((s) => !s.isWarm);
  }

  /** Resolves once every worker has read what a first search reads, or failed to (worker.ts). */
  async warm(): Promise<void> {
    await Promise.all(this.#slots.map((s) => s.warm));
  }

  search(req: SearchRequest): Promise<SearchAnswer> {
    if (this.#closed) return Promise.reject(new Error('search pool closed'));
    let slot = this.#slots[0] as Slot;
    for (const s of this.#slots) if (s.pending.size < slot.pending.size) slot = s;
    const id = ++this.#next;
    return new Promise((resolve, reject) => {
      if (slot.pending.size === 0) slot.worker.ref();
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ id, req } satisfies WorkerRequest);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#slots.map((s) => s.worker.terminate()));
  }
}
