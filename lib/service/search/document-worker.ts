import { parentPort } from 'node:worker_threads';
import type { FetchedPage } from './backend.ts';
import { buildDocument } from './document.ts';
import { UnparseablePage } from './unparseable-page.ts';

/**
 * A document-building thread of DocumentBuilder (documents.ts): parses, extracts and detects the
 * language of one fetched page a message. `null`, sent after the last page, asks it to end: it
 * closes its port, and with nothing left to do the thread ends by itself (see DocumentBuilder.close).
 */
export type BuildRequest = { id: number; page: FetchedPage } | null;
export type BuildReply =
  { id: number; doc: ReturnType<typeof buildDocument> } | { id: number; unparseable: string } | { id: number; error: string };

parentPort?.on('message', (request: BuildRequest) => {
  if (request === null) return parentPort?.close();
  const { id, page } = request;
  let reply: BuildReply;
  try {
    reply = { id, doc: buildDocument(page) };
  } catch (err) {
    reply = err instanceof UnparseablePage ? { id, unparseable: err.why } : { id, error: (err as Error).stack ?? String(err) };
  }
  parentPort?.postMessage(reply);
});
