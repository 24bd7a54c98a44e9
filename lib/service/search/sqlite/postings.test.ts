import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import { buildDocument } from '../document.ts';
import { identifierWords } from '../identifier-words.ts';
import { parseQuery } from '../tokenize.ts';
import { FtsStage } from './first-stage.ts';
import { unpackText } from './packed-text.ts';
import { PageText } from './page-text.ts';
import { openIndexDatabase } from './schema.ts';
import { asWrittenBefore0085, postingsTablesBefore0145 } from './test-index-before-0085.ts';
import { indexContents } from './test-index-contents.ts';
import { joinPassages, packPostings, PASSAGE_BLOCK, unpackPostings } from './packed-postings.ts';
import { decodePostings, encodePostings, PACKED_POSTINGS_FORMAT, POSTINGS_FORMAT, PostingsStage, RAW_POSTINGS_FORMAT } from './postings.ts';
import { IndexReader } from './query.ts';
import { FtsTokenizer } from './tokenizer.ts';
import { SqliteIndexWriter } from './writer.ts';
import { heapAfterGc } from './test-heap.ts';

const dir = mkdtempSync(join(tmpdir(), 'periscope-postings-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const html = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;

/** Pages with words in different fields and amounts, so that BM25's idf, field weights and
 * length normalisation all matter. */
const WORDS = ['kettle', 'router', 'descaling', 'gather', 'replication', 'vacuum', 'brewing', 'firewall', 'checkpoint', 'running'];
function corpus(): { url: string; html: string }[] {
  const pages = [];
  for (let i = 0; i < 40; i++) {
    const a = WORDS[i % WORDS.length] as string;
    const b = WORDS[(i * 3 + 1) % WORDS.length] as string;
    const filler = 'plain words about nothing in particular '.repeat(1 + (i % 7));
    const body = `<p>${`${b} `.repeat(1 + (i % 4))}${filler}</p><p>Also ${WORDS[(i * 7) % WORDS.length]} runs and asyncio.gather here ${i % 5 === 0 ? 'pg_stat_activity' : ''}.</p>`;
    pages.push({ url: `https://docs.test/${a}/${i}.html`, html: html(`${a} ${i % 3 ? 'guide' : 'reference'}`, body) });
  }
  return pages;
}

/** With FTS5 rows too unless told (`fullText: false`): the reference the postings are checked against. */
function build(
  file: string,
  pages: readonly { url: string; html: string }[],
  options: { postingsBuffer?: number; fullText?: boolean } = {},
): void {
  const writer = new SqliteIndexWriter(file, { fullText: true, ...options });
  for (const p of pages) writer.upsert(buildDocument(p));
  writer.finish();
  writer.close();
}

/** Makes the postings of the index in `file` what a version before stored: each list with its
 * passages, raw or packed (format); the lists that have passages. */
function asStoredBefore(file: string, format: typeof RAW_POSTINGS_FORMAT | typeof PACKED_POSTINGS_FORMAT): number {
  const db = new DatabaseSync(file);
  const put = db.prepare('UPDATE postings SET data = ? WHERE term = ?');
  const blocks = db.prepare('SELECT data FROM term_passages WHERE term = ? ORDER BY block');
  let withPassages = 0;
  for (const r of db.prepare('SELECT term, data FROM postings').all()) {
    const term = r.term as string;
    const list = joinPassages(
      unpackPostings(r.data as Uint8Array),
      (blocks.all(term) as { data: Uint8Array }[]).map((b) => b.data),
    );
    if (list.places.length) withPassages++;
    put.run(format === RAW_POSTINGS_FORMAT ? encodePostings(list) : packPostings(list), term);
  }
  db.exec('DELETE FROM term_passages');
  db.prepare("UPDATE search_meta SET value = ? WHERE key = 'postings'").run(format);
  postingsTablesBefore0145(db);
  db.close();
  return withPassages;
}

const concepts = (q: string) => {
  const parsed = parseQuery(q);
  return { concepts: parsed.concepts.filter((c) => !c.stop), joins: parsed.joins };
};

/** Checks that the index in `apart` keeps every long list's passages in blocks and every short
 * list's in its row, and answers `queries` as the same index with every list held whole (`held`). */
function sameAsHeld(apart: string, held: string, queries: readonly string[]): void {
  const a = new DatabaseSync(apart, { readOnly: true });
  const b = new DatabaseSync(held, { readOnly: true });
  try {
    // A list longer than a block keeps its pages and frequencies alone, its passages (if it has
    // any: not a word of the address alone) in blocks; a shorter one holds its passages.
    const blocks = a.prepare('SELECT COUNT(*) AS n FROM term_passages WHERE term = ?');
    let [long, short] = [0, 0];
    for (const r of a.prepare('SELECT term, data FROM postings').all()) {
      const list = unpackPostings(r.data as Uint8Array);
      const n = (blocks.get(r.term as string) as { n: number }).n;
      assert.ok(!list.places.length || !n, `${r.term as string}: passages in one place`);
      if (n) {
        long++;
        assert.ok(list.docs.length > PASSAGE_BLOCK && n === Math.ceil(list.docs.length / PASSAGE_BLOCK), `${r.term as string}: apart`);
      } else if (list.places.length) {
        short++;
        assert.ok(list.docs.length <= PASSAGE_BLOCK, `${r.term as string}: whole`);
      }
    }
    assert.ok(long > 3 && short > 100, `${long} long lists, ${short} short`);
    const orphans = a.prepare('SELECT COUNT(*) AS n FROM term_passages WHERE term NOT IN (SELECT term FROM postings)').get() as {
      n: number;
    };
    assert.equal(orphans.n, 0, 'no blocks of a term the index no longer holds');
    const stored = new PostingsStage(a);
    const whole = new PostingsStage(b);
    assert.ok(stored.refresh() && whole.refresh());
    for (const q of queries) {
      const c = concepts(q);
      const ranked = stored.rank(c.concepts, c.joins, 1000);
      assert.deepEqual(ranked, whole.rank(c.concepts, c.joins, 1000), q);
      assert.ok(ranked.length >= 20, q);
      const ids = ranked.map((r) => r.id);
      // Far into the lists first, so that blocks are read out of order.
      const order = [...ids].reverse();
      assert.deepEqual([...stored.passageShares(order)], [...whole.passageShares(order)], q);
      assert.deepEqual([...stored.bestPassages(ids)], [...whole.bestPassages(ids)], q);
    }
  } finally {
    a.close();
    b.close();
  }
}

describe('postings', () => {
  const file = join(dir, 'index.db');
  build(file, corpus());
  const db = new DatabaseSync(file, { readOnly: true });
  const postings = new PostingsStage(db);
  const fts = new FtsStage(db);
  assert.equal(postings.refresh(), true, 'the writer completes the postings');

  it('rank every page as FTS5 bm25() does, with the same scores, for words typed apart', () => {
    for (const q of [
      'kettle',
      'router descaling',
      'vacuum brewing firewall',
      'running',
      'runs',
      'particular words',
      'nothing here matches zebra',
    ]) {
      const { concepts: c, joins } = concepts(q);
      const ours = postings.rank(c, joins, 100);
      const theirs = fts.rank(c, joins, 100);
      assert.equal(ours.length, theirs.length, q);
      const score = new Map(theirs.map((r) => [r.id, r.s]));
      for (const r of ours)
        assert.ok(Math.abs(r.s - (score.get(r.id) ?? NaN)) < 1e-6 * Math.max(1, r.s), `${q}: page ${r.id} ${r.s} vs ${score.get(r.id)}`);
      assert.deepEqual(
        ours.map((r) => r.s),
        [...ours.map((r) => r.s)].sort((a, b) => b - a),
        `${q}: best first`,
      );
    }
  });

  it('rank the same pages with the same scores and concepts held whether pruned (MaxScore) or not', () => {
    const pruned = new PostingsStage(db, { prune: 'always' });
    const every = new PostingsStage(db, { prune: 'never' });
    assert.equal(pruned.refresh(), true);
    assert.equal(every.refresh(), true);
    const words = [...WORDS, 'plain', 'particular', 'asyncio.gather', 'pg_stat_activity', 'runs', 'guide', 'reference'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    let skipped = 0;
    for (let q = 0; q < 300; q++) {
      const typed = words.filter(() => next() < 0.25).join(' ') || (words[q % words.length] as string);
      const { concepts: c, joins } = concepts(typed);
      const allowed = q % 5 === 0 ? Uint8Array.from({ length: 64 }, () => (next() < 0.5 ? 1 : 0)) : null;
      for (const k of [1, 5, 20]) {
        const want = every.rank(c, joins, k, allowed);
        const got = pruned.rank(c, joins, k, allowed);
        assert.deepEqual(got, want, `${typed} (k ${k})`);
        const ids = Array.from({ length: 45 }, (_, i) => i);
        assert.deepEqual(pruned.matched(ids), every.matched(ids), `${typed}: concepts held`);
        assert.deepEqual(pruned.covering(ids), every.covering(ids), `${typed}: every concept held`);
        assert.deepEqual(pruned.passageBounds(ids, every.worth()), every.passageBounds(ids, every.worth()), typed);
        const { scored, total } = pruned.scored;
        if (scored < total) skipped++;
      }
    }
    assert.ok(skipped > 0, 'some queries were answered without scoring every posting');
  });

  it('find every page holding all of the query, pruned or not, and none past the limit', () => {
    const pruned = new PostingsStage(db, { prune: 'always' });
    const every = new PostingsStage(db, { prune: 'never' });
    assert.equal(pruned.refresh(), true);
    assert.equal(every.refresh(), true);
    const words = [...WORDS, 'plain', 'particular', 'asyncio.gather', 'pg_stat_activity', 'runs', 'guide', 'reference', 'nowhere'];
    const ids = Array.from({ length: 64 }, (_, i) => i);
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    let some = 0;
    let none = 0;
    for (let q = 0; q < 200; q++) {
      const typed = words.filter(() => next() < 0.2).join(' ') || (words[q % words.length] as string);
      const { concepts: c, joins } = concepts(typed);
      // Every page holding all of it: those holding the whole share of its concepts.
      every.rank(c, joins, 1);
      const want = [...every.matched(ids)].filter(([, share]) => share === 1).map(([id]) => id);
      pruned.rank(c, joins, 1);
      assert.deepEqual([...(every.holdingAll(Infinity) ?? [])], want, typed);
      assert.deepEqual([...(pruned.holdingAll(Infinity) ?? [])], want, `${typed} (pruned)`);
      if (want.length) some++;
      else none++;
    }
    assert.ok(some > 20 && none > 20, `${some} queries held by some page, ${none} by none`);
    // One word: its pages; past the limit (below their number), none.
    for (const word of ['kettle', 'vacuum', 'pg_stat_activity']) {
      const { concepts: c, joins } = concepts(word);
      postings.rank(c, joins, 1);
      const held = postings.holdingAll(Infinity) as Uint32Array;
      assert.ok(held.length > 1, word);
      assert.deepEqual(postings.holdingAll(held.length), held, word);
      assert.equal(postings.holdingAll(held.length - 1), null, word);
    }
  });

  it('find the pages holding all of the query in FTS5 as in the postings, and none past the limit', () => {
    for (const q of ['router descaling', 'vacuum brewing firewall', 'pg_stat_activity kettle', 'kettle', 'particular words']) {
      const { concepts: c, joins } = concepts(q);
      postings.rank(c, joins, 5);
      fts.rank(c, joins, 5);
      const held = postings.holdingAll(Infinity) as Uint32Array;
      assert.deepEqual(fts.holdingAll(1000), held, q);
      if (held.length) assert.equal(fts.holdingAll(held.length - 1), null, q);
    }
  });

  it('score pages below the k best as a deeper rank() scores them, pruned or not, and in FTS5', () => {
    const pruned = new PostingsStage(db, { prune: 'always' });
    assert.equal(pruned.refresh(), true);
    for (const q of ['router descaling', 'vacuum brewing firewall', 'pg_stat_activity kettle', 'particular words']) {
      const { concepts: c, joins } = concepts(q);
      for (const [name, stage] of [
        ['postings', postings],
        ['pruned', pruned],
        ['fts', fts],
      ] as const) {
        const every = stage.rank(c, joins, 100);
        assert.ok(every.length > 6, q);
        // The pages ranked below the first three, and one that holds none of the query.
        const below = every.slice(3);
        const none = Array.from({ length: 45 }, (_, i) => i).find((id) => !every.some((r) => r.id === id)) as number;
        stage.rank(c, joins, 3);
        const scores = stage.scores([...below.map((r) => r.id), none]);
        assert.equal(scores.has(none), false, `${q} (${name}): a page holding none of it has no score`);
        for (const r of below)
          assert.ok(
            Math.abs((scores.get(r.id) ?? NaN) - r.s) < 1e-9 * Math.max(1, r.s),
            `${q} (${name}): page ${r.id} ${scores.get(r.id)} vs ${r.s}`,
          );
      }
    }
  });

  it('score one array of pages asked about again (the hubs) for each query anew, as rank() scores them', () => {
    const stage = new PostingsStage(db);
    assert.equal(stage.refresh(), true);
    const hubs = Array.from({ length: 45 }, (_, i) => 44 - i);
    let scored = 0;
    // Queries sharing terms and not, and the first again: what each list holds is remembered,
    // never what a query added up.
    for (const q of ['router descaling', 'vacuum brewing firewall', 'router kettle', 'router descaling']) {
      const { concepts: c, joins } = concepts(q);
      const every = new Map(postings.rank(c, joins, 1000).map((r) => [r.id, r.s]));
      stage.rank(c, joins, 10);
      for (let asked = 0; asked < 2; asked++) {
        const scores = stage.scores(hubs);
        for (const id of hubs) {
          const want = every.get(id);
          const got = scores.get(id);
          assert.ok(
            want === got || Math.abs((got ?? NaN) - (want ?? NaN)) < 1e-9 * Math.max(1, want ?? 0),
            `${q}: page ${id} ${got} vs ${want}`,
          );
        }
        scored += scores.size;
      }
    }
    assert.ok(scored > 0, 'the pages hold some of the queries');
  });

  it('answer the same with a cache of lists too small to keep any', () => {
    const forgetful = new PostingsStage(db, { cacheBytes: 1 });
    assert.equal(forgetful.refresh(), true);
    for (const q of ['kettle', 'router descaling', 'vacuum brewing firewall', 'pg_stat_activity kettle', 'kettle']) {
      forgetful.trim();
      const { concepts: c, joins } = concepts(q);
      const want = postings.rank(c, joins, 20);
      assert.deepEqual(forgetful.rank(c, joins, 20), want, q);
      const ids = want.map((r) => r.id);
      assert.deepEqual(forgetful.covering(ids), postings.covering(ids), q);
      assert.deepEqual(forgetful.scores(ids), postings.scores(ids), q);
    }
  });

  it('keep no more than their room of terms no page holds, however many distinct ones queries ask for', () => {
    // 400 queries of 200 distinct terms the index does not hold (a stream of misspelt words): each
    // a term kept as absent, about 150 bytes that were counted as the term's few characters, and a
    // count of the asks of those not kept. A stage with 4 MB of room against one with none: what
    // the first holds more is what it keeps, and must be within its room. (What the heap holds
    // besides varies by up to half a MB from run to run with the machine's load.)
    const grown = (stage: PostingsStage) => {
      assert.equal(stage.refresh(), true);
      const before = heapAfterGc();
      for (let q = 0; q < 400; q++) {
        stage.lists(Array.from({ length: 200 }, (_, i) => ['nowhere', q, 'x', i].join('')));
        stage.trim();
      }
      return heapAfterGc() - before;
    };
    const room = 4 * 2 ** 20;
    // Once first, so that the code it runs is compiled before either is measured (what the
    // compiler adds to the heap meanwhile differs from run to run with the machine's load).
    grown(new PostingsStage(db, { cacheBytes: 1 }));
    const none = new PostingsStage(db, { cacheBytes: 1 });
    const some = new PostingsStage(db, { cacheBytes: room });
    const kept = grown(some) - grown(none);
    assert.ok(kept < room * 1.2, `kept ${(kept / 2 ** 20).toFixed(1)} MB of terms no page holds in ${room / 2 ** 20} MB of room`);
    // The room is used: the lists asked for are still kept (a term read again is not read anew).
    const term = postings.termsOf(['kettle'])[0]?.[0] as string;
    const list = some.lists([term]).get(term);
    some.trim();
    assert.equal(some.lists([term]).get(term), list);
  });

  it('hold a list read for the query until trim(), and keep it after only while it fits', () => {
    const forgetful = new PostingsStage(db, { cacheBytes: 1 });
    const keeping = new PostingsStage(db);
    for (const stage of [forgetful, keeping]) assert.equal(stage.refresh(), true);
    const term = keeping.termsOf(['kettle'])[0]?.[0] as string;
    const kettle = (stage: PostingsStage) => stage.lists([term]).get(term);
    const [once, kept] = [kettle(forgetful), kettle(keeping)];
    assert.ok(once && kept);
    // The same list within a query, read once.
    assert.equal(kettle(forgetful), once);
    assert.equal(kettle(keeping), kept);
    // The next query reads it again, unless it was kept.
    forgetful.trim();
    keeping.trim();
    const again = kettle(forgetful);
    assert.notEqual(again, once);
    assert.deepEqual(again, once);
    assert.equal(kettle(keeping), kept);
  });

  it('find identifiers by their joined form and tell which pages hold every concept', () => {
    const { concepts: c, joins } = concepts('pg_stat_activity kettle');
    const ours = postings.rank(c, joins, 100);
    const theirs = fts.rank(c, joins, 100);
    const ids = theirs.map((r) => r.id);
    assert.deepEqual(new Set(ours.map((r) => r.id)), new Set(ids));
    assert.deepEqual(postings.covering(ids), fts.covering(ids));
    assert.ok(postings.covering(ids).size > 0);
  });

  it('take a word the index does not hold as the end of words it does', () => {
    const whole = concepts('descaling');
    const want = new Set(postings.rank(whole.concepts, whole.joins, 100).map((r) => r.id));
    assert.ok(want.size > 0);
    const fragment = concepts('escaling');
    assert.deepEqual(new Set(postings.rank(fragment.concepts, fragment.joins, 100).map((r) => r.id)), want);
    // An identifier's joined form too (`stat_activity` of `pg_stat_activity` is held; `tat_activity` is not).
    const id = concepts('tat_activity');
    assert.ok(postings.rank(id.concepts, id.joins, 100).length > 0);
    // Too short, or a number: not a fragment.
    for (const q of ['sc', '999']) {
      const c = concepts(q);
      assert.deepEqual(postings.rank(c.concepts, c.joins, 100), [], q);
    }
  });

  it('know which snippet passage holds the query', () => {
    const { concepts: c, joins } = concepts('asyncio.gather');
    const top = postings.rank(c, joins, 5);
    const best = postings.bestPassages(top.map((r) => r.id));
    assert.equal(best.size, top.length);
    const text = new PageText(db);
    const read = text.blocks(new Map([...best].map(([id, [ord]]) => [id, [ord as number, ord as number]])));
    for (const [id, [ord]] of best) assert.match(read.get(id)?.(ord as number) ?? '', /asyncio\.gather/);
  });

  it('round-trip through their blob format', () => {
    const list = {
      docs: Uint32Array.from([3, 9, 40]),
      freqs: Float32Array.from([1, 8, 2.5]),
      starts: Uint32Array.from([0, 1, 1, 3]),
      places: Uint16Array.from([4, 0, 7]),
    };
    assert.deepEqual(decodePostings(encodePostings(list)), list);
    const bare = { docs: Uint32Array.from([1]), freqs: Float32Array.from([2]), starts: new Uint32Array(0), places: new Uint16Array(0) };
    assert.deepEqual(decodePostings(encodePostings(bare)), bare);
  });

  it('follow a page that is indexed again with other words', () => {
    const small = join(dir, 'small.db');
    build(small, [
      { url: 'https://docs.test/a.html', html: html('Kettle', '<p>A kettle boils water.</p>') },
      { url: 'https://docs.test/b.html', html: html('Router', '<p>A router routes packets.</p>') },
    ]);
    build(small, [{ url: 'https://docs.test/a.html', html: html('Teapot', '<p>A teapot steeps leaves.</p>') }]);
    const reader = new IndexReader(small);
    try {
      assert.deepEqual(reader.search({ query: 'kettle', language: 'en', limit: 10 }).results, []);
      const teapot = reader.search({ query: 'teapot', language: 'en', limit: 10 }).results;
      assert.deepEqual(
        teapot.map((r) => r.url),
        ['https://docs.test/a.html'],
      );
      assert.match(teapot[0]?.snippet ?? '', /teapot steeps leaves/i, 'the snippet is of the new text (passages prepared when stored)');
      assert.deepEqual(
        reader.search({ query: 'router', language: 'en', limit: 10 }).results.map((r) => r.url),
        ['https://docs.test/b.html'],
      );
      const check = new DatabaseSync(small, { readOnly: true });
      assert.equal(
        check.prepare("SELECT COUNT(*) AS n FROM postings WHERE term = 'kettl'").get()?.n,
        0,
        'a term no page holds any more has no postings',
      );
      const text = new PageText(check);
      const texts = [1, 2].map((id) => text.whole(id) ?? '');
      assert.ok(texts.some((b) => /teapot steeps/i.test(b)) && !texts.some((b) => /kettle boils/i.test(b)), texts.join(' | '));
      check.close();
    } finally {
      reader.close();
    }
  });

  it("show each page's own stored snippet when no passage of its text holds the query", () => {
    const file = join(dir, 'fallbacks.db');
    const opening = (animal: string) => `Pedestrians walk over the road here by the school, where the ${animal} keeper waits each morning.`;
    build(file, [
      { url: 'https://docs.test/zebra.html', html: html('Zebra crossing', `<p>${opening('ostrich')}</p><p>Stripes.</p>`) },
      { url: 'https://docs.test/pelican.html', html: html('Pelican crossing', `<p>${opening('heron')}</p><p>Lights.</p>`) },
    ]);
    const reader = new IndexReader(file);
    try {
      // "crossing" is in each title (and the heading that repeats it) only: no passage holds it.
      const results = reader.search({ query: 'crossing', language: 'en', limit: 10 }).results;
      assert.deepEqual(results.map((r) => r.url).sort(), ['https://docs.test/pelican.html', 'https://docs.test/zebra.html']);
      for (const r of results) assert.equal(r.snippet, opening(r.url.includes('zebra') ? 'ostrich' : 'heron'), r.url);
    } finally {
      reader.close();
    }
  });

  it('follow a page stored as a version before kept it: its text, its passages and its terms', () => {
    const old = join(dir, 'before-0085.db');
    build(old, [
      { url: 'https://docs.test/a.html', html: html('Kettle', '<p>A kettle boils water.</p>') },
      { url: 'https://docs.test/b.html', html: html('Router', '<p>A router routes packets through gateways.</p>') },
    ]);
    asWrittenBefore0085(old, { rawPostings: false });
    openIndexDatabase(old).close();
    const rows = (sql: string) => {
      const check = new DatabaseSync(old, { readOnly: true });
      try {
        return Number(check.prepare(sql).get()?.n);
      } finally {
        check.close();
      }
    };
    assert.equal(rows('SELECT COUNT(*) AS n FROM page_text'), 0);
    const ask = (query: string) => {
      const reader = new IndexReader(old);
      try {
        return reader.search({ query, language: 'en', limit: 10, exact: true }).results;
      } finally {
        reader.close();
      }
    };
    assert.match(ask('gateways')[0]?.snippet ?? '', /routes packets through gateways/, "b's snippet from its passage row");
    // a is stored again with other words; b gains a link, so its postings are built again from its stored text.
    build(old, [
      { url: 'https://docs.test/a.html', html: html('Teapot', '<p>A teapot steeps leaves.</p>') },
      { url: 'https://docs.test/c.html', html: html('Switch', '<p>See <a href="b.html">the packet switch</a>.</p>') },
    ]);
    const urls = (query: string) => ask(query).map((r) => r.url);
    assert.deepEqual(urls('kettle'), []);
    assert.equal(rows("SELECT COUNT(*) AS n FROM postings WHERE term = 'kettl'"), 0, "a's old terms were read and dropped");
    assert.deepEqual(urls('teapot'), ['https://docs.test/a.html']);
    assert.deepEqual(urls('gateways'), ['https://docs.test/b.html'], "b's text was read as it was kept");
    assert.ok(urls('switch').includes('https://docs.test/b.html'), "b's new anchor text");
    // Every page rebuilt is kept as this version keeps pages: text in page_text, no passage rows.
    assert.equal(rows("SELECT COUNT(*) AS n FROM pages WHERE body != ''"), 0);
    assert.equal(rows('SELECT COUNT(*) AS n FROM passages'), 0);
    assert.match(ask('gateways')[0]?.snippet ?? '', /routes packets through gateways/, "b's snippet from its text");
  });

  it('are read as the versions before stored them (raw; packed with their passages), with the same answers, and stored apart again by the next run', () => {
    for (const [name, format] of [
      ['raw.db', RAW_POSTINGS_FORMAT],
      ['inline.db', PACKED_POSTINGS_FORMAT],
    ] as const) {
      const old = join(dir, name);
      build(old, corpus(), { fullText: false });
      assert.ok(asStoredBefore(old, format) > 10, 'lists with passages');
      const reader = new IndexReader(old);
      const current = new IndexReader(file);
      try {
        for (const query of ['kettle', 'router descaling', 'vacuum brewing firewall', 'asyncio.gather', 'runs'])
          assert.deepEqual(
            reader.search({ query, language: 'en', limit: 10 }).results,
            current.search({ query, language: 'en', limit: 10 }).results,
            `${format}: ${query}`,
          );
      } finally {
        reader.close();
        current.close();
      }
      build(old, [], { fullText: false });
      const after = new DatabaseSync(old, { readOnly: true });
      assert.equal(after.prepare("SELECT value FROM search_meta WHERE key = 'postings'").get()?.value, POSTINGS_FORMAT);
      // Every list of this corpus is a block or shorter: it holds its passages, and none is apart.
      const row = after.prepare("SELECT data FROM postings WHERE term = 'kettl'").get() as { data: Uint8Array };
      const list = unpackPostings(row.data);
      assert.ok(list.docs.length > 0 && list.docs.length <= PASSAGE_BLOCK && list.places.length > 0, 'a short list with its passages');
      assert.equal((after.prepare('SELECT COUNT(*) AS n FROM term_passages').get() as { n: number }).n, 0);
      after.close();
    }
  });

  it('give each page of lists longer than a block its passages, as lists holding them do, and again once pages change', () => {
    const page = (i: number, word: string) => ({
      url: `https://docs.test/long/${i}.html`,
      html: html(
        `page ${i}`,
        `<p>intro ${i % 3 ? 'kettle' : 'router'} ${'filler '.repeat(i % 4)}</p><p>other words ${i}</p><p>kettle ${word} ${i % 5 ? '' : 'router'}</p>`,
      ),
    });
    const pages = Array.from({ length: 3 * PASSAGE_BLOCK + 20 }, (_, i) => page(i, 'descaling'));
    // A second run: "descaling" falls to a list shorter than a block, "teapot" is a new long list,
    // and the lists of "kettle" and "router" change in place.
    const changed = pages.slice(0, 3 * PASSAGE_BLOCK).map((_, i) => page(i, 'teapot'));
    const apart = join(dir, 'long.db');
    const inline = join(dir, 'long-inline.db');
    build(apart, pages, { fullText: false });
    build(inline, pages, { fullText: false });
    asStoredBefore(inline, PACKED_POSTINGS_FORMAT);
    sameAsHeld(apart, inline, ['kettle', 'kettle descaling', 'router kettle', 'descaling router']);
    build(apart, changed, { fullText: false });
    build(inline, pages, { fullText: false });
    build(inline, changed, { fullText: false });
    asStoredBefore(inline, PACKED_POSTINGS_FORMAT);
    sameAsHeld(apart, inline, ['kettle', 'kettle teapot', 'router kettle', 'teapot router', 'descaling']);
  });

  it('keep the passage blocks they read while they fit, and answer the same with no room for any (decision 0158)', () => {
    const page = (i: number) => ({
      url: `https://docs.test/kept/${i}.html`,
      html: html(`page ${i}`, `<p>kettle ${i % 2 ? 'router' : 'teapot'} ${i}</p><p>router descaling ${'filler '.repeat(i % 3)}</p>`),
    });
    const file = join(dir, 'long-kept.db');
    build(
      file,
      Array.from({ length: 3 * PASSAGE_BLOCK + 20 }, (_, i) => page(i)),
      { fullText: false },
    );
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const roomy = new PostingsStage(db);
      const none = new PostingsStage(db, { passageBytes: 0 });
      assert.ok(roomy.refresh() && none.refresh());
      const pass = (stage: PostingsStage) =>
        ['kettle router', 'router descaling', 'kettle teapot'].map((q) => {
          stage.trim();
          const c = concepts(q);
          const ids = stage.rank(c.concepts, c.joins, 1000).map((r) => r.id);
          // Far into the lists first, so that blocks are read out of order.
          return [[...stage.passageShares([...ids].reverse())], [...stage.bestPassages(ids)]];
        });
      const first = pass(roomy);
      const read = roomy.blocksRead;
      // The queries' lists are long: their passages are in blocks, which this pass read.
      assert.ok(read >= 6, `${read} blocks read`);
      assert.deepEqual(pass(roomy), first);
      assert.equal(roomy.blocksRead, read, 'a stage with room reads none of them again');
      assert.deepEqual(pass(none), first);
      const once = none.blocksRead;
      assert.deepEqual(pass(none), first);
      assert.equal(none.blocksRead, 2 * once, 'a stage with no room reads them again for each query');
    } finally {
      db.close();
    }
  });

  it('are the same however few entries the writer holds in memory: built in many runs, and brought up to date', () => {
    const first = corpus();
    first[0] = { url: first[0]?.url as string, html: html('Zebrafish', '<p>The only zebrafish page.</p>') };
    const again = first
      .slice(0, 12)
      .map((p, i) => ({ url: p.url, html: html(`Teapot ${i}`, `<p>${WORDS[(i * 5) % WORDS.length]} teapots</p>`) }));
    const contents = (file: string) => {
      const db = new DatabaseSync(file, { readOnly: true });
      try {
        return [
          db.prepare('SELECT * FROM postings ORDER BY term').all(),
          db.prepare('SELECT * FROM term_ends ORDER BY reversed').all(),
          // A page's terms as a set: their order follows which words the writer had met before.
          db
            .prepare('SELECT page_id, length, l.terms AS terms FROM page_terms JOIN page_term_lists l USING (page_id) ORDER BY page_id')
            .all()
            .map((r) => ({
              ...r,
              terms: unpackText(r.terms as Uint8Array)
                .split(' ')
                .sort(),
            })),
          db.prepare('SELECT * FROM search_meta').all(),
        ];
      } finally {
        db.close();
      }
    };
    const oneRun = join(dir, 'one-run.db');
    const manyRuns = join(dir, 'many-runs.db');
    build(oneRun, first);
    build(manyRuns, first, { postingsBuffer: 7 });
    assert.deepEqual(contents(manyRuns), contents(oneRun));
    build(oneRun, again);
    build(manyRuns, again, { postingsBuffer: 7 });
    const updated = contents(manyRuns);
    assert.deepEqual(updated, contents(oneRun));
    // The same as building the pages as they are now at once (same order, so the same page ids).
    const atOnce = join(dir, 'at-once.db');
    build(atOnce, [...again, ...first.slice(12)], { postingsBuffer: 7 });
    assert.deepEqual(updated, contents(atOnce));
    assert.equal(
      (updated[0] as { term: string }[]).find((r) => r.term === 'zebrafish'),
      undefined,
      'a term no page holds is gone',
    );
  });

  it('keep the tables an index had until every list is built anew, in rowid tables with their keys indexed (decision 0145)', () => {
    /** How the postings' tables of the index in `f` are made: 'rowid' with their unique indexes, or 'without rowid'. */
    const shape = (f: string) => {
      const d = new DatabaseSync(f, { readOnly: true });
      try {
        const made = d
          .prepare("SELECT type, name, sql FROM sqlite_master WHERE tbl_name IN ('postings', 'term_passages') ORDER BY name")
          .all() as { type: string; name: string; sql: string | null }[];
        const tables = made.filter((m) => m.type === 'table');
        assert.equal(tables.length, 2);
        if (tables.every((t) => /WITHOUT ROWID/.test(t.sql ?? ''))) return 'without rowid';
        assert.deepEqual(
          made.filter((m) => m.type === 'index').map((m) => m.name),
          ['postings_by_term', 'term_passages_by_term'],
          'no other index (a WITHOUT ROWID table has an automatic one)',
        );
        assert.ok(!tables.some((t) => /WITHOUT ROWID/.test(t.sql ?? '')));
        return 'rowid';
      } finally {
        d.close();
      }
    };
    // Long lists too, so that term_passages has rows.
    const pages = [
      ...corpus(),
      ...Array.from({ length: PASSAGE_BLOCK + 30 }, (_, i) => ({
        url: `https://docs.test/long/${i}.html`,
        html: html(`page ${i}`, `<p>kettle ${i % 2 ? 'router' : 'descaling'} ${'filler '.repeat(i % 5)}</p><p>words ${i}</p>`),
      })),
    ];
    const changed = pages
      .slice(30, 60)
      .map((p, i) => ({ url: p.url, html: html(`Teapot ${i}`, `<p>${WORDS[i % WORDS.length]} teapots</p>`) }));
    const now = join(dir, 'shape-now.db');
    const before = join(dir, 'shape-before.db');
    build(now, pages, { fullText: false });
    build(before, pages, { fullText: false });
    assert.equal(shape(now), 'rowid');
    const old = new DatabaseSync(before);
    postingsTablesBefore0145(old);
    old.close();
    assert.equal(shape(before), 'without rowid');
    const postingsOf = (f: string) => {
      const all = indexContents(f);
      assert.match(all.get('term_passages') ?? '', /^[1-9]\d* rows/, 'lists long enough to keep their passages apart');
      return [all.get('postings'), all.get('term_passages'), all.get('term_ends'), all.get('page_term_lists')];
    };
    const answers = (f: string) => {
      const reader = new IndexReader(f);
      try {
        const all = ['kettle', 'router descaling', 'teapots vacuum', 'filler words'].map(
          (query) => reader.search({ query, language: 'en', limit: 10 }).results,
        );
        assert.ok(all.every((results) => results.length > 0));
        return all;
      } finally {
        reader.close();
      }
    };
    assert.deepEqual(postingsOf(before), postingsOf(now));
    assert.deepEqual(answers(before), answers(now));
    // New pages change the lists in the tables the index has.
    build(now, changed, { fullText: false });
    build(before, changed, { fullText: false });
    assert.equal(shape(before), 'without rowid');
    assert.deepEqual(postingsOf(before), postingsOf(now));
    assert.deepEqual(answers(before), answers(now));
    // Every list built anew (here because the postings are marked stale, as a new format does).
    const stale = new DatabaseSync(before);
    stale.exec("DELETE FROM search_meta WHERE key = 'postings'");
    stale.close();
    build(before, [], { fullText: false });
    assert.equal(shape(before), 'rowid');
    assert.deepEqual(postingsOf(before), postingsOf(now));
    assert.deepEqual(answers(before), answers(now));
  });

  it('are not used until complete: a reader falls back to FTS5 and still answers', () => {
    const other = join(dir, 'fallback.db');
    build(other, corpus());
    const write = new DatabaseSync(other);
    write.exec("DELETE FROM search_meta WHERE key = 'postings'");
    write.close();
    const reader = new IndexReader(other);
    const withPostings = new IndexReader(file);
    try {
      for (const query of ['kettle', 'router descaling', 'vacuum brewing']) {
        const a = reader.search({ query, language: 'en', limit: 10 }).results;
        const b = withPostings.search({ query, language: 'en', limit: 10 }).results;
        assert.ok(a.length > 0, query);
        assert.deepEqual(new Set(a.map((r) => r.url)), new Set(b.map((r) => r.url)), query);
      }
      // An identifier: FTS5 also scores it as a phrase of its parts, so the order may differ.
      assert.ok(reader.search({ query: 'pg_stat_activity', language: 'en', limit: 10 }).results.length > 0);
    } finally {
      reader.close();
      withPostings.close();
    }
  });

  it('leave FTS5 empty unless told, and an index that had its rows sheds them at its next run', () => {
    const rows = (file: string) => {
      const db = new DatabaseSync(file);
      try {
        db.exec("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, 'fts', 'row')");
        return Number(db.prepare('SELECT COUNT(*) AS n FROM temp.vocab').get()?.n);
      } finally {
        db.close();
      }
    };
    const lean = join(dir, 'lean.db');
    build(lean, corpus(), { fullText: false });
    assert.equal(rows(lean), 0);
    const before = join(dir, 'with-full-text.db');
    build(before, corpus());
    assert.ok(rows(before) > 20, 'an index written with them has FTS5 rows');
    build(before, [{ url: 'https://docs.test/new.html', html: html('Zebrafish', '<p>The zebrafish page.</p>') }], { fullText: false });
    assert.equal(rows(before), 0);
    const reader = new IndexReader(before);
    const reference = new IndexReader(file);
    try {
      for (const query of ['kettle', 'router descaling', 'asyncio.gather'])
        assert.deepEqual(
          reader.search({ query, language: 'en', limit: 10 }).results,
          reference.search({ query, language: 'en', limit: 10 }).results,
          query,
        );
      assert.deepEqual(
        reader.search({ query: 'zebrafish', language: 'en', limit: 10 }).results.map((r) => r.url),
        ['https://docs.test/new.html'],
      );
    } finally {
      reader.close();
      reference.close();
    }
  });
});

describe("an identifier's words a page uses beyond it", () => {
  const file = join(dir, 'words-used.db');
  const filler = 'plain words about nothing in particular '.repeat(30);
  const page = (name: string, body: string) => ({ url: `https://docs.test/${name}.html`, html: html(name, `<p>${body} ${filler}</p>`) });
  build(file, [
    // About it: lo_import again and again, and OIDs.
    page('about', `lo_import_with_oid returns the OID. ${'Use lo_import to read a file; the oid names it. '.repeat(8)}`),
    // Naming it in passing: its words only where it names it, twice.
    page('passing', 'see lo_import_with_oid and lo_import_with_oid'),
    // Naming it once, and saying `import` once besides.
    page('import', 'see lo_import_with_oid to import'),
    // Its words, but not it.
    page('words', 'Use lo_import to read a file; the oid names it. '.repeat(8)),
    ...Array.from({ length: 20 }, (_, i) => page(`other-${i}`, `an import of ${i}`)),
  ]);
  const db = new DatabaseSync(file, { readOnly: true });
  after(() => db.close());
  const stage = new PostingsStage(db);
  assert.ok(stage.refresh());
  const ids = new Map(
    (db.prepare('SELECT id, url FROM pages').all() as { id: number; url: string }[]).map((r) => [r.url.slice(18, -5), r.id]),
  );
  const id = (name: string) => ids.get(name) as number;
  const used = stage.wordsUsed(identifierWords(parseQuery('lo_import_with_oid').concepts, 'en'), [...ids.values()]);

  it('are all its words on a page about it', () => {
    assert.ok((used.get(id('about')) as number) > 0.99, String(used.get(id('about'))));
  });

  it('are none where the page holds them only as often as it names it', () => {
    assert.equal(used.get(id('passing')), undefined);
  });

  it('are a share by idf, the rarer words counting more', () => {
    // `import` is on 22 pages, against 4 for `lo`, `oid` and `loimport0`: the smallest share.
    const share = used.get(id('import')) as number;
    assert.ok(share > 0 && share < 0.1, String(share));
  });

  it('are none on a page that does not hold the identifier', () => {
    assert.equal(used.get(id('words')), undefined);
    assert.equal(used.get(id('other-0')), undefined);
  });

  it('are nothing for a query without an identifier', () => {
    assert.equal(stage.wordsUsed(identifierWords(parseQuery('import').concepts, 'en'), [...ids.values()]).size, 0);
  });
});

describe('the FTS5 tokenizer', () => {
  it('gives FTS5 terms: stems, folds diacritics, splits what unicode61 splits, keeps joined identifiers', () => {
    const t = new FtsTokenizer();
    try {
      t.learn(['running', 'café', 'asynciogather0', 'naïve', 'generalizations', 'ab', 'pg15', '12345']);
      assert.deepEqual(t.terms('running'), ['run']);
      assert.deepEqual(t.terms('café'), ['cafe']);
      assert.deepEqual(t.terms('naïve'), ['naiv']);
      assert.deepEqual(t.terms('generalizations'), ['gener']);
      assert.deepEqual(t.terms('asynciogather0'), ['asynciogather0']);
      assert.deepEqual(t.terms('pg15'), ['pg15']);
      assert.deepEqual(t.terms('12345'), ['12345']);
      assert.equal(t.terms('हिन्दी').length > 1, true, 'unicode61 separates at combining marks');
    } finally {
      t.close();
    }
  });

  it('agrees with the index: every term of a page is a term FTS5 stored', () => {
    const db = new DatabaseSync(join(dir, 'index.db'), { readOnly: true });
    db.exec("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, 'fts', 'row')");
    const stored = new Set((db.prepare('SELECT term FROM temp.vocab').all() as { term: string }[]).map((r) => r.term));
    const ours = (db.prepare('SELECT term FROM postings').all() as { term: string }[]).map((r) => r.term);
    db.close();
    assert.deepEqual(new Set(ours), stored);
  });
});
