import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { portalMigrations } from './migrations.ts';
import { PostgresPortalData } from './postgres.ts';
import { portalPostgresMigrations } from './postgres-migrations.ts';
import { EmailTakenError, LastOwnerError, type AccessChange, type Invite, type PortalData } from './portal-data.ts';
import { hashToken, newId } from './ids.ts';
import { migrate } from '#shared/sqlite.ts';
import { migratePostgres } from '#shared/postgres.ts';
import { account, testStore } from '../../../tests/helpers/portal-doubles.ts';
import { freshDatabase } from '../../../tests/helpers/postgres-data.ts';
import { eventually } from '../../../tests/helpers/eventually.ts';
import { createTeam } from '../teams/teams.ts';

/**
 * What only the PostgreSQL store has: its own migrations (the same tables and columns as SQLite's),
 * row locks where SQLite's BEGIN IMMEDIATE serialises writers, and access changes between
 * processes by LISTEN/NOTIFY. Two stores opened on one database stand for two portal nodes.
 */
const skip = testStore === 'postgres' ? false : 'PostgreSQL pass only (npm run test:postgres starts a private server)';

const inv = (i: Pick<Invite, 'id' | 'teamId' | 'tokenHash' | 'role' | 'createdBy'>): Invite => ({
  ...i,
  createdAt: 1,
  expiresAt: Date.now() + 3_600_000,
  usedAt: null,
  usedBy: null,
  revokedAt: null,
});
const audit = (teamId: string, actorId: string | null = null) => ({ teamId, actorId, action: 'test', subject: 'x' });

