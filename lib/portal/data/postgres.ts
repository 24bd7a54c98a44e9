import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { BadRequest } from '../errors.ts';
import { ACCESS_CHANNEL, accessPayload, PostgresAccessChannel } from './postgres-access.ts';
import { portalPostgresMigrations } from './postgres-migrations.ts';
import {
  EmailTakenError,
  LastOwnerError,
  ProxyNameTakenError,
  type AccessChange,
  type AuditActor,
  type AuditEvent,
  type AuditInput,
  type AuditQuery,
  type ControlEntry,
  type FailureRecord,
  type InstanceRecord,
  type Invite,
  type InviteAcceptance,
  type LiveLink,
  type Member,
  type PasswordReset,
  type PortalData,
  type ProfileChange,
  type RecentSearch,
  type Role,
  type SealedRow,
  type Team,
  type TeamKey,
  type TeamProxy,
  type TeamWithRole,
  type User,
} from './portal-data.ts';
import {
  toAuditEvent,
  toControl,
  toFailures,
  toInstance,
  toInvite,
  toKey,
  toLiveLink,
  toMembership,
  toProxy,
  toRecentSearch,
  toTeam,
  toUser,
  type Row,
} from './rows.ts';
import { migratePostgres, RETRYABLE, sqlState, UNIQUE_VIOLATION, violatedConstraint } from '#shared/postgres.ts';

/** The advisory lock key under which portal nodes take turns migrating ("PSCP" + 1). */
export const PORTAL_MIGRATION_LOCK = 0x50534350_01;
const MAX_ATTEMPTS = 5;

type Param = string | number | boolean | null;
type Queryable = { query: (sql: string, params?: Param[]) => Promise<pg.QueryResult> };

/** One transaction's statements, and the access changes it will notify once committed. */
type Tx = {
  rows(sql: string, ...params: Param[]): Promise<Row[]>;
  row(sql: string, ...params: Param[]): Promise<Row | undefined>;
  run(sql: string, ...params: Param[]): Promise<number>;
  changed(change: AccessChange): void;
};

export type PostgresPortalDataOptions = {
  /** Settles when the schema is ready; every call waits for it (a test's fresh schema). */
  ready?: Promise<void>;
  /** The NOTIFY channel (a test isolates each schema on its own). */
  channel?: string;
};

/** PostgreSQL refuses NUL in text; refuse it here as bad input rather than fail as a server error. */
function checkParams(params: readonly Param[]): Param[] {
  for (const p of params) if (typeof p === 'string' && p.includes('\u0000')) throw new BadRequest('text must not contain NUL characters');
  return [...params];
}

/**
 * The PostgreSQL implementation of PortalData (DATABASE_URL; decision 0090). Same meaning as
 * SqlitePortalData, statement for statement. Where SQLite's BEGIN IMMEDIATE serialises every
 * writer, a transaction here locks the rows its decision reads (the team for a last-owner check
 * or a default key, the invitation being accepted, the reset token being used), and a
 * transaction that loses a deadlock or a serialization check is run again from the start.
 * Access changes are NOTIFYed inside the transaction, so other nodes hear only committed ones.
 */
export class PostgresPortalData implements PortalData {
  readonly #pool: pg.Pool;
  readonly #ready: Promise<void>;
  readonly #channel: string;
  readonly #access: PostgresAccessChannel;

  constructor(
    pool: pg.Pool,
    listenConfig: pg.ClientConfig,
    { ready = Promise.resolve(), channel = ACCESS_CHANNEL }: PostgresPortalDataOptions = {},
  ) {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
    this.#pool = pool;
    this.#ready = ready;
    ready.catch(() => {}); // seen by the first call that waits for it
    this.#channel = channel;
    // A pool's idle connection can be cut (a server restart); the next query opens a new one.
    pool.on('error', () => {});
    this.#access = new PostgresAccessChannel(listenConfig, `${process.pid}-${randomUUID()}`, channel);
  }

  /** Connect to `url`, bring the schema up to date (one node at a time) and return the store. */
  static async open(url: string, { max = 10 }: { max?: number } = {}): Promise<PostgresPortalData> {
    const pool = new pg.Pool({ connectionString: url, max, application_name: 'periscope-portal' });
    try {
      await migratePostgres(pool, portalPostgresMigrations, PORTAL_MIGRATION_LOCK);
    } catch (err) {
      await pool.end().catch(() => {});
      throw err;
    }
    return new PostgresPortalData(pool, { connectionString: url, application_name: 'periscope-portal-listen' });
  }

