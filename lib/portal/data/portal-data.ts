/**
 * The portal's data-access interface. Everything the portal stores goes through one
 * implementation of it (SQLite in DATA_DIR: sqlite.ts; PostgreSQL at DATABASE_URL: postgres.ts);
 * nothing else writes SQL. Methods are asynchronous and each compound change is one method (one
 * transaction inside), with the same guarantees on both stores (decisions 0023 and 0090).
 */
export type Role = 'owner' | 'admin' | 'member';
export const ROLES: readonly Role[] = ['owner', 'admin', 'member'];

export type User = {
  id: string; email: string; name: string; passwordHash: string | null; currentTeamId: string | null; createdAt: number;
  /** Sessions carry the version they were signed in under; bumping it ends every one of them. */
  sessionVersion: number;
};
/** What a user may change about themselves; `passwordHash` set also ends their sessions. */
export type ProfileChange = { name?: string; email?: string; passwordHash?: string };
/** A one-time password reset an operator issued; only the token's hash is stored. */
export type PasswordReset = { tokenHash: string; userId: string; createdAt: number; expiresAt: number; usedAt: number | null };
/**
 * Someone's access changed: their sessions (teamId null: ended, or their account is gone) or
 * their membership of one team (removed, or a new role). Open sockets re-check on it. `userId`
 * null: another process changed the data (an operator's CLI), and it is not known whose access.
 */
export type AccessChange = { userId: string | null; teamId: string | null };
/** `recordSessions`: the team's keys that this portal issued record their browsers (docs/api.md, section 6). */
export type Team = { id: string; name: string; personal: boolean; createdAt: number; recordSessions?: boolean };
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
/**
 * An upstream proxy of the team's, chosen by name when a browser starts (decision 0105). `sealed`
 * holds its whole address, credentials included; scheme, host and port are kept apart to be shown.
 */
export type TeamProxy = {
  id: string; teamId: string; name: string; scheme: 'http' | 'https' | 'socks5'; host: string; port: number;
  hasCredentials: boolean; sealed: string; createdBy: string | null; createdAt: number;
};
/** A sealed secret of either kind (an API key, a proxy's address), for a rotation of the encryption secret. */
export type SealedRow = { kind: 'key' | 'proxy'; id: string; sealed: string };
export type AuditInput = { teamId: string; actorId: string | null; action: string; subject: string; detail?: Record<string, unknown> };
/** `actorLabel` is the actor's email when the event happened, kept after they leave. */
export type AuditEvent = { id: string; teamId: string; actorId: string | null; actorLabel: string | null; action: string; subject: string; detail: Record<string, unknown>; createdAt: number };
/** Which events to read, newest first: `before` pages on (created_at, id); `actions` are exact action names. */
export type AuditQuery = { limit: number; before?: { at: number; id: string }; actions?: readonly string[]; actorId?: string };
export type AuditActor = { id: string; label: string };
/**
 * A browser instance that has ended, as the team's history shows it. `browserId` is the service's
 * id of it (br_…), by which its recording and the service's list of a key's browsers name it; null
 * in rows recorded before the portal kept it.
 */
export type InstanceRecord = {
  id: string; teamId: string; name: string; startedBy: string | null; startedByName: string; keyName: string;
  startedAt: number; endedAt: number; reason: string; message: string; browserId: string | null;
};
/**
 * Who had control of a portal browser from `at` on (`userId` and `name` null: nobody), by the
 * service's browser id, so a recording of it can say who was at the keyboard.
 */
export type ControlEntry = { browserId: string; teamId: string; at: number; userId: string | null; name: string | null };
/**
 * A shared link to a live browser the portal holds (`instanceId`): whoever has it may watch, or
 * also ask for control (`mode`), until it expires or is revoked. Only the token's hash is stored.
 */
export type LiveLink = {
  id: string; teamId: string; instanceId: string; tokenHash: string; mode: 'watch' | 'control'; label: string;
  createdBy: string | null; createdAt: number; expiresAt: number; revokedAt: number | null;
};
/** A search a user made on the portal's search page. */
export type RecentSearch = { query: string; language: string; searchedAt: number };
export type FailureRecord = { scope: string; failures: number; windowStartedAt: number; lockedUntil: number | null };

/** Thrown inside a change that would leave a team (`teams`, by name, when known) without an owner. */
export class LastOwnerError extends Error {
  readonly teams: readonly string[];
  constructor(teams: readonly string[] = []) {
    super('a team needs at least one owner');
    this.name = 'LastOwnerError';
    this.teams = teams;
  }
}

/** Thrown when an email address is already another account's. */
export class EmailTakenError extends Error {
  constructor() {
    super('email address already in use');
    this.name = 'EmailTakenError';
  }
}

/** Thrown when the team already has a proxy of that name. */
export class ProxyNameTakenError extends Error {
  constructor() {
    super('the team already has a proxy of that name');
    this.name = 'ProxyNameTakenError';
  }
}

