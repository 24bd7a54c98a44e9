import { Worker } from 'node:worker_threads';
import type { FetchedPage } from './backend.ts';
import type { PageDocument } from './document.ts';
import type { BuildReply, BuildRequest } from './document-worker.ts';
import { UnparseablePage } from './unparseable-page.ts';

/** Each document thread's young generation, in MB (see DocumentBuilder). */
const YOUNG_MB = 32;

type Pending = { url: string; resolve: (doc: PageDocument) => void; reject: (err: Error) => void };
/** A thread, its pages in flight, and its end (with its exit code). */
type Slot = { worker: Worker; pending: Map<number, Pending>; exited: Promise<number> };

/**
 * Builds documents from fetched pages (document.ts) on `threads` worker threads, so that parsing
 * and language detection, most of the cost of adding a page, use every core while the index
 * writer stores what is ready; with 0 threads, in the calling thread. A page that cannot be used
 * rejects with UnparseablePage, as buildDocument throws it.
 *
 * Memory: document.ts is loaded only where documents are built, as its language detector's n-gram
 * tables take about 180 MB in every thread that loads them (a caller with worker threads never
 * does). Each thread's young generation is held to YOUNG_MB: on a machine with much memory V8 lets
 * a worker's grow to 192 MB, which a page's garbage does not need (parsing is no slower).
 *
 * Ending: close() asks each thread to end and waits until it has, never terminating one. A thread
 * loads document.ts through the language detector's top-level await, and Node 24 aborts the whole
 * process ("Check failed: (location_) != nullptr" in SourceTextModule::AsyncModuleExecutionFulfilled)
 * when a worker is terminated just as such a module finishes evaluating: a run that reads a page or
 * two (a crawl stopped by --max-pages) closes its builder while the threads are still loading.
 */
export class DocumentBuilder {
  readonly #workers: Slot[] = [];
  #next = 0;
  #local: Promise<(page: FetchedPage) => PageDocument> | null = null;
  #closed = false;

  constructor(threads: number) {
    for (let i = 0; i < threads; i++) {
      const worker = new Worker(new URL('./document-worker.ts', import.meta.url), {
        resourceLimits: { maxYoungGenerationSizeMb: YOUNG_MB },
      });
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
      const exited = new Promise<number>((resolve) =>
        worker.on('exit', (code) => {
          failAll(new Error(`document thread exited with code ${code}`));
          resolve(code);
        }),
      );
      this.#workers.push({ worker, pending, exited });
    }
  }

  build(page: FetchedPage): Promise<PageDocument> {
    if (this.#closed) return Promise.reject(new Error('the document builder is closed'));
    if (!this.#workers.length) {
      this.#local ??= import('./document.ts').then((m) => m.buildDocument);
      return this.#local.then((build) => build(page));
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

  /**
   * Ends the threads once they have answered every page sent before (a thread that has not loaded
   * yet first loads, then answers them). Resolves with each thread's exit code: 0 for one that
   * ended as asked, other for one that had failed.
   */
  async close(): Promise<number[]> {
    this.#closed = true;
    for (const { worker } of this.#workers) worker.postMessage(null satisfies BuildRequest);
    return Promise.all(this.#workers.map((w) => w.exited));
  }
}
