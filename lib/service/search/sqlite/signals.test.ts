import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { setImmediate } from 'node:timers/promises';
import { encodeRankFields, rankFields, score } from '../rank.ts';
import { testCandidate } from '../test-candidate.ts';
import { parseQuery } from '../tokenize.ts';
import { signalsBytes, signalsOf, textBytes, type SignalRow, type Signals } from './signals.ts';
import { heapAfterGc } from './test-heap.ts';

/** Words in one script: Latin, Cyrillic or Han, drawn the same way each run. */
const SCRIPTS = { latin: [0x61, 26], cyrillic: [0x430, 32], han: [0x4e00, 2000] } as const;
type Script = keyof typeof SCRIPTS;

function words(script: Script, seed: number, count: number): string {
  const [first, letters] = SCRIPTS[script];
  let x = seed * 2654435761 + 1;
  const next = () => ((x = (x * 1103515245 + 12345) >>> 0) >>> 8) % letters;
  return Array.from({ length: count }, () => String.fromCodePoint(...Array.from({ length: 3 + (next() % 7) }, () => first + next()))).join(
    ' ',
  );
}

/** A table of `signals` rows as an index holds them, pages of one script. */
function signalsTable(script: Script, pages: number): DatabaseSync {
  const db = new DatabaseSync(':memory:');
  db.exec(`CREATE TABLE signals (id INTEGER PRIMARY KEY, url TEXT, title TEXT, headings TEXT, lang_shares TEXT,
    markup_lang TEXT, url_lang TEXT, inlinks INTEGER, authority REAL, rank_words TEXT, section TEXT, near_signature BLOB)`);
  const insert = db.prepare('INSERT INTO signals VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  for (let id = 1; id <= pages; id++) {
    const url = `https://site${id % 50}.test/docs/${words('latin', id, 3).replaceAll(' ', '/')}.html`;
    const title = words(script, id, 5);
    // Every page has one heading that holds the words of `kettle descaling` together.
    const headings = [...Array.from({ length: 6 }, (_, k) => words(script, id * 10 + k, 4)), 'Kettle descaling'].join('\n');
    const section = JSON.stringify(Array.from({ length: 3 }, (_, k) => words(script, id * 20 + k, 8)));
    const rank = encodeRankFields(rankFields(title, url, headings, 0.1));
    insert.run(id, url, title, headings, '{"en":0.7,"fr":0.3}', 'en', null, id % 7, 0.5, rank, section, new Uint8Array(96));
  }
  return db;
}

/** Each page's signals read as a reader reads them, and the heap they take once the rows are gone
 * (measured on a later turn of the event loop: until the function that read them returns, its rows
 * may still be reachable). */
async function readSignals(db: DatabaseSync): Promise<{ signals: Signals[]; heap: number }> {
  const select = db.prepare('SELECT * FROM signals');
  const before = heapAfterGc();
  const signals = ((): Signals[] => (select.all() as SignalRow[]).map(signalsOf))();
  await setImmediate();
  return { signals, heap: heapAfterGc() - before };
}

/** The heap taken against the bytes counted, for the count to keep within the room it is given: at
 * most a tenth more (counted at one byte a character, the Cyrillic pages took 1.19 times their
 * count), and not so much less that the room is wasted (Latin pages take 0.81 of it, the real
 * pages of the corpus and of 10⁶ 0.90). */
const within = (ratio: number) => ratio > 0.7 && ratio < 1.1;
const counted = (signals: readonly Signals[]) => signals.reduce((sum, s, i) => sum + signalsBytes(i, s), 0);

describe("a page's signals", () => {
  it('are counted as the heap they take, the text beyond Latin-1 at two bytes a character', async () => {
    assert.equal(textBytes('résumé'), 6);
    assert.equal(textBytes('résumé в'), 16);
    // Once beforehand, so that what reading signals allocates once (compiled code) is not measured.
    await readSignals(signalsTable('han', 100));
    for (const script of Object.keys(SCRIPTS) as Script[]) {
      const { signals, heap } = await readSignals(signalsTable(script, 2000));
      const ratio = heap / counted(signals);
      assert.ok(
        within(ratio),
        `${script}: ${(heap / 2 ** 20).toFixed(2)} MB of heap, counted ${(counted(signals) / 2 ** 20).toFixed(2)} MB`,
      );
    }
  });

  it("count the index of their headings' words once ranking has made it, as the heap it takes", async () => {
    const { signals } = await readSignals(signalsTable('latin', 2000));
    // A query of two words one of each page's headings holds: ranking asks which heading holds both.
    const concepts = parseQuery('kettle descaling').concepts;
    const before = counted(signals);
    const heap = heapAfterGc();
    for (const s of signals) score(testCandidate({ headings: s.headings, fields: s.fields }), concepts, 'en', 10);
    const grown = heapAfterGc() - heap;
    const more = counted(signals) - before;
    assert.ok(more > 0, 'the heading indexes are counted');
    const ratio = grown / more;
    assert.ok(within(ratio), `${(grown / 2 ** 20).toFixed(2)} MB of heap, counted ${(more / 2 ** 20).toFixed(2)} MB`);
  });
});
