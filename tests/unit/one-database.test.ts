import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { PORTAL_MIGRATION_LOCK, PostgresPortalData } from '#portal/data/postgres.ts';
import { portalPostgresMigrations } from '#portal/data/postgres-migrations.ts';
import { migrateServicePostgres, openServiceDatabase, type ServiceDatabase } from '#service/database.ts';
import { SERVICE_MIGRATION_LOCK, SERVICE_MIGRATIONS_TABLE } from '#service/postgres-client.ts';
import { servicePostgresMigrations } from '#service/postgres-migrations.ts';
import { migratePostgres } from '#shared/postgres.ts';
import { freshDatabase } from '../helpers/postgres-data.ts';
import { serviceTestStore } from '../helpers/service-data.ts';

/**
 * The embedded `npm start` gives the portal and the service one DATABASE_URL: both migrate into
 * one database, in whichever order they start, each with its own record of versions and its own
 * lock (decision 0093). A portal database made before the service moved there keeps working.
 */
const skip = serviceTestStore === 'postgres' ? false : 'PostgreSQL pass only (npm run test:postgres starts a private server)';

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

const tablesOf = async (url: string) =>
  (
    await query<{ table_name: string }>(
      url,
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
    )
  ).map((r) => r.table_name);

describe('the portal and the service in one PostgreSQL database', { skip }, () => {
  const opened: ServiceDatabase[] = [];
  const open = async (url: string) => {
    const db = await openServiceDatabase(
      { dataDir: '/nonexistent', database: { kind: 'postgres', url } },
      { ratePerMinute: 40, maxInstances: 5 },
      { max: 2 },
    );
    opened.push(db);
    return db;
  };
  after(async () => {
    await Promise.all(opened.map((d) => d.close()));
  });

  for (const order of [
    ['portal', 'service'],
    ['service', 'portal'],
  ] as const) {
    it(`shares one database with the portal, migrated ${order.join(' then ')}: each owner keeps its own record and lock`, async () => {
      const url = await freshDatabase();
      const portals: PostgresPortalData[] = [];
      const migrateOwner = async (owner: 'portal' | 'service') => {
        if (owner === 'service') await open(url);
        else portals.push(await PostgresPortalData.open(url, { max: 2 }));
      };
      try {
        for (const owner of order) await migrateOwner(owner);
        // And both again at once, as `npm start` does with one DATABASE_URL: nothing left to apply.
        await Promise.all([migrateOwner('portal'), migrateOwner('service')]);
        const tables = await tablesOf(url);
        for (const t of ['api_keys', 'browsers', SERVICE_MIGRATIONS_TABLE, 'schema_migrations', 'users', 'teams', 'team_keys'])
          assert.ok(tables.includes(t), `${t} in ${tables.join(', ')}`);
        const portalVersions = await query<{ version: number }>(url, 'SELECT version FROM schema_migrations ORDER BY version');
        assert.deepEqual(
          portalVersions.map((r) => r.version),
          portalPostgresMigrations.map((m) => m.version),
          "the portal's record holds only its own versions",
        );
        const serviceVersions = await query<{ version: number }>(url, `SELECT version FROM ${SERVICE_MIGRATIONS_TABLE} ORDER BY version`);
        assert.deepEqual(
          serviceVersions.map((r) => r.version),
          servicePostgresMigrations.map((m) => m.version),
        );
        assert.notEqual(SERVICE_MIGRATION_LOCK, PORTAL_MIGRATION_LOCK);
        const pool = new pg.Pool({ connectionString: url, max: 1, allowExitOnIdle: true });
        try {
          assert.equal(await migratePostgres(pool, portalPostgresMigrations, PORTAL_MIGRATION_LOCK), 0);
          assert.equal(await migrateServicePostgres(pool), 0);
        } finally {
          await pool.end();
        }
      } finally {
        await Promise.all(portals.map((p) => p.close()));
      }
    });
  }
});
