import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { migratePostgres } from '#shared/postgres.ts';
import { migrate } from '#shared/sqlite.ts';
import { freshDatabase } from '../../tests/helpers/postgres-data.ts';
import { serviceTestStore } from '../../tests/helpers/service-data.ts';
import { migrateServicePostgres, openServiceDatabase, type ServiceDatabase } from './database.ts';
import { serviceMigrations } from './migrations.ts';
import { SERVICE_MIGRATION_LOCK, SERVICE_MIGRATIONS_TABLE } from './postgres-client.ts';
import { servicePostgresMigrations } from './postgres-migrations.ts';

/**
 * What only the PostgreSQL store has (decision 0093): its own migrations (the same tables and
 * columns as SQLite's; sharing a database with the portal: tests/unit/one-database.test.ts), and one
 * store for several nodes: two stores opened on one database stand for two service nodes.
 */
const skip = serviceTestStore === 'postgres' ? false : 'PostgreSQL pass only (npm run test:postgres starts a private server)';
const LIMITS = { ratePerMinute: 40, maxInstances: 5 };
const HISTORY = { retentionMs: 3_600_000, recordingRetentionMs: 3_600_000, maxEndedPerKey: 10 };

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('service data on PostgreSQL', { skip }, () => {
  const opened: ServiceDatabase[] = [];
  const open = async (url: string) => {
    const db = await openServiceDatabase({ dataDir: '/nonexistent', database: { kind: 'postgres', url } }, LIMITS, { max: 4 });
    opened.push(db);
    return db;
  };
  after(async () => {
    await Promise.all(opened.map((d) => d.close()));
  });

  it('migrates once when nodes start together, to the tables and columns SQLite has', async () => {
    const url = await freshDatabase();
    await Promise.all([open(url), open(url), open(url)]);
    const versions = await query<{ version: number }>(url, `SELECT version FROM ${SERVICE_MIGRATIONS_TABLE} ORDER BY version`);
    assert.deepEqual(
      versions.map((r) => r.version),
      servicePostgresMigrations.map((m) => m.version),
    );
    const columns = await query<{ table_name: string; column_name: string }>(
      url,
      `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '${SERVICE_MIGRATIONS_TABLE}'`,
    );
    const pgSchema = new Map<string, string[]>();
    for (const r of columns) pgSchema.set(r.table_name, [...(pgSchema.get(r.table_name) ?? []), r.column_name].sort());
    const lite = new DatabaseSync(':memory:');
    migrate(lite, serviceMigrations);
    const tables = lite
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations'")
      .all() as {
      name: string;
    }[];
    const liteSchema = new Map(
      tables.map(({ name }) => [name, (lite.prepare(`PRAGMA table_info(${name})`).all() as { name: string }[]).map((c) => c.name).sort()]),
    );
    assert.deepEqual(new Map([...pgSchema].sort()), new Map([...liteSchema].sort()));
    const pool = new pg.Pool({ connectionString: url, max: 1, allowExitOnIdle: true });
    try {
      assert.equal(await migrateServicePostgres(pool), 0, 'a second run applies nothing');
      await assert.rejects(
        migratePostgres(pool, servicePostgresMigrations.slice(0, 0), SERVICE_MIGRATION_LOCK, SERVICE_MIGRATIONS_TABLE),
        /newer than this code/,
      );
    } finally {
      await pool.end();
    }
  });

  it('a key revoked through one node is refused by another at once; of two revocations at once one reports it', async () => {
    const url = await freshDatabase();
    const [a, b] = [await open(url), await open(url)];
    const { key, token } = await a.keys.create('shared');
    assert.equal((await b.keys.verify(token))?.id, key.id, 'a key issued on one node works on the other');
    assert.equal(await b.keys.revoke(key.id), true);
    assert.equal(await a.keys.verify(token), null, 'refused on the other node at once');

    const second = await a.keys.create('raced');
    const results = await Promise.all([a.keys.revoke(second.key.id), b.keys.revoke(second.key.id)]);
    assert.deepEqual(results.sort(), [false, true]);
    assert.equal(await b.keys.verify(second.token), null);
  });

  it('answers input PostgreSQL cannot hold (NUL) as a bad request, not a server error', async () => {
    const url = await freshDatabase();
    const { keys, history } = await open(url).then((db) => ({ keys: db.keys, history: db.history(HISTORY) }));
    await assert.rejects(keys.create('robot\u0000one'), { name: 'BadRequest', status: 400 });
    await assert.rejects(keys.get('a\u0000b'), { name: 'BadRequest', status: 400 });
    await assert.rejects(history.get('br_x', 'k\u0000'), { name: 'BadRequest', status: 400 });
    assert.deepEqual(await keys.list(), []);
  });

  it("lists a key's browsers of every node, and a node's end of a dead node's browsers wins over late ends", async () => {
    const url = await freshDatabase();
    const [one, two] = [(await open(url)).history(HISTORY), (await open(url)).history(HISTORY)];
    const now = Date.now();
    await one.started({ id: 'br_1', keyId: 'k', nodeId: 'node-1', at: now - 3 });
    await two.started({ id: 'br_2', keyId: 'k', nodeId: 'node-2', at: now - 2 });
    await one.observed('br_1', { tabs: 1, page: { url: 'https://one.test/', title: 'One' } });
    assert.deepEqual(
      (await two.list('k', now)).map((r) => [r.id, r.nodeId, r.endedAt, r.state.page?.title ?? null]),
      [
        ['br_2', 'node-2', null, null],
        ['br_1', 'node-1', null, 'One'],
      ],
    );
    assert.deepEqual(await two.endNode('node-1', 'node-lost', now), ['br_1']);
    await one.ended('br_1', 'client-closed', now + 1, { tabs: 0, page: null });
    assert.equal((await one.get('br_1', 'k'))?.endReason, 'node-lost');
    assert.equal(await two.endLeftovers('node-2', now + 2), 1, "node 2's restart ends its own leftovers only");
    assert.deepEqual(
      (await one.list('k', now + 3)).map((r) => [r.id, r.endReason]),
      [
        ['br_2', 'service-restarted'],
        ['br_1', 'node-lost'],
      ],
    );
  });
});