export type InviteAcceptance = 'accepted' | 'already-member' | 'used' | 'expired' | 'revoked';

export interface PortalData {
  // accounts
  /** Throws EmailTakenError, changing nothing, when the address is already another account's. */
  createUser(user: User, personalTeam: Team, audit: Omit<AuditInput, 'teamId'>): Promise<void>;
  userById(id: string): Promise<User | undefined>;
  userByEmail(email: string): Promise<User | undefined>;
  userByAccount(provider: string, providerAccountId: string): Promise<User | undefined>;
  linkAccount(provider: string, providerAccountId: string, userId: string, at: number): Promise<void>;
  setCurrentTeam(userId: string, teamId: string): Promise<void>;
  /** Change name, email or password (throws EmailTakenError); a new password ends every session. */
  updateUser(userId: string, change: ProfileChange): Promise<void>;
  /** End every session of the user (sign-out, "sign out everywhere"). */
  endSessions(userId: string): Promise<void>;
  /**
   * Delete the account: teams it alone is in go with it (keys, invites, history); it leaves the
   * others. Throws LastOwnerError, changing nothing, when it is the only owner of a team that
   * has other members.
   */
  deleteUser(userId: string, at: number): Promise<void>;
  createPasswordReset(reset: PasswordReset): Promise<void>;
  /**
   * Use a reset token once: when it is unused and unexpired, set the password, end every
   * session, clear the account's sign-in lock and return the user; otherwise undefined.
   */
  usePasswordReset(tokenHash: string, passwordHash: string, now: number): Promise<User | undefined>;
  /**
   * Listen for access changes (after they are committed), this process's own and, within about a
   * second, those another process committed to the same data; returns the unsubscribe.
   */
  onAccessChange(listener: (change: AccessChange) => void): () => void;

  // teams and members
  teamsOf(userId: string): Promise<TeamWithRole[]>;
  team(id: string): Promise<Team | undefined>;
  createTeam(team: Team, ownerId: string, audit: AuditInput): Promise<void>;
  renameTeam(teamId: string, name: string, audit: AuditInput): Promise<void>;
  setTeamRecording(teamId: string, record: boolean, audit: AuditInput): Promise<void>;
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
  /** Every sealed secret (API keys and proxies), for a rotation. */
  allSealed(): Promise<SealedRow[]>;
  /** Replace sealed secrets in one transaction (all or none). */
  replaceSealed(rows: readonly SealedRow[]): Promise<void>;

  // team proxies
  /** Throws ProxyNameTakenError, changing nothing, when the team has a proxy of that name. */
  insertProxy(proxy: TeamProxy, audit: AuditInput): Promise<void>;
  /** The team's proxies, by name. */
  proxies(teamId: string): Promise<TeamProxy[]>;
  proxy(teamId: string, proxyId: string): Promise<TeamProxy | undefined>;
  deleteProxy(teamId: string, proxyId: string, audit: AuditInput): Promise<boolean>;

  // audit
  audit(event: AuditInput, at: number): Promise<void>;
  auditLog(teamId: string, query: AuditQuery): Promise<AuditEvent[]>;
  /** Everyone who appears as an actor in the team's log, for its filter. */
  auditActors(teamId: string): Promise<AuditActor[]>;

  // browser instance history
  /** Add an ended instance; records of instances that ended before `keepSince` go. */
  recordInstance(record: InstanceRecord, keepSince: number): Promise<void>;
  /** Instances of a team that ended at or after `since`, newest first. */
  instanceHistory(teamId: string, since: number, limit: number): Promise<InstanceRecord[]>;
  /** The team's ended instances whose service browser id is one of `browserIds`, whenever they ended, newest first. */
  instancesByBrowserId(teamId: string, browserIds: readonly string[]): Promise<InstanceRecord[]>;

  // who had control of a browser, for its recording
  /** Add a change of control; entries older than `keepSince` go. */
  recordControl(entry: ControlEntry, keepSince: number): Promise<void>;
  /** Every change of control of one browser of the team, oldest first. */
  controlHistory(teamId: string, browserId: string): Promise<ControlEntry[]>;

  // shared links to live browsers
  createLiveLink(link: LiveLink, audit: AuditInput): Promise<void>;
  liveLinkByTokenHash(tokenHash: string): Promise<LiveLink | undefined>;
  liveLink(teamId: string, linkId: string): Promise<LiveLink | undefined>;
  /** The links of one browser that still open it at `now`, newest first. */
  liveLinks(teamId: string, instanceId: string, now: number): Promise<LiveLink[]>;
  /** Revoke a link that is not revoked yet; its open views are told (an access change of its team). */
  revokeLiveLink(teamId: string, linkId: string, at: number, audit: AuditInput): Promise<boolean>;

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

  /** Release the store (a connection pool, a file); pending changes are committed already. */
  close(): Promise<void>;
}
