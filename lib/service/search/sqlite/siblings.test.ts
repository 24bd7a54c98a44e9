import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { DEF_BESIDE, DEF_INDEXED } from '../page-definitions.ts';
import { siblingShare } from '../rank.ts';
import { DEF_NEAR } from './schema.ts';
import { NamespaceSiblings } from './siblings.ts';

describe('the names of a namespace a page defines', () => {
  const db = new DatabaseSync(':memory:');
  db.exec(`CREATE TABLE defs (head TEXT NOT NULL, page_id INTEGER NOT NULL, weight REAL NOT NULL, kind INTEGER NOT NULL DEFAULT 0,
             PRIMARY KEY (head, page_id)) WITHOUT ROWID;
           CREATE INDEX defs_page ON defs(page_id);`);
  const add = db.prepare('INSERT INTO defs (head, page_id, weight, kind) VALUES (?, ?, 1, ?)');
  // Page 1: object's reference. Page 2: object.__rmul__ in passing, among other namespaces' names.
  for (let i = 0; i < 30; i++) add.run(`object m${i}`, 1, i % 2 ? DEF_INDEXED : 0);
  add.run('object rmul', 1, 0);
  for (const head of ['object rmul', 'objects', 'object', 'objectify it', 'kettle boil', 'rmul']) add.run(head, 2, 0);
  // Page 3: names an index anchor only stands beside, and an old index's words near an anchor.
  for (let i = 0; i < 30; i++) add.run(`object m${i}`, 3, i % 2 ? DEF_BESIDE | DEF_INDEXED : DEF_NEAR);
  const siblings = new NamespaceSiblings(db);

  it("counts the heads of the namespace's names only: not the namespace, nor words that begin like it", () => {
    const shares = siblings.shares(['object'], [1, 2, 3, 4]);
    assert.equal(shares.get(1), 1, "31 of object's names");
    assert.equal(shares.get(2), undefined, 'object.__rmul__ alone is no family: its share is 0');
    assert.equal(shares.has(3), false, 'neither an anchor beside a name nor a near word is a definition');
    assert.equal(shares.has(4), false);
  });

  it("reads only the pages asked about, and each page's best namespace", () => {
    assert.deepEqual([...siblings.shares(['object'], [2])], []);
    const both = siblings.shares(['kettle', 'object'], [1, 2]);
    assert.equal(both.get(1), 1);
    assert.deepEqual(siblings.shares([], [1]), new Map());
    assert.deepEqual(siblings.shares(['object'], []), new Map());
  });

  it('grows with the log of the other names, from 0 for the name alone to 1 from twenty others', () => {
    assert.equal(siblingShare(0), 0);
    assert.equal(siblingShare(1), 0);
    assert.ok(siblingShare(2) > 0 && siblingShare(2) < siblingShare(4) && siblingShare(4) < siblingShare(21));
    assert.ok(siblingShare(3) < 0.4, 'a page defining two or three of them is far from a reference');
    assert.equal(siblingShare(21), 1);
    assert.equal(siblingShare(500), 1);
  });
});
