import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadPortalConfig } from '#portal/config.ts';
import { SecretBox } from '#portal/crypto/secretbox.ts';
import { PORTAL_TABLES } from '#portal/data/move-to-postgres.ts';
import { PostgresPortalData } from '#portal/data/postgres.ts';
import { SqlitePortalData } from '#portal/data/sqlite.ts';
import { resolvePortalSecrets } from '#portal/keys/secrets.ts';
import { addKey, withTeamKey } from '#portal/keys/vault.ts';
import { KeyUseLog } from '#portal/teams/audit.ts';
import { createTeam } from '#portal/teams/teams.ts';
import { openServiceDatabase, type ServiceDatabase } from '#service/database.ts';
import { serviceTables } from '#service/move-to-postgres.ts';
import { SINGLE_NODE } from '#service/browser/history.ts';
import { account, RecordingIssuer } from '../helpers/portal-doubles.ts';
import { freshDatabase, testDatabaseUrl } from '../helpers/postgres-data.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const KEY = 'rk_live_moved_along_0123456789abcdef';
const HISTORY = { retentionMs: 86_400_000, recordingRetentionMs: 86_400_000, maxEndedPerKey: 100 };
const MOVED_BROWSER = `br_${'m'.repeat(32)}`;
const skip = testDatabaseUrl() ? false : 'PostgreSQL pass only (npm run test:postgres starts a private server)';