describe('portal data on PostgreSQL', { skip }, () => {
  let url = '';
  const opened: PortalData[] = [];
  const open = async () => {
    const data = await PostgresPortalData.open(url, { max: 6 });
    opened.push(data);
    return data;
  };
  before(async () => {
    url = await freshDatabase();
  });
  after(async () => {
    await Promise.all(opened.map((d) => d.close()));
  });

  it('migrates once when nodes start together, to the tables and columns SQLite has', async () => {
    const [a] = await Promise.all([open(), open(), open()]);
    assert.ok(a);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const versions = await client.query('SELECT version FROM schema_migrations ORDER BY version');
      assert.deepEqual(
        versions.rows.map((r) => r.version),
        portalPostgresMigrations.map((m) => m.version),
      );
      const columns = await client.query(`SELECT table_name, column_name FROM information_schema.columns
        WHERE table_schema = current_schema() AND column_name <> 'seq'`);
      const pgSchema = new Map<string, string[]>();
      for (const r of columns.rows) pgSchema.set(r.table_name, [...(pgSchema.get(r.table_name) ?? []), r.column_name].sort());
      const lite = new DatabaseSync(':memory:');
      migrate(lite, portalMigrations);
      const tables = lite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as {
        name: string;
      }[];
      const liteSchema = new Map(
        tables.map(({ name }) => [
          name,
          (lite.prepare(`PRAGMA table_info(${name})`).all() as { name: string }[]).map((c) => c.name).sort(),
        ]),
      );
      assert.deepEqual(new Map([...pgSchema].sort()), new Map([...liteSchema].sort()));
      assert.equal(
        await migratePostgres(new pg.Pool({ connectionString: url, max: 1, allowExitOnIdle: true }), portalPostgresMigrations, 7),
        0,
      );
      await assert.rejects(
        migratePostgres(new pg.Pool({ connectionString: url, max: 1, allowExitOnIdle: true }), portalPostgresMigrations.slice(0, 0), 7),
        /newer than this code/,
      );
    } finally {
      await client.end();
    }
  });

  it('keeps the schema rules: roles, one default key per team, one account per address, delete rules', async () => {
    const data = await open();
    const ann = await account(data, 'Ann');
    const team = await createTeam(data, ann, { name: 'Crew' });
    const again = {
      id: newId('usr'),
      email: 'ann@example.test',
      name: 'Ann',
      passwordHash: null,
      currentTeamId: null,
      createdAt: 1,
      sessionVersion: 0,
    };
    await assert.rejects(
      data.createUser(again, { id: newId('team'), name: 'T', personal: true, createdAt: 1 }, { actorId: null, action: 'x', subject: 'x' }),
      EmailTakenError,
    );
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await assert.rejects(
        client.query("INSERT INTO memberships (team_id, user_id, role, created_at) VALUES ($1, $2, 'superuser', 1)", [team.id, ann.userId]),
        /check constraint/,
      );
      const key = (id: string) =>
        client.query(
          `INSERT INTO team_keys (id, team_id, name, source, hint_prefix, hint_last4, sealed, is_default, created_at)
          VALUES ($1, $2, 'k', 'external', 'p', 'l', 's', TRUE, 1)`,
          [id, team.id],
        );
      await key('k1');
      await assert.rejects(key('k2'), /team_keys_one_default/);
      await data.deleteUser(ann.userId, 5);
      const left = await client.query(
        'SELECT (SELECT COUNT(*) FROM teams WHERE id = $1) AS teams, (SELECT COUNT(*) FROM team_keys) AS keys',
        [team.id],
      );
      assert.deepEqual(left.rows[0], { teams: '0', keys: '0' }, 'a team alone with its deleted owner goes, with its keys');
    } finally {
      await client.end();
    }
  });

  it('refuses text PostgreSQL cannot hold as bad input', async () => {
    const data = await open();
    await assert.rejects(data.userByEmail('a\u0000@example.test'), (err: Error) => (err as { status?: number }).status === 400);
  });

  it('keeps one owner when two owners step down at the same moment, on two nodes', async () => {
    const [a, b] = [await open(), await open()];
    for (let round = 0; round < 5; round++) {
      const ann = await account(a, `Ann ${round}`, `ann${round}@owners.test`);
      const bob = await account(a, `Bob ${round}`, `bob${round}@owners.test`);
      const team = await createTeam(a, ann, { name: `Two owners ${round}` });
      await a.createInvite(
        inv({ id: newId('inv'), teamId: team.id, tokenHash: hashToken(`t${round}`), role: 'admin', createdBy: ann.userId }),
        audit(team.id),
      );
      const invite = await a.inviteByTokenHash(hashToken(`t${round}`));
      assert.equal(await a.acceptInvite(invite!.id, bob.userId, 2, audit(team.id)), 'accepted');
      await a.changeMembership(team.id, bob.userId, 'owner', audit(team.id));
      const results = await Promise.allSettled([
        a.changeMembership(team.id, ann.userId, 'member', audit(team.id)),
        b.changeMembership(team.id, bob.userId, 'member', audit(team.id)),
      ]);
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1, `round ${round}: one steps down`);
      const refused = results.find((r) => r.status === 'rejected');
      assert.ok(refused?.status === 'rejected' && refused.reason instanceof LastOwnerError);
      assert.equal((await a.members(team.id)).filter((m) => m.role === 'owner').length, 1);
    }
  });

  it('lets one person accept an invitation that several open at once, and one person join once by two links', async () => {
    const [a, b] = [await open(), await open()];
    const ann = await account(a, 'Ann', 'ann@invites.test');
    const team = await createTeam(a, ann, { name: 'Invites' });
    const invite = async (token: string) => {
      await a.createInvite(
        inv({ id: newId('inv'), teamId: team.id, tokenHash: hashToken(token), role: 'member', createdBy: ann.userId }),
        audit(team.id),
      );
      return (await a.inviteByTokenHash(hashToken(token)))!.id;
    };
    const shared = await invite('shared');
    const people = await Promise.all([1, 2, 3, 4].map((n) => account(a, `P${n}`, `p${n}@invites.test`)));
    const outcomes = await Promise.all(people.map((p, i) => (i % 2 ? a : b).acceptInvite(shared, p.userId, 3, audit(team.id))));
    assert.deepEqual([...outcomes].sort(), ['accepted', 'used', 'used', 'used']);
    const [first, second] = [await invite('one'), await invite('two')];
    const carl = await account(a, 'Carl', 'carl@invites.test');
    const joined = await Promise.all([
      a.acceptInvite(first, carl.userId, 3, audit(team.id)),
      b.acceptInvite(second, carl.userId, 3, audit(team.id)),
    ]);
    assert.deepEqual([...joined].sort(), ['accepted', 'already-member']);
    assert.equal((await a.members(team.id)).length, 3);
  });

  it('makes exactly one of several keys added at once the default, and a reset link works once', async () => {
    const [a, b] = [await open(), await open()];
    const ann = await account(a, 'Ann', 'ann@keys.test');
    const team = await createTeam(a, ann, { name: 'Keys' });
    const key = (n: number) => ({
      id: newId('key'),
      teamId: team.id,
      name: `k${n}`,
      source: 'external' as const,
      serviceKeyId: null,
      hintPrefix: 'p',
      hintLast4: 'l',
      sealed: 's',
      isDefault: false,
      createdBy: ann.userId,
      createdAt: n,
      lastUsedAt: null,
      revokedAt: null,
    });
    await Promise.all([1, 2, 3, 4, 5, 6].map((n) => (n % 2 ? a : b).insertKey(key(n), audit(team.id))));
    assert.equal((await a.keys(team.id)).filter((k) => k.isDefault).length, 1);

    const tokenHash = hashToken('reset');
    await a.createPasswordReset({ tokenHash, userId: ann.userId, createdAt: 1, expiresAt: Date.now() + 60_000, usedAt: null });
    const used = await Promise.all([a, b, a, b].map((d, i) => d.usePasswordReset(tokenHash, `hash${i}`, Date.now())));
    assert.equal(used.filter(Boolean).length, 1);
    assert.equal((await a.userById(ann.userId))?.sessionVersion, 1);
  });

  it("tells every node's listeners of a committed access change, naming whose, and nothing of one rolled back", async () => {
    const [a, b] = [await open(), await open()];
    const ann = await account(a, 'Ann', 'ann@notify.test');
    const bob = await account(a, 'Bob', 'bob@notify.test');
    const team = await createTeam(a, ann, { name: 'Notify' });
    await a.createInvite(
      inv({ id: 'inv_n', teamId: team.id, tokenHash: hashToken('n'), role: 'member', createdBy: ann.userId }),
      audit(team.id),
    );
    await a.acceptInvite('inv_n', bob.userId, 2, audit(team.id));
    const onA: AccessChange[] = [];
    const onB: AccessChange[] = [];
    const offA = a.onAccessChange((c) => onA.push(c));
    const offB = b.onAccessChange((c) => onB.push(c));
    try {
      await (a as PostgresPortalData).listening();
      await (b as PostgresPortalData).listening();
      await b.endSessions(ann.userId);
      await b.changeMembership(team.id, bob.userId, 'admin', audit(team.id));
      await assert.rejects(b.changeMembership(team.id, ann.userId, 'member', audit(team.id)), LastOwnerError);
      await b.revokeLiveLink(team.id, 'lnk_none', 3, audit(team.id));
      const expected = [
        { userId: ann.userId, teamId: null },
        { userId: bob.userId, teamId: team.id },
      ];
      await eventually(
        () => onA,
        (c) => c.length >= 2,
      );
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(onA, expected, 'the other node hears each change once, in order');
      assert.deepEqual(onB, expected, 'the node that made them hears them once (not again from the server)');
    } finally {
      offA();
      offB();
    }
  });
});
