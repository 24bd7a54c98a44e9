import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import { portalMigrations } from './migrations.ts';
import {
  EmailTakenError, LastOwnerError, type AccessChange, type AuditActor, type AuditEvent, type AuditInput, type AuditQuery, type ControlEntry, type PasswordReset, type ProfileChange, type FailureRecord, type RecentSearch, type InstanceRecord, type Invite, type LiveLink, type InviteAcceptance, type Member,
  ProxyNameTakenError, type PortalData, type Role, type SealedRow, type Team, type TeamKey, type TeamProxy, type TeamWithRole, type User,
} from './portal-data.ts';
import { type Row, toAuditEvent, toControl, toFailures, toInstance, toInvite, toKey, toLiveLink, toMembership, toProxy, toRecentSearch, toTeam, toUser } from './rows.ts';
import { openDatabase } from '#shared/sqlite.ts';


export function openPortalDatabase(dataDir: string): DatabaseSync {
  return openDatabase(join(dataDir, 'portal.db'), portalMigrations);
}

/** The SQLite implementation of PortalData: every SQL statement of the portal lives in this file. */
export class SqlitePortalData implements PortalData {
  readonly #db: DatabaseSync;
  readonly #access = new EventEmitter<{ change: [AccessChange] }>();
  readonly #pollMs: number;
  #poll: NodeJS.Timeout | null = null;
  #dataVersion = 0;

  /** `pollMs`: how often to look for changes committed by other processes while anyone listens. */
  constructor(db: DatabaseSync, { pollMs = 1000 }: { pollMs?: number } = {}) {
    this.#access.setMaxListeners(0);
    this.#db = db;
    this.#pollMs = pollMs;
  }

  static open(dataDir: string): SqlitePortalData {
    return new SqlitePortalData(openPortalDatabase(dataDir));
  }

