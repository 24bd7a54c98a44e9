import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildDocument } from './document.ts';
import { UnparseablePage } from './unparseable-page.ts';
import { DocumentBuilder } from './documents.ts';

const page = (i: number) => ({
  url: `https://docs.test/p${i}.html`,
  html: `<!doctype html><html lang="en"><head><title>Page ${i}</title></head><body><main><h1>Page ${i}</h1><p>Text of page number ${i}, about kettles.</p></main></body></html>`,
});

describe('building documents', () => {
  for (const threads of [0, 2]) {
    it(`on ${threads} threads gives what buildDocument gives, each page its own, and rejects unusable pages as such`, async () => {
      const builder = new DocumentBuilder(threads);
      try {
        const pages = Array.from({ length: 40 }, (_, i) => page(i));
        const docs = await Promise.all(pages.map((p) => builder.build(p)));
        assert.deepEqual(
          docs,
          pages.map((p) => buildDocument(p)),
        );
        await assert.rejects(
          builder.build({ url: 'ftp://docs.test/x', html: '<p>x</p>' }),
          (err: unknown) =>
            err instanceof UnparseablePage && err.why === 'not an absolute http(s) address' && err.message.startsWith('ftp://docs.test/x'),
        );
        await assert.rejects(builder.build({ url: 'https://docs.test/bin', html: '\u0000'.repeat(200) }), UnparseablePage);
      } finally {
        await builder.close();
      }
    });
  }

  it('closed while its threads still load, answers the pages sent before and lets each thread end by itself', async () => {
    // Terminating a thread as its modules finish loading aborts Node (documents.ts): close() asks
    // the threads to end instead, so each ends with code 0 (a terminated thread's is 1), and the
    // pages in flight are built rather than failed.
    const builder = new DocumentBuilder(2);
    const pages = Array.from({ length: 6 }, (_, i) => page(i));
    const docs = Promise.all(pages.map((p) => builder.build(p)));
    assert.deepEqual(await builder.close(), [0, 0]);
    assert.deepEqual(
      await docs,
      pages.map((p) => buildDocument(p)),
    );
    await assert.rejects(builder.build(page(7)), /the document builder is closed/);
  });
});
