import type { DatabaseSync } from 'node:sqlite';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { type BuiltPage, PageBuilder } from './page-build.ts';
import type { BuildAnswer, BuildRequest, BuildWorkerData } from './page-build-worker.ts';

/** Pages a thread builds per message: enough that a message's cost is nothing beside the work. */
const BATCH = 32;
/** Batches sent to each thread ahead of the one the writer waits for: enough that the threads go on
 * building while the writer spills its postings buffer or commits (seconds at a time), not only
 * between them. At 4 (128 pages a thread), indexing the text of 10⁵ pages kept 1.7 of two cores
 * busy, each thread idle 29 % of the time; at 48, 1.9 (decision 0141). A built page is about
 * 32 KB as a message, so the threads' answers waiting take about 100 MB. */
const AHEAD = 48;
/** A thread that answers nothing for this long has failed (a batch takes well under a second). */
const STALL_MS = 5 * 60_000;

type Thread = { worker: Worker; port: MessagePort };

/**
 * Builds the pages the index writer stores in finish() (page-build.ts), in the order asked, on
 * `threads` threads of their own beside the writer's, or in the writer's thread with 0 (or for an
 * index in memory, which no other connection can open). Until decision 0086, finish() did all of
 * this in one thread while the other cores stood idle: more than half of a large index's build.
 *
 * finish() is synchronous, and so is this: the writer's thread waits for each batch's answer with
 * Atomics.wait and takes it with receiveMessageOnPort, while the threads build the batches after it.
 * The threads read with connections of their own, each batch in one snapshot; they read only what
 * finish() does not write (pages, their text and links), and the writer commits everything it
 * stored before they start.
 */
export class PageBuilds {
  readonly #threads: Thread[] = [];
  readonly #answered: Int32Array;
  #local: PageBuilder | null = null;

  constructor(db: DatabaseSync, { threads, fullText }: { threads: number; fullText: boolean }) {
    const file = db.location();
    const n = file === null ? 0 : threads;
    this.#answered = new Int32Array(new SharedArrayBuffer(4 * Math.max(n, 1)));
    if (n === 0) this.#local = new PageBuilder(db, { fullText });
    for (let slot = 0; slot < n; slot++) {
      const { port1, port2 } = new MessageChannel();
      const data: BuildWorkerData = { file: file as string, fullText, port: port2, answered: this.#answered, slot };
      const worker = new Worker(new URL('./page-build-worker.ts', import.meta.url), { workerData: data, transferList: [port2] });
      worker.unref();
      this.#threads.push({ worker, port: port1 });
    }
  }

  /** The pages `ids`, built, in that order. */
  *pages(ids: readonly number[]): Generator<BuiltPage> {
    if (this.#local) {
      for (const id of ids) yield this.#local.build(id);
      return;
    }
    const batches = Math.ceil(ids.length / BATCH);
    const n = this.#threads.length;
    // Batch k goes to thread k % n, which answers its batches in the order they came.
    const send = (k: number) =>
      (this.#threads[k % n] as Thread).port.postMessage(ids.slice(k * BATCH, (k + 1) * BATCH) satisfies BuildRequest);
    let sent = 0;
    while (sent < batches && sent < n * AHEAD) send(sent++);
    for (let k = 0; k < batches; k++) {
      const answer = this.#receive(k % n);
      if (!('pages' in answer)) throw new Error(`building pages for the index failed: ${'error' in answer ? answer.error : 'closed'}`);
      if (sent < batches) send(sent++);
      yield* answer.pages;
    }
  }

  /** Thread `slot`'s next answer, waited for. */
  #receive(slot: number): BuildAnswer {
    const { port } = this.#threads[slot] as Thread;
    let waited = 0;
    for (;;) {
      const seen = Atomics.load(this.#answered, slot);
      const got = receiveMessageOnPort(port);
      if (got) return got.message as BuildAnswer;
      if (Atomics.wait(this.#answered, slot, seen, 1000) === 'timed-out' && (waited += 1000) >= STALL_MS)
        throw new Error(`a thread building pages for the index answered nothing for ${STALL_MS / 1000} s`);
    }
  }

  /** Ends the threads once each has closed its connection (answers still on their way are passed over). */
  close(): void {
    this.#local?.close();
    let failure: unknown = null;
    this.#threads.forEach((t, slot) => {
      try {
        t.port.postMessage(null satisfies BuildRequest);
        while (!('closed' in this.#receive(slot)));
      } catch (err) {
        failure ??= err;
      } finally {
        t.port.close();
        void t.worker.terminate();
      }
    });
    this.#threads.length = 0;
    if (failure) throw failure;
  }
}
