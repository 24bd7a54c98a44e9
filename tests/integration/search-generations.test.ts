import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { SearchAnswer } from '#service/search/backend.ts';
import { SqliteSearchBackend } from '#service/search/sqlite/backend.ts';
import { GenerationalSearchBackend } from '#service/search/sqlite/generation-backend.ts';
import { eventually } from '../helpers/eventually.ts';
import { startRedis, type TestRedis } from '../helpers/redis.ts';
import { page, runIndex, runIndexAsync, search } from '../helpers/search.ts';
import { startService, type ServiceProcess } from '../helpers/service.ts';

const TOPICS = ['kettle descaling', 'router setup', 'pg_stat_activity view', 'asyncio gather', 'tea brewing', 'falcot handbook'];
const SECRET = 'a-cluster-secret-of-at-least-32-characters';

/** A site whose every page says which edition it is, so that every answer tells its generation apart. */
function site(edition: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'periscope-site-'));
  TOPICS.forEach((t, i) =>
    writeFileSync(
      join(dir, `p${i}.html`),
      page(`${t} (edition ${edition})`, `<h1>${t}</h1><p>All about ${t} in edition ${edition}, and some words on kettles.</p>`),
    ),
  );
  return dir;
}

/**
 * `npm run index` of edition `edition` into the folder of generations; returns its output. It runs
 * beside this process, which keeps serving its keep-alive connections to the nodes meanwhile.
 */
async function publish(dir: string, edition: number, env: Record<string, string> = {}): Promise<string> {
  const r = await runIndexAsync(
    mkdtempSync(join(tmpdir(), 'periscope-indexer-')),
    [site(edition), '--base-url', 'https://docs.test/', '--quiet'],
    {
      SEARCH_INDEX_DIR: dir,
      ...env,
    },
  );
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

/** The answers of one generation, straight from its file. */
async function answersOf(file: string): Promise<Map<string, SearchAnswer>> {
  const b = new SqliteSearchBackend(file, { cacheSize: 0, immutable: true });
  try {
    return new Map(await Promise.all(TOPICS.map(async (q) => [q, await b.search({ query: q, language: 'en', limit: 10 })] as const)));
  } finally {
    b.close();
  }
}

describe('index generations on one node', () => {
  it('a search running during the swap answers whole from one generation; after it, every search answers from the new one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'periscope-generations-'));
    const first = await publish(dir, 1);
    assert.match(first, /published generation gen-000001\.db in /);
    assert.match(first, new RegExp(`index .*gen-000001\\.db now holds ${TOPICS.length} pages\n$`), 'counted in the published generation');
    // No warm-up: the switch happens while the searches below are still running.
    const node = new GenerationalSearchBackend(dir, { cacheSize: 0, workers: 2, warmSearches: 0, warmThreads: false });
    try {
      assert.equal(await node.refresh(), true);
      assert.equal(node.generation, 'gen-000001.db');
      await publish(dir, 2);
      assert.equal(node.generation, 'gen-000001.db', 'a node switches only when it looks');
      const one = await answersOf(join(dir, 'gen-000001.db'));
      const two = await answersOf(join(dir, 'gen-000002.db'));
      for (const q of TOPICS) {
        assert.match(one.get(q)?.results[0]?.title ?? '', /edition 1/);
        assert.match(two.get(q)?.results[0]?.title ?? '', /edition 2/);
      }

      // Searches in flight on the old generation while the node switches.
      let switchedAt = Infinity;
      const running = Array.from({ length: 1200 }, async (_, i) => {
        const q = TOPICS[i % TOPICS.length] as string;
        const answer = await node.search({ query: q, language: 'en', limit: 10 });
        return { q, answer, at: performance.now() };
      });
      assert.equal(await node.refresh(), true);
      switchedAt = performance.now();
      const afterwards = await Promise.all(TOPICS.map((q) => node.search({ query: q, language: 'en', limit: 10 })));
      const done = await Promise.all(running);

      let finishedAfterSwitch = 0;
      for (const { q, answer, at } of done) {
        // Each began before the switch, so each answers whole from the old generation, even those it
        // answered after the node had switched (they kept its query workers until they were done).
        assert.deepEqual(answer, one.get(q));
        if (at > switchedAt) finishedAfterSwitch++;
      }
      assert.ok(finishedAfterSwitch > 0, 'some were still running when the node switched');
      assert.equal(node.generation, 'gen-000002.db');
      assert.deepEqual(
        afterwards,
        TOPICS.map((q) => two.get(q)),
      );
    } finally {
      node.close();
    }
  });

  it('switches to a new generation once its query threads have read what a first search reads', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'periscope-generations-'));
    await publish(dir, 1);
    const node = new GenerationalSearchBackend(dir, { cacheSize: 0, workers: 2 });
    try {
      assert.equal(await node.refresh(), true);
      await node.warm();
      await publish(dir, 2);
      assert.equal(await node.refresh(), true);
      assert.equal(node.generation, 'gen-000002.db');
      assert.deepEqual(await node.stats(), { pages: TOPICS.length }, 'not warming');
    } finally {
      node.close();
    }
  });

  it('before any generation is published a node answers like a fresh install, finds the first one when it looks, and warms it first', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'periscope-generations-'));
    const node = new GenerationalSearchBackend(dir, { cacheSize: 10 });
    try {
      assert.deepEqual(await node.search({ query: 'kettle', language: 'en', limit: 10 }), { results: [] });
      assert.deepEqual(await node.stats(), { pages: 0 });
      await publish(dir, 1);
      assert.equal(await node.refresh(), true);
      assert.equal(node.warmed, 1, 'the search it answered before ran on the new generation before the switch');
      assert.deepEqual(await node.stats(), { pages: TOPICS.length });
    } finally {
      node.close();
    }
  });
});

