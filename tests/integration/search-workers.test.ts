import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BackendUnavailable } from '#service/search/backend.ts';
import { SqliteSearchBackend } from '#service/search/sqlite/backend.ts';
import { page, runIndex } from '../helpers/search.ts';

describe('search on query worker threads', () => {
  it('answers what the in-thread path answers, concurrently; an index that cannot open is BackendUnavailable', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'periscope-test-'));
    const file = join(dataDir, 'index.db');
    const pooled = new SqliteSearchBackend(file, { cacheSize: 0, workers: 2 });
    try {
      // A path no index can be opened at.
      const broken = new SqliteSearchBackend(join(dataDir, 'no', 'such', '\u0000'), { cacheSize: 0, workers: 2 });
      await assert.rejects(broken.search({ query: 'kettle', language: 'en', limit: 10 }), BackendUnavailable);
      broken.close();

      const site = mkdtempSync(join(tmpdir(), 'periscope-site-'));
      const topics = ['kettle descaling', 'router setup', 'pg_stat_activity view', 'asyncio gather', 'tea brewing', 'falcot handbook'];
      topics.forEach((t, i) =>
        writeFileSync(join(site, `p${i}.html`), page(t, `<h1>${t}</h1><p>All about ${t}, and some words on kettles.</p>`)),
      );
      const r = runIndex(dataDir, [site, '--base-url', 'https://docs.test/', '--quiet']);
      assert.equal(r.status, 0, r.stderr);

      const local = new SqliteSearchBackend(file, { cacheSize: 0, workers: 0 });
      const queries = [...topics, 'kettles', 'pg_stat_activity', 'nothing matches this'];
      const want = await Promise.all(queries.map((query) => local.search({ query, language: 'en', limit: 10 })));
      local.close();
      assert.equal(want[2]?.results[0]?.url, 'https://docs.test/p2.html');
      // Many at once: spread over both workers, each answer matched to its own request.
      const got = await Promise.all([...queries, ...queries].map((query) => pooled.search({ query, language: 'en', limit: 10 })));
      assert.deepEqual(got.slice(0, queries.length), want);
      assert.deepEqual(got.slice(queries.length), want);
      assert.deepEqual(await pooled.stats(), { pages: topics.length });

      // A fresh engine's workers read what a first search reads as they start, and say so.
      const fresh = new SqliteSearchBackend(file, { cacheSize: 0, workers: 2 });
      try {
        // No worker's message can come before this turn of the event loop ends.
        assert.deepEqual(await fresh.stats(), { pages: topics.length, warming: true });
        await fresh.warm();
        assert.deepEqual(await fresh.stats(), { pages: topics.length });
        assert.deepEqual(await fresh.search({ query: 'kettles', language: 'en', limit: 10 }), want[6]);
      } finally {
        fresh.close();
      }
      const missing = new SqliteSearchBackend(join(dataDir, 'no', 'such', '\u0000'), { cacheSize: 0, workers: 2 });
      await assert.rejects(missing.warm(), BackendUnavailable);
      missing.close();

      // Paging and site filters reach the workers: the same answers as in this thread.
      const paged = new SqliteSearchBackend(file, { cacheSize: 0, workers: 0 });
      const requests = [
        { query: 'kettles', language: 'en', limit: 2 },
        { query: 'kettles', language: 'en', limit: 2, offset: 2 },
        { query: 'kettles', language: 'en', limit: 10, sites: ['docs.test'] },
        { query: 'kettles', language: 'en', limit: 10, excludeSites: ['test'] },
      ];
      const alone = await Promise.all(requests.map((r) => paged.search(r)));
      paged.close();
      assert.deepEqual(alone[0]?.next, { offset: 2 });
      assert.equal(alone[2]?.results.length, topics.length);
      assert.deepEqual(alone[3], { results: [] });
      assert.deepEqual(await Promise.all(requests.map((r) => pooled.search(r))), alone);
    } finally {
      pooled.close();
    }
  });
});