  async #q(sql: string, params: readonly Param[], on: Queryable = this.#pool): Promise<pg.QueryResult> {
    const checked = checkParams(params);
    await this.#ready;
    return on.query(sql, checked);
  }
  async #rows(sql: string, ...params: Param[]): Promise<Row[]> {
    return (await this.#q(sql, params)).rows as Row[];
  }
  async #row(sql: string, ...params: Param[]): Promise<Row | undefined> {
    return (await this.#rows(sql, ...params))[0];
  }
  async #run(sql: string, ...params: Param[]): Promise<number> {
    return (await this.#q(sql, params)).rowCount ?? 0;
  }

  /**
   * Run `fn` in one transaction (READ COMMITTED; `fn` takes the row locks its checks need).
   * Retried from the start after a deadlock or a serialization failure; listeners hear of its
   * access changes after the commit.
   */
  async #tx<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    await this.#ready;
    for (let attempt = 1; ; attempt++) {
      const client = await this.#pool.connect();
      const changes: AccessChange[] = [];
      const tx: Tx = {
        rows: async (sql, ...params) => (await this.#q(sql, params, client)).rows as Row[],
        row: async (sql, ...params) => ((await this.#q(sql, params, client)).rows as Row[])[0],
        run: async (sql, ...params) => (await this.#q(sql, params, client)).rowCount ?? 0,
        changed: (change) => void changes.push(change),
      };
      let broken = false;
      try {
        await client.query('BEGIN');
        const result = await fn(tx);
        for (const change of changes) {
          await client.query('SELECT pg_notify($1, $2)', [this.#channel, accessPayload(this.#access.origin, change)]);
        }
        await client.query('COMMIT');
        for (const change of changes) this.#access.local(change);
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        if (attempt < MAX_ATTEMPTS && RETRYABLE.has(sqlState(err) ?? '')) continue;
        throw err;
      } finally {
        client.release(broken);
      }
    }
  }

  async #audit(tx: Tx, e: AuditInput, at: number): Promise<void> {
    await tx.run(
      `INSERT INTO audit_events (id, team_id, actor_id, actor_label, action, subject, detail, created_at)
      VALUES ($1, $2, $3, (SELECT email FROM users WHERE id = $3), $4, $5, $6, $7)`,
      `evt_${randomUUID()}`,
      e.teamId,
      e.actorId,
      e.action,
      e.subject,
      JSON.stringify(e.detail ?? {}),
      at,
    );
  }

  /** Take the team's row lock: membership, key default and invitation changes of one team go one at a time. */
  async #lockTeam(tx: Tx, teamId: string): Promise<boolean> {
    return (await tx.row('SELECT id FROM teams WHERE id = $1 FOR UPDATE', teamId)) !== undefined;
  }

  // accounts

  async createUser(user: User, team: Team, audit: Omit<AuditInput, 'teamId'>): Promise<void> {
    try {
      await this.#tx(async (tx) => {
        await tx.run(
          'INSERT INTO users (id, email, name, password_hash, current_team_id, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
          user.id,
          user.email,
          user.name,
          user.passwordHash,
          team.id,
          user.createdAt,
        );
        await tx.run(
          'INSERT INTO teams (id, name, personal, created_at) VALUES ($1, $2, $3, $4)',
          team.id,
          team.name,
          team.personal,
          team.createdAt,
        );
        await tx.run(
          "INSERT INTO memberships (team_id, user_id, role, created_at) VALUES ($1, $2, 'owner', $3)",
          team.id,
          user.id,
          team.createdAt,
        );
        await this.#audit(tx, { ...audit, teamId: team.id }, user.createdAt);
      });
    } catch (err) {
      throw emailTaken(err) ? new EmailTakenError() : err;
    }
  }
  async userById(id: string) {
    const r = await this.#row('SELECT * FROM users WHERE id = $1', id);
    return r && toUser(r);
  }
  async userByEmail(email: string) {
    const r = await this.#row('SELECT * FROM users WHERE email = $1', email);
    return r && toUser(r);
  }
  async userByAccount(provider: string, providerAccountId: string) {
    const r = await this.#row(
      `SELECT u.* FROM users u JOIN oauth_accounts a ON a.user_id = u.id
      WHERE a.provider = $1 AND a.provider_account_id = $2`,
      provider,
      providerAccountId,
    );
    return r && toUser(r);
  }
  async linkAccount(provider: string, providerAccountId: string, userId: string, at: number) {
    await this.#run(
      'INSERT INTO oauth_accounts (provider, provider_account_id, user_id, created_at) VALUES ($1, $2, $3, $4)',
      provider,
      providerAccountId,
      userId,
      at,
    );
  }
  async setCurrentTeam(userId: string, teamId: string) {
    await this.#run('UPDATE users SET current_team_id = $1 WHERE id = $2', teamId, userId);
  }
  async updateUser(userId: string, change: ProfileChange) {
    try {
      await this.#tx(async (tx) => {
        await tx.run(
          `UPDATE users SET name = COALESCE($1, name), email = COALESCE($2, email), password_hash = COALESCE($3, password_hash),
          session_version = session_version + $4 WHERE id = $5`,
          change.name ?? null,
          change.email ?? null,
          change.passwordHash ?? null,
          change.passwordHash ? 1 : 0,
          userId,
        );
        if (change.passwordHash) tx.changed({ userId, teamId: null });
      });
    } catch (err) {
      throw emailTaken(err) ? new EmailTakenError() : err;
    }
  }
  async endSessions(userId: string) {
    await this.#tx(async (tx) => {
      await tx.run('UPDATE users SET session_version = session_version + 1 WHERE id = $1', userId);
      tx.changed({ userId, teamId: null });
    });
  }
  async deleteUser(userId: string, at: number) {
    await this.#tx(async (tx) => {
      // Lock the account, then its teams in one order (no deadlock with another deletion), so no
      // owner can leave or be demoted between the check and the deletion.
      const user = await tx.row('SELECT email FROM users WHERE id = $1 FOR UPDATE', userId);
      await tx.rows(
        'SELECT t.id FROM teams t JOIN memberships m ON m.team_id = t.id WHERE m.user_id = $1 ORDER BY t.id FOR UPDATE OF t',
        userId,
      );
      const teams = await tx.rows(
        `SELECT t.id, t.name, m.role,
          (SELECT COUNT(*) FROM memberships o WHERE o.team_id = t.id AND o.user_id <> m.user_id) AS others,
          (SELECT COUNT(*) FROM memberships o WHERE o.team_id = t.id AND o.user_id <> m.user_id AND o.role = 'owner') AS other_owners
        FROM teams t JOIN memberships m ON m.team_id = t.id WHERE m.user_id = $1`,
        userId,
      );
      const stranded = teams.filter((t) => t.role === 'owner' && Number(t.others) > 0 && Number(t.other_owners) === 0);
      if (stranded.length) throw new LastOwnerError(stranded.map((t) => t.name as string));
      const email = user?.email as string | undefined;
      const stays: string[] = [];
      for (const t of teams) {
        if (Number(t.others) === 0) {
          await tx.run('DELETE FROM teams WHERE id = $1', t.id as string);
        } else {
          stays.push(t.id as string);
          await this.#audit(
            tx,
            {
              teamId: t.id as string,
              actorId: userId,
              action: 'member.left',
              subject: email ?? userId,
              detail: { role: t.role, accountDeleted: true },
            },
            at,
          );
        }
      }
      // Invitations they made are withdrawn (used ones are history the audit log already holds).
      await tx.run('DELETE FROM invites WHERE created_by = $1', userId);
      await tx.run('UPDATE invites SET used_by = NULL WHERE used_by = $1', userId);
      await tx.run('DELETE FROM users WHERE id = $1', userId);
      if (email) await tx.run('DELETE FROM sign_in_failures WHERE scope = $1', `email:${email}`);
      tx.changed({ userId, teamId: null });
      for (const teamId of stays) tx.changed({ userId, teamId });
    });
  }
  async createPasswordReset(r: PasswordReset) {
    await this.#run(
      'INSERT INTO password_resets (token_hash, user_id, created_at, expires_at, used_at) VALUES ($1, $2, $3, $4, $5)',
      r.tokenHash,
      r.userId,
      r.createdAt,
      r.expiresAt,
      r.usedAt,
    );
  }
  async usePasswordReset(tokenHash: string, passwordHash: string, now: number) {
    return this.#tx(async (tx) => {
      // Claiming the token is the check: of two uses at once, the second finds it used.
      const reset = await tx.row(
        'UPDATE password_resets SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL AND expires_at > $1 RETURNING user_id',
        now,
        tokenHash,
      );
      if (!reset) return undefined;
      const userId = reset.user_id as string;
      // One use, and every other open link of the account dies with it.
      await tx.run('UPDATE password_resets SET used_at = $1 WHERE user_id = $2 AND used_at IS NULL', now, userId);
      const row = await tx.row(
        'UPDATE users SET password_hash = $1, session_version = session_version + 1 WHERE id = $2 RETURNING *',
        passwordHash,
        userId,
      );
      if (!row) return undefined;
      await tx.run('DELETE FROM sign_in_failures WHERE scope = $1', `email:${row.email as string}`);
      tx.changed({ userId, teamId: null });
      return toUser(row);
    });
  }
  onAccessChange(listener: (change: AccessChange) => void): () => void {
    return this.#access.subscribe(listener);
  }
  /** Resolves once changes other processes commit reach this one's listeners. */
  listening(): Promise<void> {
    return this.#access.listening();
  }

  // teams and members

  async teamsOf(userId: string): Promise<TeamWithRole[]> {
    const rows = await this.#rows(
      `SELECT t.*, m.role FROM teams t JOIN memberships m ON m.team_id = t.id
      WHERE m.user_id = $1 ORDER BY t.personal DESC, lower(t.name) COLLATE "C", t.id`,
      userId,
    );
    return rows.map((r) => ({ ...toTeam(r), role: r.role as Role }));
  }
  async team(id: string) {
    const r = await this.#row('SELECT * FROM teams WHERE id = $1', id);
    return r && toTeam(r);
  }
  async createTeam(team: Team, ownerId: string, audit: AuditInput) {
    await this.#tx(async (tx) => {
      await tx.run(
        'INSERT INTO teams (id, name, personal, created_at) VALUES ($1, $2, $3, $4)',
        team.id,
        team.name,
        team.personal,
        team.createdAt,
      );
      await tx.run(
        "INSERT INTO memberships (team_id, user_id, role, created_at) VALUES ($1, $2, 'owner', $3)",
        team.id,
        ownerId,
        team.createdAt,
      );
      await this.#audit(tx, audit, team.createdAt);
    });
  }
  async renameTeam(teamId: string, name: string, audit: AuditInput) {
    await this.#tx(async (tx) => {
      await tx.run('UPDATE teams SET name = $1 WHERE id = $2', name, teamId);
      await this.#audit(tx, audit, Date.now());
    });
  }
  async setTeamRecording(teamId: string, record: boolean, audit: AuditInput) {
    await this.#tx(async (tx) => {
      await tx.run('UPDATE teams SET record_sessions = $1 WHERE id = $2', record, teamId);
      await this.#audit(tx, audit, Date.now());
    });
  }
  async membership(teamId: string, userId: string) {
    const r = await this.#row('SELECT * FROM memberships WHERE team_id = $1 AND user_id = $2', teamId, userId);
    return r && toMembership(r);
  }
  async members(teamId: string): Promise<Member[]> {
    const rows = await this.#rows(
      `SELECT m.*, u.email, u.name FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.team_id = $1 ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END, u.email`,
      teamId,
    );
    return rows.map((r) => ({ ...toMembership(r), email: r.email as string, name: r.name as string }));
  }
  async changeMembership(teamId: string, userId: string, role: Role | null, audit: AuditInput) {
    await this.#tx(async (tx) => {
      // Two owners demoting each other at once: the second waits here, then counts one owner.
      await this.#lockTeam(tx, teamId);
      if (role === null) await tx.run('DELETE FROM memberships WHERE team_id = $1 AND user_id = $2', teamId, userId);
      else await tx.run('UPDATE memberships SET role = $1 WHERE team_id = $2 AND user_id = $3', role, teamId, userId);
      const owners = await tx.row("SELECT COUNT(*) AS n FROM memberships WHERE team_id = $1 AND role = 'owner'", teamId);
      if (Number(owners?.n ?? 0) < 1) throw new LastOwnerError();
      if (role === null) await tx.run('UPDATE users SET current_team_id = NULL WHERE id = $1 AND current_team_id = $2', userId, teamId);
      await this.#audit(tx, audit, Date.now());
      tx.changed({ userId, teamId });
    });
  }

  // invites

  async createInvite(i: Invite, audit: AuditInput) {
    await this.#tx(async (tx) => {
      await tx.run(
        `INSERT INTO invites (id, team_id, token_hash, role, created_by, created_at, expires_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        i.id,
        i.teamId,
        i.tokenHash,
        i.role,
        i.createdBy,
        i.createdAt,
        i.expiresAt,
      );
      await this.#audit(tx, audit, i.createdAt);
    });
  }
  async invite(id: string) {
    const r = await this.#row('SELECT * FROM invites WHERE id = $1', id);
    return r && toInvite(r);
  }
  async inviteByTokenHash(tokenHash: string) {
    const r = await this.#row('SELECT * FROM invites WHERE token_hash = $1', tokenHash);
    return r && toInvite(r);
  }
  async pendingInvites(teamId: string, now: number) {
    const rows = await this.#rows(
      `SELECT * FROM invites WHERE team_id = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $2
      ORDER BY created_at DESC, seq`,
      teamId,
      now,
    );
    return rows.map(toInvite);
  }
  async revokeInvite(teamId: string, inviteId: string, at: number, audit: AuditInput) {
    return this.#tx(async (tx) => {
      const n = await tx.run(
        'UPDATE invites SET revoked_at = $1 WHERE id = $2 AND team_id = $3 AND used_at IS NULL AND revoked_at IS NULL',
        at,
        inviteId,
        teamId,
      );
      if (n) await this.#audit(tx, audit, at);
      return n > 0;
    });
  }
  async acceptInvite(inviteId: string, userId: string, now: number, audit: AuditInput): Promise<InviteAcceptance> {
    return this.#tx(async (tx) => {
      const found = await tx.row('SELECT team_id FROM invites WHERE id = $1', inviteId);
      if (!found) return 'revoked';
      // The team first, then the invitation (the order every change of a team takes): two people
      // accepting one link, or one person two links of a team, go one after the other.
      await this.#lockTeam(tx, found.team_id as string);
      const r = await tx.row('SELECT * FROM invites WHERE id = $1 FOR UPDATE', inviteId);
      if (!r) return 'revoked';
      const invite = toInvite(r);
      if (invite.revokedAt !== null) return 'revoked';
      if (invite.usedAt !== null) return 'used';
      if (invite.expiresAt <= now) return 'expired';
      if (await tx.row('SELECT 1 FROM memberships WHERE team_id = $1 AND user_id = $2', invite.teamId, userId)) return 'already-member';
      await tx.run('UPDATE invites SET used_at = $1, used_by = $2 WHERE id = $3 AND used_at IS NULL', now, userId, inviteId);
      await tx.run(
        'INSERT INTO memberships (team_id, user_id, role, created_at) VALUES ($1, $2, $3, $4)',
        invite.teamId,
        userId,
        invite.role,
        now,
      );
      await this.#audit(tx, audit, now);
      return 'accepted';
    });
  }

  // key vault

  async insertKey(k: TeamKey, audit: AuditInput) {
    await this.#tx(async (tx) => {
      await this.#lockTeam(tx, k.teamId);
      const hasDefault = await tx.row('SELECT 1 FROM team_keys WHERE team_id = $1 AND is_default', k.teamId);
      await tx.run(
        `INSERT INTO team_keys (id, team_id, name, source, service_key_id, hint_prefix, hint_last4, sealed, is_default, created_by, created_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        k.id,
        k.teamId,
        k.name,
        k.source,
        k.serviceKeyId,
        k.hintPrefix,
        k.hintLast4,
        k.sealed,
        !hasDefault,
        k.createdBy,
        k.createdAt,
      );
      await this.#audit(tx, audit, k.createdAt);
    });
  }
  async keys(teamId: string) {
    return (
      await this.#rows('SELECT * FROM team_keys WHERE team_id = $1 ORDER BY revoked_at IS NOT NULL, created_at DESC, id', teamId)
    ).map(toKey);
  }
  async key(teamId: string, keyId: string) {
    const r = await this.#row('SELECT * FROM team_keys WHERE team_id = $1 AND id = $2', teamId, keyId);
    return r && toKey(r);
  }
  async renameKey(teamId: string, keyId: string, name: string, audit: AuditInput) {
    await this.#tx(async (tx) => {
      await tx.run('UPDATE team_keys SET name = $1 WHERE team_id = $2 AND id = $3', name, teamId, keyId);
      await this.#audit(tx, audit, Date.now());
    });
  }
  async setDefaultKey(teamId: string, keyId: string, audit: AuditInput) {
    await this.#tx(async (tx) => {
      await this.#lockTeam(tx, teamId);
      await tx.run('UPDATE team_keys SET is_default = FALSE WHERE team_id = $1 AND is_default', teamId);
      await tx.run('UPDATE team_keys SET is_default = TRUE WHERE team_id = $1 AND id = $2 AND revoked_at IS NULL', teamId, keyId);
      await this.#audit(tx, audit, Date.now());
    });
  }
  async revokeKey(teamId: string, keyId: string, at: number, audit: AuditInput) {
    return this.#tx(async (tx) => {
      await this.#lockTeam(tx, teamId);
      const n = await tx.run(
        'UPDATE team_keys SET revoked_at = $1, is_default = FALSE WHERE team_id = $2 AND id = $3 AND revoked_at IS NULL',
        at,
        teamId,
        keyId,
      );
      if (n) {
        // The newest live key, if any, becomes the default so the team keeps working.
        if (!(await tx.row('SELECT 1 FROM team_keys WHERE team_id = $1 AND is_default', teamId))) {
          await tx.run(
            `UPDATE team_keys SET is_default = TRUE WHERE id = (SELECT id FROM team_keys WHERE team_id = $1 AND revoked_at IS NULL
            ORDER BY created_at DESC LIMIT 1)`,
            teamId,
          );
        }
        await this.#audit(tx, audit, at);
      }
      return n > 0;
    });
  }
  async touchKey(keyId: string, at: number) {
    await this.#run('UPDATE team_keys SET last_used_at = $1 WHERE id = $2', at, keyId);
  }
  async allSealed() {
    return (
      await this.#rows(`SELECT 'key' AS kind, id, sealed FROM team_keys UNION ALL SELECT 'proxy' AS kind, id, sealed FROM team_proxies
        ORDER BY kind, id`)
    ).map((r) => ({ kind: r.kind as SealedRow['kind'], id: r.id as string, sealed: r.sealed as string }));
  }
  async replaceSealed(rows: readonly SealedRow[]) {
    await this.#tx(async (tx) => {
      for (const r of rows) await tx.run(`UPDATE ${r.kind === 'key' ? 'team_keys' : 'team_proxies'} SET sealed = $1 WHERE id = $2`, r.sealed, r.id);
    });
  }

  // team proxies

  async insertProxy(x: TeamProxy, audit: AuditInput) {
    try {
      await this.#tx(async (tx) => {
        await tx.run(
          `INSERT INTO team_proxies (id, team_id, name, scheme, host, port, has_credentials, sealed, created_by, created_at)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
          x.id,
          x.teamId,
          x.name,
          x.scheme,
          x.host,
          x.port,
          x.hasCredentials,
          x.sealed,
          x.createdBy,
          x.createdAt,
        );
        await this.#audit(tx, audit, x.createdAt);
      });
    } catch (err) {
      throw sqlState(err) === UNIQUE_VIOLATION && violatedConstraint(err) === 'team_proxies_name' ? new ProxyNameTakenError() : err;
    }
  }
  async proxies(teamId: string) {
    return (await this.#rows('SELECT * FROM team_proxies WHERE team_id = $1 ORDER BY name, id', teamId)).map(toProxy);
  }
  async proxy(teamId: string, proxyId: string) {
    const r = await this.#row('SELECT * FROM team_proxies WHERE team_id = $1 AND id = $2', teamId, proxyId);
    return r && toProxy(r);
  }
  async deleteProxy(teamId: string, proxyId: string, audit: AuditInput) {
    return this.#tx(async (tx) => {
      const n = await tx.run('DELETE FROM team_proxies WHERE team_id = $1 AND id = $2', teamId, proxyId);
      if (n) await this.#audit(tx, audit, Date.now());
      return n > 0;
    });
  }

  // audit

  async audit(event: AuditInput, at: number) {
    // An event may arrive after its team is gone (a browser of a team deleted with its last member
    // ends afterwards): like the instance history, it is dropped with the team.
    await this.#tx(async (tx) => {
      if (await tx.row('SELECT 1 FROM teams WHERE id = $1 FOR SHARE', event.teamId)) await this.#audit(tx, event, at);
    });
  }
  async auditLog(teamId: string, q: AuditQuery): Promise<AuditEvent[]> {
    const params: Param[] = [teamId];
    const p = (v: Param) => `$${params.push(v)}`;
    const where = ['e.team_id = $1'];
    if (q.before) where.push(`(e.created_at < ${p(q.before.at)} OR (e.created_at = ${p(q.before.at)} AND e.id < ${p(q.before.id)}))`);
    if (q.actions) where.push(q.actions.length ? `e.action IN (${q.actions.map((a) => p(a)).join(', ')})` : 'FALSE');
    if (q.actorId) where.push(`e.actor_id = ${p(q.actorId)}`);
    const rows = await this.#rows(
      `SELECT e.* FROM audit_events e WHERE ${where.join(' AND ')} ORDER BY e.created_at DESC, e.id DESC LIMIT ${p(q.limit)}`,
      ...params,
    );
    return rows.map(toAuditEvent);
  }
  async auditActors(teamId: string): Promise<AuditActor[]> {
    const rows = await this.#rows(
      `SELECT actor_id, MAX(actor_label) AS label FROM audit_events WHERE team_id = $1 AND actor_id IS NOT NULL
      GROUP BY actor_id ORDER BY lower(MAX(actor_label)) COLLATE "C"`,
      teamId,
    );
    return rows.map((r) => ({ id: r.actor_id as string, label: (r.label as string | null) ?? (r.actor_id as string) }));
  }

  // browser instance history

  async recordInstance(r: InstanceRecord, keepSince: number) {
    await this.#tx(async (tx) => {
      // The starter may since have left (a deleted user keeps the name only); a team that is gone takes its history along.
      await tx.run(
        `INSERT INTO instance_history (id, team_id, name, started_by, started_by_name, key_name, started_at, ended_at, reason, message, browser_id)
        SELECT $1, $2, $3, (SELECT id FROM users WHERE id = $4), $5, $6, $7, $8, $9, $10, $11 WHERE EXISTS (SELECT 1 FROM teams WHERE id = $2)
        ON CONFLICT (id) DO NOTHING`,
        r.id,
        r.teamId,
        r.name,
        r.startedBy,
        r.startedByName,
        r.keyName,
        r.startedAt,
        r.endedAt,
        r.reason,
        r.message,
        r.browserId,
      );
      await tx.run('DELETE FROM instance_history WHERE ended_at < $1', keepSince);
    });
  }
  async instanceHistory(teamId: string, since: number, limit: number): Promise<InstanceRecord[]> {
    const rows = await this.#rows(
      'SELECT * FROM instance_history WHERE team_id = $1 AND ended_at >= $2 ORDER BY ended_at DESC, seq DESC LIMIT $3',
      teamId,
      since,
      limit,
    );
    return rows.map(toInstance);
  }
  async instancesByBrowserId(teamId: string, browserIds: readonly string[]): Promise<InstanceRecord[]> {
    const ids = [...new Set(browserIds)];
    if (ids.length === 0) return [];
    const rows = await this.#rows(
      `SELECT * FROM instance_history WHERE team_id = $1 AND browser_id IN (SELECT jsonb_array_elements_text($2::jsonb))
      ORDER BY ended_at DESC, seq DESC`,
      teamId,
      JSON.stringify(ids),
    );
    return rows.map(toInstance);
  }

  // who had control of a browser

  async recordControl(e: ControlEntry, keepSince: number) {
    await this.#tx(async (tx) => {
      await tx.run(
        `INSERT INTO control_history (browser_id, team_id, at, user_id, name)
        SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM teams WHERE id = $2)`,
        e.browserId,
        e.teamId,
        e.at,
        e.userId,
        e.name,
      );
      await tx.run('DELETE FROM control_history WHERE at < $1', keepSince);
    });
  }
  async controlHistory(teamId: string, browserId: string): Promise<ControlEntry[]> {
    return (
      await this.#rows('SELECT * FROM control_history WHERE team_id = $1 AND browser_id = $2 ORDER BY at, seq', teamId, browserId)
    ).map(toControl);
  }

  // shared links to live browsers

  async createLiveLink(l: LiveLink, audit: AuditInput) {
    await this.#tx(async (tx) => {
      await tx.run(
        `INSERT INTO live_links (id, team_id, instance_id, token_hash, mode, label, created_by, created_at, expires_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        l.id,
        l.teamId,
        l.instanceId,
        l.tokenHash,
        l.mode,
        l.label,
        l.createdBy,
        l.createdAt,
        l.expiresAt,
      );
      await this.#audit(tx, audit, l.createdAt);
    });
  }
  async liveLinkByTokenHash(tokenHash: string) {
    const r = await this.#row('SELECT * FROM live_links WHERE token_hash = $1', tokenHash);
    return r && toLiveLink(r);
  }
  async liveLink(teamId: string, linkId: string) {
    const r = await this.#row('SELECT * FROM live_links WHERE id = $1 AND team_id = $2', linkId, teamId);
    return r && toLiveLink(r);
  }
  async liveLinks(teamId: string, instanceId: string, now: number) {
    const rows = await this.#rows(
      `SELECT * FROM live_links WHERE team_id = $1 AND instance_id = $2 AND revoked_at IS NULL AND expires_at > $3
      ORDER BY created_at DESC, seq DESC`,
      teamId,
      instanceId,
      now,
    );
    return rows.map(toLiveLink);
  }
  async revokeLiveLink(teamId: string, linkId: string, at: number, audit: AuditInput) {
    return this.#tx(async (tx) => {
      const n = await tx.run(
        'UPDATE live_links SET revoked_at = $1 WHERE id = $2 AND team_id = $3 AND revoked_at IS NULL',
        at,
        linkId,
        teamId,
      );
      if (!n) return false;
      await this.#audit(tx, audit, at);
      tx.changed({ userId: null, teamId });
      return true;
    });
  }

  // recent searches

  async recordSearch(userId: string, r: RecentSearch, keep: number) {
    await this.#tx(async (tx) => {
      // One user's searches change one at a time (two tabs searching at once).
      await tx.row('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', userId);
      // Delete, then insert: a repeated search gets a new seq, which orders searches made in one millisecond.
      await tx.run('DELETE FROM recent_searches WHERE user_id = $1 AND query = $2 AND language = $3', userId, r.query, r.language);
      await tx.run(
        'INSERT INTO recent_searches (user_id, query, language, searched_at) VALUES ($1, $2, $3, $4)',
        userId,
        r.query,
        r.language,
        r.searchedAt,
      );
      await tx.run(
        `DELETE FROM recent_searches WHERE user_id = $1 AND seq NOT IN
        (SELECT seq FROM recent_searches WHERE user_id = $1 ORDER BY searched_at DESC, seq DESC LIMIT $2)`,
        userId,
        keep,
      );
    });
  }
  async recentSearches(userId: string, limit: number): Promise<RecentSearch[]> {
    const rows = await this.#rows(
      'SELECT query, language, searched_at FROM recent_searches WHERE user_id = $1 ORDER BY searched_at DESC, seq DESC LIMIT $2',
      userId,
      limit,
    );
    return rows.map(toRecentSearch);
  }
  async clearRecentSearches(userId: string) {
    await this.#run('DELETE FROM recent_searches WHERE user_id = $1', userId);
  }

  // sign-in throttling

  async failures(scope: string): Promise<FailureRecord | undefined> {
    const r = await this.#row('SELECT * FROM sign_in_failures WHERE scope = $1', scope);
    return r && toFailures(r);
  }
  async saveFailures(f: FailureRecord) {
    await this.#run(
      `INSERT INTO sign_in_failures (scope, failures, window_started_at, locked_until) VALUES ($1, $2, $3, $4)
      ON CONFLICT (scope) DO UPDATE SET failures = excluded.failures, window_started_at = excluded.window_started_at,
      locked_until = excluded.locked_until`,
      f.scope,
      f.failures,
      f.windowStartedAt,
      f.lockedUntil,
    );
  }
  async clearFailures(scope: string) {
    await this.#run('DELETE FROM sign_in_failures WHERE scope = $1', scope);
  }

  async close() {
    this.#access.close();
    await this.#pool.end();
  }
}

const emailTaken = (err: unknown): boolean => sqlState(err) === UNIQUE_VIOLATION && violatedConstraint(err) === 'users_email_unique';