describe('npm run index with SEARCH_INDEX_DIR', () => {
  it('a run that reads no page publishes nothing and leaves the current generation; --from needs the folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'periscope-generations-'));
    await publish(dir, 1);
    const dataDir = mkdtempSync(join(tmpdir(), 'periscope-indexer-'));
    const r = runIndex(dataDir, [join(dataDir, 'no-such.warc.gz'), '--quiet'], { SEARCH_INDEX_DIR: dir });
    assert.equal(r.status, 1);
    assert.match(r.stdout, /nothing new to publish in .*: gen-000001\.db stays current/);
    assert.deepEqual(readdirSync(dir).sort(), ['CURRENT', 'gen-000001.db']);
    const from = runIndex(dataDir, ['--from', join(dir, 'gen-000001.db')]);
    assert.equal(from.status, 2);
    assert.match(from.stderr, /--from needs SEARCH_INDEX_DIR/);
  });
});

describe('several service nodes over one folder of index generations', () => {
  let redis: TestRedis;
  let dir: string;
  const nodes: ServiceProcess[] = [];
  const tokens: string[] = [];

  const title = async (i: number) => {
    const r = await search(nodes[i]!.url, tokens[i]!, { query: 'kettle descaling', language: 'en' });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    return (r.json.results as { title: string }[])[0]?.title ?? '';
  };
  const start = async (env: Record<string, string>) => {
    const node = await startService({ SEARCH_INDEX_DIR: dir, BROWSER_POOL_SIZE: '0', SEARCH_WORKERS: '1', ...env });
    nodes.push(node);
    tokens.push(node.createKey({ ratePerMinute: 1000 }).token);
    return node;
  };
  const subscribed = (node: ServiceProcess) => node.logs.some((l) => l.msg === 'listening for new search index generations through Redis');

  before(async () => {
    redis = await startRedis();
    dir = mkdtempSync(join(tmpdir(), 'periscope-shared-index-'));
    await publish(dir, 1);
    // Only news through Redis can make these two switch within seconds: their own checks are 5 minutes apart.
    const cluster = { REDIS_URL: redis.url, CLUSTER_SECRET: SECRET, SEARCH_INDEX_CHECK_SECONDS: '300' };
    await Promise.all([start({ ...cluster, NODE_ID: 'node-1' }), start({ ...cluster, NODE_ID: 'node-2' })]);
  });

  after(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await redis?.stop();
  });

  it('a re-index switches every node to the new generation at once, through Redis', async () => {
    assert.deepEqual([await title(0), await title(1)], ['kettle descaling (edition 1)', 'kettle descaling (edition 1)']);
    assert.ok((await eventually(() => nodes.every(subscribed), Boolean)) === true, 'both nodes subscribed');
    const out = await publish(dir, 2, { REDIS_URL: redis.url, CLUSTER_SECRET: SECRET });
    assert.match(out, /published generation gen-000002\.db in .*; 2 nodes told through Redis/);
    const titles = await eventually(
      async () => [await title(0), await title(1)],
      (t) => t.every((x) => x.endsWith('(edition 2)')),
    );
    assert.deepEqual(titles, ['kettle descaling (edition 2)', 'kettle descaling (edition 2)']);
    for (const n of nodes)
      assert.ok(
        n.logs.some(
          (l) =>
            l.msg === 'search index generation switched' &&
            l.why === 'announced gen-000002.db' &&
            l.generation === 'gen-000002.db' &&
            l.warmed === 1,
        ),
      );
    // Nothing superseded is removed while nodes may still answer from it (the grace period).
    assert.deepEqual(readdirSync(dir).sort(), ['CURRENT', 'gen-000001.db', 'gen-000002.db']);
  });

  it('a node that hears no news finds the current generation as it starts and catches up by its own checks', async () => {
    // No Redis at all: a node cut off from the news, checking every second.
    await start({ SEARCH_INDEX_CHECK_SECONDS: '1' });
    assert.equal(await title(2), 'kettle descaling (edition 2)');
    const out = await publish(dir, 3, { REDIS_URL: redis.url, CLUSTER_SECRET: SECRET });
    assert.match(out, /2 nodes told through Redis/);
    const titles = await eventually(
      async () => [await title(0), await title(1), await title(2)],
      (t) => t.every((x) => x.endsWith('(edition 3)')),
    );
    assert.deepEqual(titles, ['kettle descaling (edition 3)', 'kettle descaling (edition 3)', 'kettle descaling (edition 3)']);
    assert.ok(nodes[2]!.logs.some((l) => l.msg === 'search index generation switched' && l.why === 'periodic check'));
  });
});
