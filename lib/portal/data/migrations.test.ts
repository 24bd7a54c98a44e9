import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import { portalMigrations } from './migrations.ts';
import { SqlitePortalData } from './sqlite.ts';
import { migrate } from '#shared/sqlite.ts';

const tables = (db: DatabaseSync) =>
  (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map((r) => r.name);

describe('portal migrations', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portal-mig-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('are numbered 1..n without gaps', () => {
    assert.deepEqual(portalMigrations.map((m) => m.version), portalMigrations.map((_, i) => i + 1));
  });

  it('build the whole schema on a fresh database and record every version', () => {
    const db = new DatabaseSync(':memory:');
    assert.equal(migrate(db, portalMigrations), portalMigrations.length);
    assert.deepEqual(tables(db), ['audit_events', 'control_history', 'instance_history', 'invites', 'live_links', 'memberships', 'oauth_accounts', 'password_resets', 'recent_searches', 'schema_migrations', 'sign_in_failures', 'team_keys', 'team_proxies', 'teams', 'users']);
    assert.equal(migrate(db, portalMigrations), 0, 'a second run applies nothing');
  });

  it('upgrade a version-1 database in place, keeping its rows', async () => {
    const file = join(dir, 'portal.db');
    const old = new DatabaseSync(file);
    migrate(old, portalMigrations.slice(0, 1));
    old.exec(`INSERT INTO users (id, email, name, created_at) VALUES ('usr_1', 'a@example.test', 'A', 1);
      INSERT INTO teams (id, name, personal, created_at) VALUES ('team_1', 'T', 1, 1);
      INSERT INTO memberships (team_id, user_id, role, created_at) VALUES ('team_1', 'usr_1', 'owner', 1);`);
    old.close();
    const data = SqlitePortalData.open(dir);
    try {
      assert.equal((await data.userByEmail('a@example.test'))?.id, 'usr_1');
      assert.deepEqual((await data.teamsOf('usr_1')).map((t) => [t.id, t.role]), [['team_1', 'owner']]);
      assert.deepEqual(await data.keys('team_1'), []);
      assert.equal((await data.userById('usr_1'))?.sessionVersion, 0, 'old accounts start at session version 0');
    } finally {
      data.close();
    }
  });

  it('upgrade a version-5 log: every old event keeps its actor\'s email as its label', async () => {
    const db = new DatabaseSync(':memory:');
    migrate(db, portalMigrations.slice(0, 5));
    db.exec(`INSERT INTO users (id, email, name, created_at) VALUES ('u', 'u@x.test', 'U', 1);
      INSERT INTO teams (id, name, personal, created_at) VALUES ('t', 'T', 0, 1);
      INSERT INTO audit_events (id, team_id, actor_id, action, subject, detail, created_at) VALUES ('e1', 't', 'u', 'team.created', 'T', '{}', 1);`);
    migrate(db, portalMigrations);
    const data = new SqlitePortalData(db);
    assert.deepEqual((await data.auditLog('t', { limit: 5 })).map((e) => e.actorLabel), ['u@x.test']);
  });

  it("upgrade a version-9 history: old rows keep everything and have no browser id, new rows keep theirs", async () => {
    const db = new DatabaseSync(':memory:');
    migrate(db, portalMigrations.slice(0, 9));
    db.exec(`INSERT INTO users (id, email, name, created_at) VALUES ('u', 'u@x.test', 'U', 1);
      INSERT INTO teams (id, name, personal, created_at) VALUES ('t', 'T', 0, 1);
      INSERT INTO instance_history (id, team_id, name, started_by, started_by_name, key_name, started_at, ended_at, reason, message)
        VALUES ('inst_old', 't', 'Old one', 'u', 'U', 'k', 1, 2, 'idle', 'idle');`);
    migrate(db, portalMigrations);
    const data = new SqlitePortalData(db);
    const browserId = `br_${'b'.repeat(32)}`;
    await data.recordInstance({
      id: 'inst_new', teamId: 't', name: 'New one', startedBy: 'u', startedByName: 'U', keyName: 'k',
      startedAt: 3, endedAt: 4, reason: 'stopped', message: 'stopped by U', browserId,
    }, 0);
    assert.deepEqual(
      (await data.instanceHistory('t', 0, 10)).map((r) => [r.id, r.name, r.reason, r.browserId]),
      [['inst_new', 'New one', 'stopped', browserId], ['inst_old', 'Old one', 'idle', null]],
    );
    assert.deepEqual((await data.instancesByBrowserId('t', [browserId])).map((r) => r.id), ['inst_new']);
  });

  it('enforce roles and one default key per team in the schema itself', () => {
    const db = new DatabaseSync(':memory:');
    migrate(db, portalMigrations);
    db.exec(`INSERT INTO users (id, email, name, created_at) VALUES ('u', 'u@x.test', 'U', 1);
      INSERT INTO teams (id, name, personal, created_at) VALUES ('t', 'T', 0, 1);`);
    assert.throws(() => db.exec("INSERT INTO memberships (team_id, user_id, role, created_at) VALUES ('t', 'u', 'superuser', 1)"), /CHECK/);
    const key = (id: string) => `INSERT INTO team_keys (id, team_id, name, source, hint_prefix, hint_last4, sealed, is_default, created_at)
      VALUES ('${id}', 't', 'k', 'external', 'p', 'l', 's', 1, 1)`;
    db.exec(key('k1'));
    assert.throws(() => db.exec(key('k2')), /UNIQUE/);
  });

  it('refuse a database newer than the code', () => {
    const db = new DatabaseSync(':memory:');
    migrate(db, portalMigrations);
    assert.throws(() => migrate(db, portalMigrations.slice(0, 1)), /newer than this code/);
  });
});