  #get(sql: string, ...params: SQLInputValue[]): Row | undefined {
    return this.#db.prepare(sql).get(...params) as Row | undefined;
  }
  #all(sql: string, ...params: SQLInputValue[]): Row[] {
    return this.#db.prepare(sql).all(...params) as Row[];
  }
  #run(sql: string, ...params: SQLInputValue[]): number {
    return Number(this.#db.prepare(sql).run(...params).changes);
  }
  #tx<T>(fn: () => T): T {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const result = fn();
      this.#db.exec('COMMIT');
      return result;
    } catch (err) {
      this.#db.exec('ROLLBACK');
      throw err;
    }
  }
  #audit(e: AuditInput, at: number): void {
    this.#run(`INSERT INTO audit_events (id, team_id, actor_id, actor_label, action, subject, detail, created_at)
      VALUES (?, ?, ?, (SELECT email FROM users WHERE id = ?), ?, ?, ?, ?)`,
    `evt_${randomUUID()}`, e.teamId, e.actorId, e.actorId, e.action, e.subject, JSON.stringify(e.detail ?? {}), at);
  }
  /** Tell listeners, after the change is committed (a listener that throws cannot undo it). */
  #changed(change: AccessChange): void {
    queueMicrotask(() => this.#access.emit('change', change));
  }

  // accounts

  async createUser(user: User, team: Team, audit: Omit<AuditInput, 'teamId'>): Promise<void> {
    try {
      this.#createUser(user, team, audit);
    } catch (err) {
      if (/UNIQUE constraint failed: users\.email/.test((err as Error).message)) throw new EmailTakenError();
      throw err;
    }
  }
  #createUser(user: User, team: Team, audit: Omit<AuditInput, 'teamId'>): void {
    this.#tx(() => {
      this.#run('INSERT INTO users (id, email, name, password_hash, current_team_id, created_at) VALUES (?, ?, ?, ?, ?, ?)',
        user.id, user.email, user.name, user.passwordHash, team.id, user.createdAt);
      this.#run('INSERT INTO teams (id, name, personal, created_at) VALUES (?, ?, ?, ?)', team.id, team.name, team.personal ? 1 : 0, team.createdAt);
      this.#run('INSERT INTO memberships (team_id, user_id, role, created_at) VALUES (?, ?, ?, ?)', team.id, user.id, 'owner', team.createdAt);
      this.#audit({ ...audit, teamId: team.id }, user.createdAt);
    });
  }
  async userById(id: string) {
    const r = this.#get('SELECT * FROM users WHERE id = ?', id);
    return r && toUser(r);
  }
  async userByEmail(email: string) {
    const r = this.#get('SELECT * FROM users WHERE email = ?', email);
    return r && toUser(r);
  }
  async userByAccount(provider: string, providerAccountId: string) {
    const r = this.#get(`SELECT u.* FROM users u JOIN oauth_accounts a ON a.user_id = u.id
      WHERE a.provider = ? AND a.provider_account_id = ?`, provider, providerAccountId);
    return r && toUser(r);
  }
  async linkAccount(provider: string, providerAccountId: string, userId: string, at: number) {
    this.#run('INSERT INTO oauth_accounts (provider, provider_account_id, user_id, created_at) VALUES (?, ?, ?, ?)', provider, providerAccountId, userId, at);
  }
  async setCurrentTeam(userId: string, teamId: string) {
    this.#run('UPDATE users SET current_team_id = ? WHERE id = ?', teamId, userId);
  }
  async updateUser(userId: string, change: ProfileChange) {
    try {
      this.#run(`UPDATE users SET name = COALESCE(?, name), email = COALESCE(?, email), password_hash = COALESCE(?, password_hash),
        session_version = session_version + ? WHERE id = ?`, change.name ?? null, change.email ?? null, change.passwordHash ?? null,
      change.passwordHash ? 1 : 0, userId);
    } catch (err) {
      if (/UNIQUE constraint failed: users\.email/.test((err as Error).message)) throw new EmailTakenError();
      throw err;
    }
    if (change.passwordHash) this.#changed({ userId, teamId: null });
  }
  async endSessions(userId: string) {
    this.#run('UPDATE users SET session_version = session_version + 1 WHERE id = ?', userId);
    this.#changed({ userId, teamId: null });
  }
  async deleteUser(userId: string, at: number) {
    const left = this.#tx(() => {
      const teams = this.#all(`SELECT t.id, t.name, m.role,
          (SELECT COUNT(*) FROM memberships o WHERE o.team_id = t.id AND o.user_id <> m.user_id) AS others,
          (SELECT COUNT(*) FROM memberships o WHERE o.team_id = t.id AND o.user_id <> m.user_id AND o.role = 'owner') AS other_owners
        FROM teams t JOIN memberships m ON m.team_id = t.id WHERE m.user_id = ?`, userId);
      const stranded = teams.filter((t) => t.role === 'owner' && Number(t.others) > 0 && Number(t.other_owners) === 0);
      if (stranded.length) throw new LastOwnerError(stranded.map((t) => t.name as string));
      const email = this.#get('SELECT email FROM users WHERE id = ?', userId)?.email as string | undefined;
      const stays: string[] = [];
      for (const t of teams) {
        if (Number(t.others) === 0) {
          this.#run('DELETE FROM teams WHERE id = ?', t.id as string);
        } else {
          stays.push(t.id as string);
          this.#audit({ teamId: t.id as string, actorId: userId, action: 'member.left', subject: email ?? userId, detail: { role: t.role, accountDeleted: true } }, at);
        }
      }
      // Invitations they made are withdrawn (used ones are history the audit log already holds).
      this.#run('DELETE FROM invites WHERE created_by = ?', userId);
      this.#run('UPDATE invites SET used_by = NULL WHERE used_by = ?', userId);
      this.#run('DELETE FROM users WHERE id = ?', userId);
      if (email) this.#run('DELETE FROM sign_in_failures WHERE scope = ?', `email:${email}`);
      return stays;
    });
    this.#changed({ userId, teamId: null });
    for (const teamId of left) this.#changed({ userId, teamId });
  }
  async createPasswordReset(r: PasswordReset) {
    this.#run('INSERT INTO password_resets (token_hash, user_id, created_at, expires_at, used_at) VALUES (?, ?, ?, ?, ?)',
      r.tokenHash, r.userId, r.createdAt, r.expiresAt, r.usedAt);
  }
  async usePasswordReset(tokenHash: string, passwordHash: string, now: number) {
    const user = this.#tx(() => {
      const reset = this.#get('SELECT user_id FROM password_resets WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?', tokenHash, now);
      if (!reset) return undefined;
      const userId = reset.user_id as string;
      // One use, and every other open link of the account dies with it.
      this.#run('UPDATE password_resets SET used_at = ? WHERE user_id = ? AND used_at IS NULL', now, userId);
      this.#run('UPDATE users SET password_hash = ?, session_version = session_version + 1 WHERE id = ?', passwordHash, userId);
      const row = this.#get('SELECT * FROM users WHERE id = ?', userId);
      if (row) this.#run('DELETE FROM sign_in_failures WHERE scope = ?', `email:${row.email as string}`);
      return row && toUser(row);
    });
    if (user) this.#changed({ userId: user.id, teamId: null });
    return user;
  }
  onAccessChange(listener: (change: AccessChange) => void): () => void {
    this.#access.on('change', listener);
    this.#watchOtherWriters();
    return () => {
      this.#access.off('change', listener);
      if (this.#access.listenerCount('change') === 0) this.#stopWatching();
    };
  }

  /**
   * Another process (the portal:users CLI signing someone out) commits to the same file without
   * telling this one. SQLite's data_version changes exactly when another connection has committed
   * since it was last read: one cheap pragma a second while sockets listen.
   */
  #watchOtherWriters(): void {
    if (this.#poll) return;
    this.#dataVersion = this.#readDataVersion();
    this.#poll = setInterval(() => {
      const version = this.#readDataVersion();
      if (version === this.#dataVersion) return;
      this.#dataVersion = version;
      this.#access.emit('change', { userId: null, teamId: null });
    }, this.#pollMs);
    this.#poll.unref();
  }

  #stopWatching(): void {
    if (this.#poll) clearInterval(this.#poll);
    this.#poll = null;
  }

  #readDataVersion(): number {
    return Number((this.#get('PRAGMA data_version') as { data_version: number }).data_version);
  }

  // teams and members

  async teamsOf(userId: string): Promise<TeamWithRole[]> {
    return this.#all(`SELECT t.*, m.role FROM teams t JOIN memberships m ON m.team_id = t.id
      WHERE m.user_id = ? ORDER BY t.personal DESC, t.name COLLATE NOCASE, t.id`, userId)
      .map((r) => ({ ...toTeam(r), role: r.role as Role }));
  }
  async team(id: string) {
    const r = this.#get('SELECT * FROM teams WHERE id = ?', id);
    return r && toTeam(r);
  }
  async createTeam(team: Team, ownerId: string, audit: AuditInput) {
    this.#tx(() => {
      this.#run('INSERT INTO teams (id, name, personal, created_at) VALUES (?, ?, ?, ?)', team.id, team.name, team.personal ? 1 : 0, team.createdAt);
      this.#run('INSERT INTO memberships (team_id, user_id, role, created_at) VALUES (?, ?, ?, ?)', team.id, ownerId, 'owner', team.createdAt);
      this.#audit(audit, team.createdAt);
    });
  }
  async renameTeam(teamId: string, name: string, audit: AuditInput) {
    this.#tx(() => {
      this.#run('UPDATE teams SET name = ? WHERE id = ?', name, teamId);
      this.#audit(audit, Date.now());
    });
  }
  async setTeamRecording(teamId: string, record: boolean, audit: AuditInput) {
    this.#tx(() => {
      this.#run('UPDATE teams SET record_sessions = ? WHERE id = ?', record ? 1 : 0, teamId);
      this.#audit(audit, Date.now());
    });
  }
  async membership(teamId: string, userId: string) {
    const r = this.#get('SELECT * FROM memberships WHERE team_id = ? AND user_id = ?', teamId, userId);
    return r && toMembership(r);
  }
  async members(teamId: string): Promise<Member[]> {
    return this.#all(`SELECT m.*, u.email, u.name FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.team_id = ? ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END, u.email`, teamId)
      .map((r) => ({ ...toMembership(r), email: r.email as string, name: r.name as string }));
  }
  async changeMembership(teamId: string, userId: string, role: Role | null, audit: AuditInput) {
    this.#tx(() => {
      if (role === null) this.#run('DELETE FROM memberships WHERE team_id = ? AND user_id = ?', teamId, userId);
      else this.#run('UPDATE memberships SET role = ? WHERE team_id = ? AND user_id = ?', role, teamId, userId);
      const owners = this.#get("SELECT COUNT(*) AS n FROM memberships WHERE team_id = ? AND role = 'owner'", teamId);
      if (Number(owners?.n ?? 0) < 1) throw new LastOwnerError();
      if (role === null) this.#run('UPDATE users SET current_team_id = NULL WHERE id = ? AND current_team_id = ?', userId, teamId);
      this.#audit(audit, Date.now());
    });
    this.#changed({ userId, teamId });
  }

  // invites

  async createInvite(i: Invite, audit: AuditInput) {
    this.#tx(() => {
      this.#run(`INSERT INTO invites (id, team_id, token_hash, role, created_by, created_at, expires_at)
        VALUES (?, ?, ?, ?, ?, ?, ?)`, i.id, i.teamId, i.tokenHash, i.role, i.createdBy, i.createdAt, i.expiresAt);
      this.#audit(audit, i.createdAt);
    });
  }
  async invite(id: string) {
    const r = this.#get('SELECT * FROM invites WHERE id = ?', id);
    return r && toInvite(r);
  }
  async inviteByTokenHash(tokenHash: string) {
    const r = this.#get('SELECT * FROM invites WHERE token_hash = ?', tokenHash);
    return r && toInvite(r);
  }
  async pendingInvites(teamId: string, now: number) {
    return this.#all(`SELECT * FROM invites WHERE team_id = ? AND used_at IS NULL AND revoked_at IS NULL AND expires_at > ?
      ORDER BY created_at DESC`, teamId, now).map(toInvite);
  }
  async revokeInvite(teamId: string, inviteId: string, at: number, audit: AuditInput) {
    return this.#tx(() => {
      const n = this.#run('UPDATE invites SET revoked_at = ? WHERE id = ? AND team_id = ? AND used_at IS NULL AND revoked_at IS NULL', at, inviteId, teamId);
      if (n) this.#audit(audit, at);
      return n > 0;
    });
  }
  async acceptInvite(inviteId: string, userId: string, now: number, audit: AuditInput): Promise<InviteAcceptance> {
    return this.#tx(() => {
      const r = this.#get('SELECT * FROM invites WHERE id = ?', inviteId);
      if (!r) return 'revoked';
      const invite = toInvite(r);
      if (invite.revokedAt !== null) return 'revoked';
      if (invite.usedAt !== null) return 'used';
      if (invite.expiresAt <= now) return 'expired';
      if (this.#get('SELECT 1 FROM memberships WHERE team_id = ? AND user_id = ?', invite.teamId, userId)) return 'already-member';
      this.#run('UPDATE invites SET used_at = ?, used_by = ? WHERE id = ? AND used_at IS NULL', now, userId, inviteId);
      this.#run('INSERT INTO memberships (team_id, user_id, role, created_at) VALUES (?, ?, ?, ?)', invite.teamId, userId, invite.role, now);
      this.#audit(audit, now);
      return 'accepted';
    });
  }

  // key vault

  async insertKey(k: TeamKey, audit: AuditInput) {
    this.#tx(() => {
      const hasDefault = this.#get('SELECT 1 FROM team_keys WHERE team_id = ? AND is_default = 1', k.teamId);
      this.#run(`INSERT INTO team_keys (id, team_id, name, source, service_key_id, hint_prefix, hint_last4, sealed, is_default, created_by, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, k.id, k.teamId, k.name, k.source, k.serviceKeyId, k.hintPrefix, k.hintLast4, k.sealed,
        hasDefault ? 0 : 1, k.createdBy, k.createdAt);
      this.#audit(audit, k.createdAt);
    });
  }
  async keys(teamId: string) {
    return this.#all('SELECT * FROM team_keys WHERE team_id = ? ORDER BY revoked_at IS NOT NULL, created_at DESC, id', teamId).map(toKey);
  }
  async key(teamId: string, keyId: string) {
    const r = this.#get('SELECT * FROM team_keys WHERE team_id = ? AND id = ?', teamId, keyId);
    return r && toKey(r);
  }
  async renameKey(teamId: string, keyId: string, name: string, audit: AuditInput) {
    this.#tx(() => {
      this.#run('UPDATE team_keys SET name = ? WHERE team_id = ? AND id = ?', name, teamId, keyId);
      this.#audit(audit, Date.now());
    });
  }
  async setDefaultKey(teamId: string, keyId: string, audit: AuditInput) {
    this.#tx(() => {
      this.#run('UPDATE team_keys SET is_default = 0 WHERE team_id = ? AND is_default = 1', teamId);
      this.#run('UPDATE team_keys SET is_default = 1 WHERE team_id = ? AND id = ? AND revoked_at IS NULL', teamId, keyId);
      this.#audit(audit, Date.now());
    });
  }
  async revokeKey(teamId: string, keyId: string, at: number, audit: AuditInput) {
    return this.#tx(() => {
      const n = this.#run('UPDATE team_keys SET revoked_at = ?, is_default = 0 WHERE team_id = ? AND id = ? AND revoked_at IS NULL', at, teamId, keyId);
      if (n) {
        // The newest live key, if any, becomes the default so the team keeps working.
        if (!this.#get('SELECT 1 FROM team_keys WHERE team_id = ? AND is_default = 1', teamId)) {
          this.#run(`UPDATE team_keys SET is_default = 1 WHERE id = (SELECT id FROM team_keys WHERE team_id = ? AND revoked_at IS NULL
            ORDER BY created_at DESC LIMIT 1)`, teamId);
        }
        this.#audit(audit, at);
      }
      return n > 0;
    });
  }
  async touchKey(keyId: string, at: number) {
    this.#run('UPDATE team_keys SET last_used_at = ? WHERE id = ?', at, keyId);
  }
  async allSealed() {
    return this.#all(`SELECT 'key' AS kind, id, sealed FROM team_keys UNION ALL SELECT 'proxy' AS kind, id, sealed FROM team_proxies
      ORDER BY kind, id`).map((r) => ({ kind: r.kind as SealedRow['kind'], id: r.id as string, sealed: r.sealed as string }));
  }
  async replaceSealed(rows: readonly SealedRow[]) {
    this.#tx(() => {
      for (const r of rows) this.#run(`UPDATE ${r.kind === 'key' ? 'team_keys' : 'team_proxies'} SET sealed = ? WHERE id = ?`, r.sealed, r.id);
    });
  }

  // team proxies

  async insertProxy(x: TeamProxy, audit: AuditInput) {
    try {
      this.#tx(() => {
        this.#run(`INSERT INTO team_proxies (id, team_id, name, scheme, host, port, has_credentials, sealed, created_by, created_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, x.id, x.teamId, x.name, x.scheme, x.host, x.port, x.hasCredentials ? 1 : 0, x.sealed,
          x.createdBy, x.createdAt);
        this.#audit(audit, x.createdAt);
      });
    } catch (err) {
      if (/UNIQUE constraint failed: team_proxies\.team_id, team_proxies\.name/.test((err as Error).message)) throw new ProxyNameTakenError();
      throw err;
    }
  }
  async proxies(teamId: string) {
    return this.#all('SELECT * FROM team_proxies WHERE team_id = ? ORDER BY name, id', teamId).map(toProxy);
  }
  async proxy(teamId: string, proxyId: string) {
    const r = this.#get('SELECT * FROM team_proxies WHERE team_id = ? AND id = ?', teamId, proxyId);
    return r && toProxy(r);
  }
  async deleteProxy(teamId: string, proxyId: string, audit: AuditInput) {
    return this.#tx(() => {
      const n = this.#run('DELETE FROM team_proxies WHERE team_id = ? AND id = ?', teamId, proxyId);
      if (n) this.#audit(audit, Date.now());
      return n > 0;
    });
  }

  // audit

  async audit(event: AuditInput, at: number) {
    // An event may arrive after its team is gone (a browser of a team deleted with its last member
    // ends afterwards): like the instance history, it is dropped with the team.
    if (this.#get('SELECT 1 FROM teams WHERE id = ?', event.teamId)) this.#audit(event, at);
  }
  async auditLog(teamId: string, q: AuditQuery): Promise<AuditEvent[]> {
    const where = ['e.team_id = ?'];
    const params: SQLInputValue[] = [teamId];
    if (q.before) {
      where.push('(e.created_at < ? OR (e.created_at = ? AND e.id < ?))');
      params.push(q.before.at, q.before.at, q.before.id);
    }
    if (q.actions) {
      where.push(`e.action IN (${q.actions.map(() => '?').join(', ') || "''"})`);
      params.push(...q.actions);
    }
    if (q.actorId) {
      where.push('e.actor_id = ?');
      params.push(q.actorId);
    }
    return this.#all(`SELECT e.* FROM audit_events e WHERE ${where.join(' AND ')} ORDER BY e.created_at DESC, e.id DESC LIMIT ?`, ...params, q.limit)
      .map(toAuditEvent);
  }
  async auditActors(teamId: string): Promise<AuditActor[]> {
    return this.#all(`SELECT actor_id, MAX(actor_label) AS label FROM audit_events WHERE team_id = ? AND actor_id IS NOT NULL
      GROUP BY actor_id ORDER BY label COLLATE NOCASE`, teamId)
      .map((r) => ({ id: r.actor_id as string, label: (r.label as string | null) ?? (r.actor_id as string) }));
  }

  // browser instance history

  async recordInstance(r: InstanceRecord, keepSince: number) {
    this.#tx(() => {
      // The starter may since have left (a deleted user keeps the name only); a team that is gone takes its history along.
      const startedBy = r.startedBy && this.#get('SELECT id FROM users WHERE id = ?', r.startedBy) ? r.startedBy : null;
      this.#run(`INSERT OR IGNORE INTO instance_history (id, team_id, name, started_by, started_by_name, key_name, started_at, ended_at, reason, message, browser_id)
        SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM teams WHERE id = ?)`,
        r.id, r.teamId, r.name, startedBy, r.startedByName, r.keyName, r.startedAt, r.endedAt, r.reason, r.message, r.browserId, r.teamId);
      this.#run('DELETE FROM instance_history WHERE ended_at < ?', keepSince);
    });
  }
  async instanceHistory(teamId: string, since: number, limit: number): Promise<InstanceRecord[]> {
    return this.#all('SELECT * FROM instance_history WHERE team_id = ? AND ended_at >= ? ORDER BY ended_at DESC, rowid DESC LIMIT ?', teamId, since, limit)
      .map(toInstance);
  }
  async instancesByBrowserId(teamId: string, browserIds: readonly string[]): Promise<InstanceRecord[]> {
    const ids = [...new Set(browserIds)];
    if (ids.length === 0) return [];
    return this.#all(`SELECT * FROM instance_history WHERE team_id = ? AND browser_id IN (SELECT value FROM json_each(?))
      ORDER BY ended_at DESC, rowid DESC`, teamId, JSON.stringify(ids)).map(toInstance);
  }

  // who had control of a browser

  async recordControl(e: ControlEntry, keepSince: number) {
    this.#tx(() => {
      this.#run(`INSERT INTO control_history (browser_id, team_id, at, user_id, name)
        SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM teams WHERE id = ?)`, e.browserId, e.teamId, e.at, e.userId, e.name, e.teamId);
      this.#run('DELETE FROM control_history WHERE at < ?', keepSince);
    });
  }
  async controlHistory(teamId: string, browserId: string): Promise<ControlEntry[]> {
    return this.#all('SELECT * FROM control_history WHERE team_id = ? AND browser_id = ? ORDER BY at, rowid', teamId, browserId)
      .map(toControl);
  }

  // shared links to live browsers

  async createLiveLink(l: LiveLink, audit: AuditInput) {
    this.#tx(() => {
      this.#run(`INSERT INTO live_links (id, team_id, instance_id, token_hash, mode, label, created_by, created_at, expires_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, l.id, l.teamId, l.instanceId, l.tokenHash, l.mode, l.label, l.createdBy, l.createdAt, l.expiresAt);
      this.#audit(audit, l.createdAt);
    });
  }
  async liveLinkByTokenHash(tokenHash: string) {
    const r = this.#get('SELECT * FROM live_links WHERE token_hash = ?', tokenHash);
    return r && toLiveLink(r);
  }
  async liveLink(teamId: string, linkId: string) {
    const r = this.#get('SELECT * FROM live_links WHERE id = ? AND team_id = ?', linkId, teamId);
    return r && toLiveLink(r);
  }
  async liveLinks(teamId: string, instanceId: string, now: number) {
    return this.#all(`SELECT * FROM live_links WHERE team_id = ? AND instance_id = ? AND revoked_at IS NULL AND expires_at > ?
      ORDER BY created_at DESC, rowid DESC`, teamId, instanceId, now).map(toLiveLink);
  }
  async revokeLiveLink(teamId: string, linkId: string, at: number, audit: AuditInput) {
    const revoked = this.#tx(() => {
      const n = this.#run('UPDATE live_links SET revoked_at = ? WHERE id = ? AND team_id = ? AND revoked_at IS NULL', at, linkId, teamId);
      if (n) this.#audit(audit, at);
      return n > 0;
    });
    if (revoked) this.#changed({ userId: null, teamId });
    return revoked;
  }

  // recent searches

  async recordSearch(userId: string, r: RecentSearch, keep: number) {
    this.#tx(() => {
      // Delete, then insert: a repeated search gets a new rowid, which orders searches made in one millisecond.
      this.#run('DELETE FROM recent_searches WHERE user_id = ? AND query = ? AND language = ?', userId, r.query, r.language);
      this.#run('INSERT INTO recent_searches (user_id, query, language, searched_at) VALUES (?, ?, ?, ?)', userId, r.query, r.language, r.searchedAt);
      this.#run(`DELETE FROM recent_searches WHERE user_id = ? AND rowid NOT IN
        (SELECT rowid FROM recent_searches WHERE user_id = ? ORDER BY searched_at DESC, rowid DESC LIMIT ?)`, userId, userId, keep);
    });
  }
  async recentSearches(userId: string, limit: number): Promise<RecentSearch[]> {
    return this.#all('SELECT query, language, searched_at FROM recent_searches WHERE user_id = ? ORDER BY searched_at DESC, rowid DESC LIMIT ?', userId, limit)
      .map(toRecentSearch);
  }
  async clearRecentSearches(userId: string) {
    this.#run('DELETE FROM recent_searches WHERE user_id = ?', userId);
  }

  // sign-in throttling

  async failures(scope: string): Promise<FailureRecord | undefined> {
    const r = this.#get('SELECT * FROM sign_in_failures WHERE scope = ?', scope);
    return r && toFailures(r);
  }
  async saveFailures(f: FailureRecord) {
    this.#run(`INSERT INTO sign_in_failures (scope, failures, window_started_at, locked_until) VALUES (?, ?, ?, ?)
      ON CONFLICT (scope) DO UPDATE SET failures = excluded.failures, window_started_at = excluded.window_started_at,
      locked_until = excluded.locked_until`, f.scope, f.failures, f.windowStartedAt, f.lockedUntil);
  }
  async clearFailures(scope: string) {
    this.#run('DELETE FROM sign_in_failures WHERE scope = ?', scope);
  }

  async close() {
    this.#stopWatching();
    this.#db.close();
  }
}
