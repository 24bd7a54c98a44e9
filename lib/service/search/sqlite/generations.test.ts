import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { currentGeneration, GenerationBuilder, GRACE_MS, immutableUri, listGenerations, pruneGenerations } from './generations.ts';

const folder = () => mkdtempSync(join(tmpdir(), 'periscope-generations-'));

/** Write `value` into the generation being built, as an indexer run would (in WAL mode, like the index writer). */
function write(file: string, value: string): void {
  const db = new DatabaseSync(file);
  db.exec('PRAGMA journal_mode = WAL; CREATE TABLE IF NOT EXISTS t (v TEXT)');
  db.prepare('INSERT INTO t VALUES (?)').run(value);
  db.close();
}

function read(file: string): string {
  const db = new DatabaseSync(immutableUri(file), { readOnly: true });
  try {
    return (db.prepare('SELECT group_concat(v) AS v FROM t').get() as { v: string }).v;
  } finally {
    db.close();
  }
}

describe('index generations', () => {
  it('a run copies the current generation, publishes a sealed file and names it in CURRENT', () => {
    const dir = folder();
    assert.equal(currentGeneration(dir), null);
    const first = GenerationBuilder.begin(dir);
    assert.equal(first.base, null);
    write(first.file, 'one');
    // Until published, nodes see nothing new.
    assert.equal(currentGeneration(dir), null);
    const a = first.publish();
    assert.deepEqual(a, { generation: { name: 'gen-000001.db', number: 1, file: join(dir, 'gen-000001.db') }, removed: [] });
    assert.equal(readFileSync(join(dir, 'CURRENT'), 'utf8'), 'gen-000001.db\n');
    // Sealed: no write-ahead log beside it, so the file alone is the index (immutable readers never read a WAL).
    assert.deepEqual(readdirSync(dir).sort(), ['CURRENT', 'gen-000001.db']);
    assert.equal(readFileSync(a.generation.file)[18], 1, 'the header says rollback journal, not WAL');
    assert.equal(read(a.generation.file), 'one');

    const second = GenerationBuilder.begin(dir);
    assert.equal(second.base, 'gen-000001.db');
    write(second.file, 'two');
    assert.equal(read(a.generation.file), 'one', 'the published generation is never written');
    const b = second.publish();
    assert.equal(currentGeneration(dir)?.name, 'gen-000002.db');
    assert.equal(read(b.generation.file), 'one,two');
    assert.throws(() => second.publish(), /already published/);
  });

  it('--from starts a generation from a live index file, write-ahead log included', () => {
    const dir = folder();
    const live = join(folder(), 'index.db');
    const db = new DatabaseSync(live);
    db.exec("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('live')");
    const g = GenerationBuilder.begin(dir, { from: live });
    db.close();
    assert.equal(g.base, live);
    g.publish();
    assert.equal(read(join(dir, 'gen-000001.db')), 'live');
  });

  it('one indexer at a time; a lock its dead owner left on this host is taken over; an abandoned run leaves the current generation', () => {
    const dir = folder();
    GenerationBuilder.begin(dir).publish();
    const running = GenerationBuilder.begin(dir);
    assert.throws(() => GenerationBuilder.begin(dir), /another npm run index is building a generation .* remove .*LOCK/);
    write(running.file, 'half');
    running.abandon();
    assert.deepEqual(readdirSync(dir).sort(), ['CURRENT', 'gen-000001.db']);

    const dead = spawnSync(process.execPath, ['-e', 'process.pid'], { encoding: 'utf8' }).pid;
    writeFileSync(join(dir, 'LOCK'), JSON.stringify({ host: hostname(), pid: dead, since: 'earlier' }));
    writeFileSync(join(dir, 'building-000002.db'), 'what a killed run left');
    const next = GenerationBuilder.begin(dir);
    assert.equal(next.number, 2);
    assert.equal(existsSync(next.file), true);
    assert.equal(next.base, 'gen-000001.db', 'the half-built file was replaced by a copy of the current generation');
    next.abandon();
    writeFileSync(join(dir, 'LOCK'), JSON.stringify({ host: 'another-machine', pid: process.pid, since: 'earlier' }));
    assert.throws(() => GenerationBuilder.begin(dir), /host another-machine/);
  });

  it('a superseded generation is removed once its successor has been current for the grace period, never the current one', () => {
    const dir = folder();
    const t0 = Date.now() - 3 * GRACE_MS;
    GenerationBuilder.begin(dir).publish(t0);
    GenerationBuilder.begin(dir).publish(t0 + GRACE_MS / 2);
    // gen 1 was superseded half a grace after t0: old enough to go now, and gen 2 is current.
    const third = GenerationBuilder.begin(dir);
    assert.deepEqual(
      listGenerations(dir).map((g) => g.name),
      ['gen-000002.db'],
      'pruned as a run begins',
    );
    const { removed } = third.publish();
    assert.deepEqual(removed, [], 'gen 2 was superseded just now: nodes may still be answering from it');
    assert.deepEqual(pruneGenerations(dir, GRACE_MS, Date.now() + GRACE_MS / 2), []);
    assert.deepEqual(pruneGenerations(dir, GRACE_MS, Date.now() + GRACE_MS + 1000), ['gen-000002.db']);
    assert.deepEqual(
      listGenerations(dir).map((g) => g.name),
      ['gen-000003.db'],
    );
    assert.ok(statSync(join(dir, 'gen-000003.db')).mtimeMs > 0);
  });

  it('CURRENT that names no generation is an error that says so', () => {
    const dir = folder();
    writeFileSync(join(dir, 'CURRENT'), '../../etc/passwd');
    assert.throws(() => currentGeneration(dir), /does not name an index generation/);
  });
});
