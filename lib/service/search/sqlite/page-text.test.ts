import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BLOCKS_PER_CHUNK, PageText, TEXT_SLOTS } from './page-text.ts';
import { openIndexDatabase } from './schema.ts';

const dir = mkdtempSync(join(tmpdir(), 'periscope-page-text-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('page text', () => {
  const db = openIndexDatabase(join(dir, 'index.db'));
  const text = new PageText(db);
  const lines = Array.from({ length: 2 * BLOCKS_PER_CHUNK + 3 }, (_, i) => `block ${i}`);
  text.write(7, lines.join('\n'));
  text.write(8, '');
  text.write(9, 'only one');

  it('reads back whole, an empty text apart from none', () => {
    assert.equal(text.whole(7), lines.join('\n'));
    assert.equal(text.whole(8), '');
    assert.equal(text.whole(10), null);
    assert.equal(db.prepare('SELECT COUNT(*) AS n FROM page_text WHERE id BETWEEN ? AND ?').get(7 * TEXT_SLOTS, 8 * TEXT_SLOTS - 1)?.n, 3);
  });

  it('reads the blocks asked of several pages in one go, across the edge of a chunk, and none past the last', () => {
    const edge = BLOCKS_PER_CHUNK - 1;
    const read = text.blocks(
      new Map([
        [7, [edge, edge + 2]],
        [9, [0, 2]],
        [10, [0, 2]],
      ]),
    );
    assert.deepEqual([...read.keys()].sort(), [7, 9], 'no accessor for a page without text');
    const seven = read.get(7);
    assert.deepEqual(
      [edge, edge + 1, edge + 2].map((i) => seven?.(i)),
      [`block ${edge}`, `block ${edge + 1}`, `block ${edge + 2}`],
    );
    assert.equal(seven?.(2 * BLOCKS_PER_CHUNK + 1), undefined, 'a chunk not read');
    assert.deepEqual(
      [0, 1].map((i) => read.get(9)?.(i)),
      ['only one', undefined],
    );
    const last = text.blocks(new Map([[7, [2 * BLOCKS_PER_CHUNK + 2, 2 * BLOCKS_PER_CHUNK + 4]]])).get(7);
    assert.equal(last?.(2 * BLOCKS_PER_CHUNK + 2), `block ${2 * BLOCKS_PER_CHUNK + 2}`);
    assert.equal(last?.(2 * BLOCKS_PER_CHUNK + 3), undefined, 'past the last block');
  });

  it('is replaced whole when written again, and dropped', () => {
    text.write(7, 'shorter');
    assert.equal(text.whole(7), 'shorter');
    text.drop(7);
    assert.equal(text.whole(7), null);
    assert.equal(text.whole(9), 'only one', "another page's text stays");
  });
});