/** `npm run move-to-postgres`, run for real: a DATA_DIR's SQLite data into an empty PostgreSQL database. */
describe('moving SQLite data to PostgreSQL', { skip }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'move-to-pg-'));
  let keyEncryptionSecret: string;
  let serviceToken: string;
  let teamId: string;
  let userId: string;
  const run = (args: string[], env: Record<string, string | undefined>) =>
    spawnSync(process.execPath, [join(ROOT, 'server/cli/move-to-postgres.ts'), ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, DATA_DIR: dataDir, KEY_ENCRYPTION_SECRET: '', ...env },
    });
  /** A table's rows on PostgreSQL, in the order of its identity column `seq` when it has one. */
  const rowsOf = async (url: string, table: string) => {
    // BIGINT (epoch milliseconds, sizes) read as numbers, as SQLite gives them.
    const types = {
      getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === 20 ? Number : pg.types.getTypeParser(oid, format)),
    };
    const client = new pg.Client({ connectionString: url, types: types as pg.CustomTypesConfig });
    await client.connect();
    try {
      const rows = (await client.query(`SELECT * FROM ${table}`)).rows as Record<string, unknown>[];
      return rows.sort((a, b) => Number(a.seq ?? 0) - Number(b.seq ?? 0));
    } finally {
      await client.end();
    }
  };

  before(async () => {
    // The portal's data, made the way the portal makes it: an account, a team, a sealed key, the audit log.
    const config = loadPortalConfig({ DATA_DIR: dataDir });
    keyEncryptionSecret = resolvePortalSecrets(config).keyEncryptionSecret;
    const data = SqlitePortalData.open(dataDir);
    const vault = { data, box: new SecretBox(keyEncryptionSecret), issuer: new RecordingIssuer(), keyUse: new KeyUseLog(data) };
    const ann = await account(data, 'Ann');
    userId = ann.userId;
    const team = await createTeam(data, ann, { name: 'Moving team' });
    teamId = team.id;
    await addKey(vault, ann, team.id, { mode: 'add', name: 'K', key: KEY });
    await data.setTeamRecording(team.id, true, {
      teamId: team.id,
      actorId: ann.userId,
      action: 'team.recording',
      subject: team.id,
      detail: {},
    });
    await data.recordInstance(
      {
        id: 'inst_moved',
        teamId: team.id,
        name: 'Moved browser',
        startedBy: ann.userId,
        startedByName: 'Ann',
        keyName: 'K',
        startedAt: Date.now() - 60_000,
        endedAt: Date.now() - 30_000,
        reason: 'stopped',
        message: 'stopped by Ann',
        browserId: MOVED_BROWSER,
      },
      0,
    );
    await data.recordSearch(ann.userId, { query: 'first', language: 'en', searchedAt: 1000 }, 10);
    await data.recordSearch(ann.userId, { query: 'second', language: 'en', searchedAt: 2000 }, 10);
    await data.close();
    // The service's: a key, a browser that ended, one left live by a service that stopped.
    const service = await openServiceDatabase({ dataDir, database: { kind: 'sqlite' } }, { ratePerMinute: 40, maxInstances: 5 });
    const made = await service.keys.create('moved', {}, { record: true });
    serviceToken = made.token;
    const history = service.history(HISTORY);
    await history.started({ id: 'br_ended', keyId: made.key.id, nodeId: SINGLE_NODE, at: Date.now() - 60_000, recorded: true });
    await history.ended('br_ended', 'client-closed', Date.now() - 30_000, {
      tabs: 1,
      page: { url: 'https://example.com/', title: 'Example' },
    });
    await history.started({ id: 'br_left', keyId: made.key.id, nodeId: SINGLE_NODE, at: Date.now() - 20_000 });
    await service.close();
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('refuses bad arguments and a missing or bad DATABASE_URL with a usage message and exit code 2', () => {
    for (const [args, env, said] of [
      [['--only', 'everything'], { DATABASE_URL: 'postgres://u@127.0.0.1/db' }, /--only takes portal or service/],
      [['--sideways'], { DATABASE_URL: 'postgres://u@127.0.0.1/db' }, /Unknown option '--sideways'/],
      [[], { DATABASE_URL: '' }, /DATABASE_URL: must be set/],
      [[], { DATABASE_URL: 'mysql://u@127.0.0.1/db' }, /DATABASE_URL: must start with postgres:\/\//],
    ] as const) {
      const result = run([...args], env);
      assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, said);
      assert.match(result.stderr, /^usage: DATABASE_URL=/m);
    }
    const empty = mkdtempSync(join(tmpdir(), 'move-to-pg-empty-'));
    try {
      const result = run([], { DATA_DIR: empty, DATABASE_URL: 'postgres://u@127.0.0.1/db' });
      assert.equal(result.status, 1, result.stderr);
      assert.match(result.stderr, /holds no SQLite data to copy/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('copies every row of both owners, and each store on PostgreSQL reads it as SQLite did', async () => {
    const url = await freshDatabase();
    const result = run([], { DATABASE_URL: url });
    assert.equal(result.status, 0, result.stderr);
    assert.match(
      result.stdout,
      /^portal: copied 1 users, 2 teams, 0 oauth_accounts, 2 memberships, 0 invites, 1 team_keys, \d+ audit_events/m,
    );
    assert.match(result.stdout, /^service: copied 1 api_keys, 2 browsers$/m);

    // Row for row, table by table (SQLite's 0/1 read as PostgreSQL's booleans, blobs as bytes).
    const portalDb = new DatabaseSync(join(dataDir, 'portal.db'), { readOnly: true });
    const serviceDb = new DatabaseSync(join(dataDir, 'service.db'), { readOnly: true });
    try {
      const normal = (row: Record<string, unknown>, booleans: Set<string>) =>
        Object.fromEntries(
          Object.entries(row)
            .filter(([k]) => k !== 'seq')
            .map(([k, v]) => [k, booleans.has(k) ? Boolean(v) : v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v]),
        );
      const booleans = new Set(['personal', 'record_sessions', 'is_default', 'record', 'recorded']);
      const check = async (
        db: DatabaseSync,
        tables: readonly { name: string }[],
        adapt: (t: string, r: Record<string, unknown>) => Record<string, unknown>,
      ) => {
        for (const { name } of tables) {
          const before = (db.prepare(`SELECT * FROM ${name} ORDER BY rowid`).all() as Record<string, unknown>[]).map((r) =>
            normal(adapt(name, r), booleans),
          );
          const rows = await rowsOf(url, name);
          const key = (r: Record<string, unknown>) => JSON.stringify(Object.entries(r).sort());
          const after = rows.map((r) => key(normal(r, booleans)));
          const expected = before.map(key);
          // A table with an identity column keeps SQLite's insertion order in it; the others are sets.
          if (rows.some((r) => 'seq' in r)) assert.deepEqual(after, expected, `table ${name}, in order`);
          else assert.deepEqual(after.sort(), expected.sort(), `table ${name}`);
        }
      };
      await check(portalDb, PORTAL_TABLES, (_, r) => r);
      const now = (await rowsOf(url, 'browsers')).find((r) => r.id === 'br_left')!.ended_at;
      const tables = serviceTables(Number(now));
      await check(serviceDb, tables, (t, r) => tables.find((x) => x.name === t)!.adapt?.({ ...r }) ?? r);
    } finally {
      portalDb.close();
      serviceDb.close();
    }

    // The portal on PostgreSQL: the account, its teams, and the stored key opens with the same secret.
    const portal = await PostgresPortalData.open(url, { max: 2 });
    try {
      assert.equal((await portal.userById(userId))?.name, 'Ann');
      const teams = await portal.teamsOf(userId);
      assert.equal(teams.length, 2);
      assert.ok(teams.some((t) => t.name === 'Moving team' && t.role === 'owner'));
      assert.equal((await portal.team(teamId))?.recordSessions, true);
      assert.deepEqual(
        (await portal.recentSearches(userId, 10)).map((s) => s.query),
        ['second', 'first'],
      );
      const vault = { data: portal, box: new SecretBox(keyEncryptionSecret), issuer: new RecordingIssuer(), keyUse: new KeyUseLog(portal) };
      assert.equal(await withTeamKey(vault, { userId }, teamId, null, 'search', async (k) => k), KEY);
      assert.ok((await portal.auditLog(teamId, { limit: 50 })).some((e) => e.action === 'key.added'));
      assert.deepEqual(
        (await portal.instancesByBrowserId(teamId, [MOVED_BROWSER])).map((r) => [r.id, r.name, r.browserId]),
        [['inst_moved', 'Moved browser', MOVED_BROWSER]],
        "an ended browser keeps the service's id of it",
      );
    } finally {
      await portal.close();
    }
    // The service on PostgreSQL: the same token is accepted; the browser left live ended with its service.
    let service: ServiceDatabase | null = null;
    try {
      service = await openServiceDatabase(
        { dataDir: '/nonexistent', database: { kind: 'postgres', url } },
        { ratePerMinute: 40, maxInstances: 5 },
        { max: 2 },
      );
      const key = await service.keys.verify(serviceToken);
      assert.equal(key?.name, 'moved');
      assert.equal(key?.record, true);
      const listed = await service.history(HISTORY).list(key!.id, Date.now());
      assert.deepEqual(listed.map((b) => [b.id, b.endReason]).sort(), [
        ['br_ended', 'client-closed'],
        ['br_left', 'service-restarted'],
      ]);
    } finally {
      await service?.close();
    }
  });

  it('refuses a database that already holds data, and copies nothing of either owner then', async () => {
    const url = await freshDatabase();
    assert.equal(run(['--only', 'service'], { DATABASE_URL: url }).status, 0);
    const again = run([], { DATABASE_URL: url });
    assert.equal(again.status, 1, again.stdout);
    assert.match(again.stderr, /refused: PostgreSQL's table api_keys already holds 1 rows: copy into an empty database/);
    assert.equal((await rowsOf(url, 'users')).length, 0, "the portal's rows did not land either");
    const portalOnly = run(['--only', 'portal'], { DATABASE_URL: url });
    assert.equal(portalOnly.status, 0, portalOnly.stderr);
    assert.equal((await rowsOf(url, 'users')).length, 1);
  });
});
