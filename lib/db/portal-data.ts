/**
 * The portal's data-access interface. Everything the portal stores goes through one
 * implementation of it (SQLite today: portal-sqlite.ts); nothing else writes SQL. Methods are
 * asynchronous and each compound change is one method (one transaction inside), so a
 * PostgreSQL implementation can be added behind the same interface.
 */
export type Role = 'owner' | 'admin' | 'member';
export const ROLES: readonly Role[] = ['owner', 'admin', 'member'];

export type User = { id: string; email: string; name: string; passwordHash: string | null; currentTeamId: string | null; createdAt: number };
export type Team = { id: string; name: string; personal: boolean; createdAt: number };
export type Membership = { teamId: string; userId: string; role: Role; createdAt: number };
export type Member = Membership & { email: string; name: string };
export type TeamWithRole = Team & { role: Role };
export type Invite = {
  id: string; teamId: string; tokenHash: string; role: Exclude<Role, 'owner'>; createdBy: string;
  createdAt: number; expiresAt: number; usedAt: number | null; usedBy: string | null; revokedAt: number | null;
};
export type TeamKey = {
  id: string; teamId: string; name: string; source: 'issued' | 'external'; serviceKeyId: string | null;
  hintPrefix: string; hintLast4: string; sealed: string; isDefault: boolean; createdBy: string | null;
  createdAt: number; lastUsedAt: number | null; revokedAt: number | null;
};
export type AuditInput = { teamId: string; actorId: string | null; action: string; subject: string; detail?: Record<string, unknown> };
export type AuditEvent = { id: string; teamId: string; actorId: string | null; actorEmail: string | null; action: string; subject: string; detail: Record<string, unknown>; createdAt: number };
/** A browser instance that has ended, as the team's history shows it. */
export type InstanceRecord = {
  id: string; teamId: string; name: string; startedBy: string | null; startedByName: string; keyName: string;
  startedAt: number; endedAt: number; reason: string; message: string;
};
/** A search a user made on the portal's search page. */
export type RecentSearch = { query: string; language: string; searchedAt: number };
export type FailureRecord = { scope: string; failures: number; windowStartedAt: number; lockedUntil: number | null };

/** Thrown inside a change that would leave a team without an owner. */
export class LastOwnerError extends Error {
  constructor() {
    super('a team needs at least one owner');
    this.name = 'LastOwnerError';
  }
}

export type InviteAcceptance = 'accepted' | 'already-member' | 'used' | 'expired' | 'revoked';

export interface PortalData {
  // accounts
  createUser(user: User, personalTeam: Team, audit: Omit<AuditInput, 'teamId'>): Promise<void>;
  userById(id: string): Promise<User | undefined>;
  userByEmail(email: string): Promise<User | undefined>;
  userByAccount(provider: string, providerAccountId: string): Promise<User | undefined>;
  linkAccount(provider: string, providerAccountId: string, userId: string, at: number): Promise<void>;
  setCurrentTeam(userId: string, teamId: string): Promise<void>;

  // teams and members
  teamsOf(userId: string): Promise<TeamWithRole[]>;
  team(id: string): Promise<Team | undefined>;
  createTeam(team: Team, ownerId: string, audit: AuditInput): Promise<void>;
  renameTeam(teamId: string, name: string, audit: AuditInput): Promise<void>;
  membership(teamId: string, userId: string): Promise<Membership | undefined>;
  members(teamId: string): Promise<Member[]>;
  /** Change a role or (role null) remove a member; throws LastOwnerError when no owner would remain. */
  changeMembership(teamId: string, userId: string, role: Role | null, audit: AuditInput): Promise<void>;

  // invites
  createInvite(invite: Invite, audit: AuditInput): Promise<void>;
  invite(id: string): Promise<Invite | undefined>;
  inviteByTokenHash(tokenHash: string): Promise<Invite | undefined>;
  pendingInvites(teamId: string, now: number): Promise<Invite[]>;
  revokeInvite(teamId: string, inviteId: string, at: number, audit: AuditInput): Promise<boolean>;
  acceptInvite(inviteId: string, userId: string, now: number, audit: AuditInput): Promise<InviteAcceptance>;

  // key vault
  insertKey(key: TeamKey, audit: AuditInput): Promise<void>;
  keys(teamId: string): Promise<TeamKey[]>;
  key(teamId: string, keyId: string): Promise<TeamKey | undefined>;
  renameKey(teamId: string, keyId: string, name: string, audit: AuditInput): Promise<void>;
  setDefaultKey(teamId: string, keyId: string, audit: AuditInput): Promise<void>;
  revokeKey(teamId: string, keyId: string, at: number, audit: AuditInput): Promise<boolean>;
  touchKey(keyId: string, at: number): Promise<void>;
  /** Every sealed secret, for a rotation. */
  allSealed(): Promise<{ id: string; sealed: string }[]>;
  /** Replace sealed secrets in one transaction (all or none). */
  replaceSealed(rows: readonly { id: string; sealed: string }[]): Promise<void>;

  // audit
  audit(event: AuditInput, at: number): Promise<void>;
  auditLog(teamId: string, limit: number): Promise<AuditEvent[]>;

  // browser instance history
  recordInstance(record: InstanceRecord): Promise<void>;
  /** Instances of a team that ended at or after `since`, newest first. */
  instanceHistory(teamId: string, since: number, limit: number): Promise<InstanceRecord[]>;

  // recent searches (per user)
  /** Remember a search (again: it moves to the top); keeps the user's newest `keep` only. */
  recordSearch(userId: string, search: RecentSearch, keep: number): Promise<void>;
  /** The user's searches, newest first. */
  recentSearches(userId: string, limit: number): Promise<RecentSearch[]>;
  clearRecentSearches(userId: string): Promise<void>;

  // sign-in throttling
  failures(scope: string): Promise<FailureRecord | undefined>;
  saveFailures(record: FailureRecord): Promise<void>;
  clearFailures(scope: string): Promise<void>;

  close(): void;
}
