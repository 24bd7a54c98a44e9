import { DatabaseSync } from 'node:sqlite';
import { type MessagePort, workerData } from 'node:worker_threads';
import { type BuiltPage, PageBuilder } from './page-build.ts';

/**
 * A thread of PageBuilds (page-builds.ts): builds the pages (page-build.ts) of each batch of ids it
 * is sent, on a read-only connection of its own, and answers on `port` with them in one message,
 * then counts the answer in `answered[slot]`, where the writer's thread waits for it. `null` asks
 * it to close its connection, which it answers with `closed`: the writer's thread goes on only
 * then, as a generation's file may be published next, which wants no other connection to it.
 */
export type BuildWorkerData = { file: string; fullText: boolean; port: MessagePort; answered: Int32Array; slot: number };
export type BuildRequest = number[] | null;
export type BuildAnswer = { pages: BuiltPage[] } | { error: string } | { closed: true };

/** This thread's page cache, in KiB: the links of the pages it builds, read in page order. */
const CACHE_KB = 128 * 1024;

const { file, fullText, port, answered, slot } = workerData as BuildWorkerData;
const describe = (err: unknown) => (err instanceof Error ? (err.stack ?? err.message) : String(err));

// A connection that cannot be opened or prepared fails every batch with its reason: the writer's
// thread, which waits for the answers, learns it at once rather than waiting in vain.
let open: { db: DatabaseSync; builder: PageBuilder } | { failure: string };
try {
  const db = new DatabaseSync(file, { readOnly: true });
  db.exec(`PRAGMA busy_timeout = 5000; PRAGMA cache_size = -${CACHE_KB}`);
  open = { db, builder: new PageBuilder(db, { fullText }) };
} catch (err) {
  open = { failure: describe(err) };
}

port.on('message', (ids: BuildRequest) => {
  let answer: BuildAnswer;
  if (ids === null) {
    if ('db' in open) open.db.close();
    open = { failure: 'the connection was closed' };
    answer = { closed: true };
  } else if ('failure' in open) answer = { error: open.failure };
  else {
    const { db, builder } = open;
    try {
      // One snapshot a batch: a page and its text as one version of the index holds them.
      db.exec('BEGIN');
      try {
        answer = { pages: ids.map((id) => builder.build(id)) };
      } finally {
        db.exec('COMMIT');
      }
    } catch (err) {
      answer = { error: describe(err) };
    }
  }
  port.postMessage(answer);
  Atomics.add(answered, slot, 1);
  Atomics.notify(answered, slot);
});
