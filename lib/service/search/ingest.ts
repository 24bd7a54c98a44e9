import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { FetchedPage, IndexWriter, UpsertOutcome } from './backend.ts';
import { UnparseablePage } from './unparseable-page.ts';
import { DocumentBuilder } from './documents.ts';
import { crawl, type CrawlOptions } from './sources/crawler.ts';
import { folderPages } from './sources/folder.ts';
import { openWarcFile, warcPages, warcRecords } from './sources/warc.ts';

/**
 * `npm run index` without the terminal: feeds pages from each source into an IndexWriter and
 * counts what happened. A page that cannot be used is reported and skipped; a source that cannot
 * be read at all is reported and the others still run.
 */
export type IngestOptions = {
  baseUrl?: string;
  crawl?: Partial<CrawlOptions>;
  /** Threads that build documents (0: in this one). */
  threads?: number;
};

export type IngestReport = {
  skipped(url: string, reason: string): void;
  sourceFailed(source: string, reason: string): void;
  /** `fraction` of the current source done (0..1) when known, with a label. */
  progress(source: string, fraction: number | null, pages: number): void;
};

export type IngestSummary = Record<UpsertOutcome, number> & { skipped: number; failedSources: number; seconds: number };

/** Pages being built ahead of the writer, at most: enough that the building threads go on while the
 * writer commits (every 1,000 pages) instead of waiting for it. At 64, reading 10⁵ pages kept 1.8
 * of two cores busy; at 512, 1.9. With PageBuilds' threads kept busy too, a build takes about
 * 250 MB more (decision 0141). */
const AHEAD = 512;

export async function ingest(
  sources: readonly string[],
  writer: IndexWriter,
  opts: IngestOptions,
  report: IngestReport,
): Promise<IngestSummary> {
  const t0 = performance.now();
  const sum: IngestSummary = { added: 0, replaced: 0, merged: 0, skipped: 0, failedSources: 0, seconds: 0 };
  let pages = 0;
  const builder = new DocumentBuilder(opts.threads ?? 0);
  // Pages are built in parallel and stored in the order they came (the same index every run).
  // The first failure to store (not a page that cannot be used: a bug or a broken index) stops
  // the storing and is thrown at the end.
  const queue: Promise<void>[] = [];
  let failure: { err: unknown } | null = null;
  const take = async (page: FetchedPage) => {
    // Settled into a value at once: a page that fails to build may do so before its turn to be stored.
    const built = builder.build(page).then(
      (doc) => ({ doc }),
      (err: unknown) => ({ err }),
    );
    const stored = (queue.at(-1) ?? Promise.resolve()).then(async () => {
      if (failure) return;
      const b = await built;
      try {
        if ('err' in b) throw b.err;
        sum[writer.upsert(b.doc)]++;
        pages++;
      } catch (err) {
        if (!(err instanceof UnparseablePage)) failure = { err };
        else {
          sum.skipped++;
          report.skipped(page.url, err.why);
        }
      }
    });
    queue.push(stored);
    if (queue.length >= AHEAD) await queue.shift();
  };
  for (const source of sources) {
    try {
      if (/^https?:\/\//i.test(source)) {
        await crawl([source], opts.crawl ?? {}, {
          page: (p) => void take(p),
          skip: (url, reason) => {
            sum.skipped++;
            report.skipped(url, reason);
          },
          progress: (done, total) => report.progress(source, total ? done / total : null, pages),
        });
        continue;
      }
      const info = await stat(source).catch((err: NodeJS.ErrnoException) => {
        throw err.code === 'ENOENT' ? new Error(`no such file or folder (${resolve(source)})`) : err;
      });
      if (info.isDirectory()) {
        if (!opts.baseUrl) throw new Error('a folder of HTML files needs --base-url (the address its files are served under)');
        for await (const p of folderPages(source, opts.baseUrl)) {
          await take(p);
          report.progress(source, null, pages);
        }
        continue;
      }
      let read = 0;
      const skippedBytes = { bytes: 0 };
      const stream = await openWarcFile(source, (n) => (read = n));
      for await (const item of warcPages(warcRecords(stream, skippedBytes))) {
        if ('page' in item) await take(item.page);
        else {
          sum.skipped++;
          report.skipped(item.url ?? source, item.skip);
        }
        report.progress(source, info.size ? read / info.size : null, pages);
      }
      if (skippedBytes.bytes) report.skipped(source, `${skippedBytes.bytes} bytes that are not WARC records were passed over`);
    } catch (err) {
      sum.failedSources++;
      report.sourceFailed(source, (err as Error).message);
    }
  }
  await Promise.all(queue);
  await builder.close();
  if (failure) throw (failure as { err: unknown }).err;
  sum.seconds = (performance.now() - t0) / 1000;
  return sum;
}
