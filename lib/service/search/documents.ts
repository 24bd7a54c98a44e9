import { Worker } from 'node:worker_threads';
import type { FetchedPage } from './backend.ts';
import { buildDocument, UnparseablePage, type PageDocument } from './document.ts';
import type { BuildReply, BuildRequest } from './document-worker.ts';

type Pending = { url: string; resolve: (doc: PageDocument) => void; reject: (err: Error) => void };
type Slot = { worker: Worker; pending: Map<number, Pending> };

/**
 * Builds documents from fetched pages (document.ts) on `threads` worker threads, so that parsing
 * and language detection, most of the cost of adding a page, use every core while the index
 * writer stores what is ready; with 0 threads, in the calling thread. A page that cannot be used
 * rejects with UnparseablePage, as buildDocument throws it.
 */
export class DocumentBuilder {
  readonly #workers: Slot[] = [];
  #next = 0;

  constructor(threads: number) {
    for (let i = 0; i < threads; i++) {
      const worker = new Worker(new URL('./document-worker.ts', import.meta.url));
      const pending = new Map<number, Pending>();
      worker.on('message', (m: BuildReply) => {
        const p = pending.get(m.id);
        pending.delete(m.id);
        if (!p) return;
        if ('doc' in m) p.resolve(m.doc);
        else if ('unparseable' in m) p.reject(new UnparseablePage(p.url, m.unparseable));
        else p.reject(new Error(`building a document failed: ${m.error}`));
      });
      const failAll = (err: Error) => {
        for (const p of pending.values()) p.reject(err);
        pending.clear();
      };
      worker.on('error', failAll);
      worker.on('exit', (code) => failAll(new Error(`document thread exited with code ${code}`)));
      this.#workers.push({ worker, pending });
    }
  }

  build(page: FetchedPage): Promise<PageDocument> {
    if (!this.#workers.length) {
      try {
        return Promise.resolve(buildDocument(page));
      } catch (err) {
        return Promise.reject(err as Error);
      }
    }
    // The thread with the fewest pages in flight.
    let slot = this.#workers[0] as Slot;
    for (const w of this.#workers) if (w.pending.size < slot.pending.size) slot = w;
    const id = ++this.#next;
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { url: page.url, resolve, reject });
      slot.worker.postMessage({ id, page } satisfies BuildRequest);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.#workers.map((w) => w.worker.terminate()));
  }
}
