import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PORTAL_MIGRATION_LOCK, PostgresPortalData } from '#portal/data/postgres.ts';
import { portalPostgresMigrations } from '#portal/data/postgres-migrations.ts';
import { migratePostgres } from '#shared/postgres.ts';

/**
 * The portal's data (and, through freshSchema, the service's: tests/helpers/service-data.ts) on
 * the test run's PostgreSQL (tests/run-on-postgres.ts sets PORTAL_TEST_DATABASE_URL to its cluster). Each test file (one process) gets a database of its
 * own; each store a test opens gets a fresh schema in it, and its own NOTIFY channel, so stores
 * are as separate as SQLite's `:memory:` databases.
 */
export const TEST_DATABASE_ENV = 'PORTAL_TEST_DATABASE_URL';

/** The cluster's address when this run is the PostgreSQL one. */
export const testDatabaseUrl = (): string | undefined => process.env[TEST_DATABASE_ENV] || undefined;

const withDatabase = (url: string, database: string): string => {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
};

const adminUrl = (): string => {
  const admin = testDatabaseUrl();
  if (!admin) throw new Error(`${TEST_DATABASE_ENV} is not set: run the PostgreSQL pass (npm run test:postgres)`);
  return admin;
};

async function createDatabase(name: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return withDatabase(adminUrl(), name);
}

const databaseName = () => `t_${process.pid}_${randomBytes(4).toString('hex')}`;

/** A new, empty database on the test cluster; returns its address. */
export const freshDatabase = (): Promise<string> => createDatabase(databaseName());

/** This test file's database: its name is known at once, it is created on first use. */
const fileDatabase = { name: databaseName(), created: null as Promise<string> | null };

/**
 * A pool on a new schema of this test file's database (every connection's search_path), and a
 * promise that settles once the schema exists. Stores opened on it are as separate as SQLite's
 * `:memory:` databases.
 */
export function freshSchema(): { url: string; schema: string; pool: pg.Pool; created: Promise<void> } {
  fileDatabase.created ??= createDatabase(fileDatabase.name);
  const url = withDatabase(adminUrl(), fileDatabase.name);
  const schema = `s_${randomBytes(6).toString('hex')}`;
  const pool = new pg.Pool({
    connectionString: url,
    options: `-c search_path=${schema}`,
    max: 4,
    idleTimeoutMillis: 1000,
    allowExitOnIdle: true,
  });
  const created = fileDatabase.created.then(async () => {
    const setup = new pg.Client({ connectionString: url });
    await setup.connect();
    try {
      await setup.query(`CREATE SCHEMA ${schema}`);
    } finally {
      await setup.end();
    }
  });
  return { url, schema, pool, created };
}

/** A store in a new schema of this test file's database, usable at once (every call waits for the schema). */
export function postgresTestData(): PostgresPortalData {
  const { url, schema, pool, created } = freshSchema();
  const ready = created.then(async () => {
    await migratePostgres(pool, portalPostgresMigrations, PORTAL_MIGRATION_LOCK);
  });
  return new PostgresPortalData(pool, { connectionString: url }, { ready, channel: `access_${schema}` });
}
