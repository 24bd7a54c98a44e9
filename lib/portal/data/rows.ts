/**
 * Table rows to the interface's types, for both stores: SQLite hands back numbers and 0/1 flags,
 * PostgreSQL strings for BIGINT and booleans for BOOLEAN; `Number()` reads all of them.
 */
import type {
  AuditEvent,
  ControlEntry,
  FailureRecord,
  InstanceRecord,
  Invite,
  LiveLink,
  Membership,
  RecentSearch,
  Role,
  Team,
  TeamKey,
  TeamProxy,
  User,
} from './portal-data.ts';

export type Row = Record<string, unknown>;

const flag = (v: unknown): boolean => v === true || Number(v) === 1;
const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
export const nullableNumber = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export const toUser = (r: Row): User => ({
  id: r.id as string,
  email: r.email as string,
  name: r.name as string,
  passwordHash: text(r.password_hash),
  currentTeamId: text(r.current_team_id),
  createdAt: Number(r.created_at),
  sessionVersion: Number(r.session_version ?? 0),
});
export const toTeam = (r: Row): Team => ({
  id: r.id as string,
  name: r.name as string,
  personal: flag(r.personal),
  createdAt: Number(r.created_at),
  recordSessions: flag(r.record_sessions),
});
export const toMembership = (r: Row): Membership => ({
  teamId: r.team_id as string,
  userId: r.user_id as string,
  role: r.role as Role,
  createdAt: Number(r.created_at),
});
export const toInvite = (r: Row): Invite => ({
  id: r.id as string,
  teamId: r.team_id as string,
  tokenHash: r.token_hash as string,
  role: r.role as Invite['role'],
  createdBy: r.created_by as string,
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
  usedAt: nullableNumber(r.used_at),
  usedBy: text(r.used_by),
  revokedAt: nullableNumber(r.revoked_at),
});
export const toLiveLink = (r: Row): LiveLink => ({
  id: r.id as string,
  teamId: r.team_id as string,
  instanceId: r.instance_id as string,
  tokenHash: r.token_hash as string,
  mode: r.mode as LiveLink['mode'],
  label: r.label as string,
  createdBy: text(r.created_by),
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
  revokedAt: nullableNumber(r.revoked_at),
});
export const toKey = (r: Row): TeamKey => ({
  id: r.id as string,
  teamId: r.team_id as string,
  name: r.name as string,
  source: r.source as TeamKey['source'],
  serviceKeyId: text(r.service_key_id),
  hintPrefix: r.hint_prefix as string,
  hintLast4: r.hint_last4 as string,
  sealed: r.sealed as string,
  isDefault: flag(r.is_default),
  createdBy: text(r.created_by),
  createdAt: Number(r.created_at),
  lastUsedAt: nullableNumber(r.last_used_at),
  revokedAt: nullableNumber(r.revoked_at),
});

export const toProxy = (r: Row): TeamProxy => ({
  id: r.id as string,
  teamId: r.team_id as string,
  name: r.name as string,
  scheme: r.scheme as TeamProxy['scheme'],
  host: r.host as string,
  port: Number(r.port),
  hasCredentials: flag(r.has_credentials),
  sealed: r.sealed as string,
  createdBy: text(r.created_by),
  createdAt: Number(r.created_at),
});

export const toAuditEvent = (r: Row): AuditEvent => ({
  id: r.id as string,
  teamId: r.team_id as string,
  actorId: text(r.actor_id),
  actorLabel: text(r.actor_label),
  action: r.action as string,
  subject: r.subject as string,
  detail: JSON.parse(r.detail as string) as Record<string, unknown>,
  createdAt: Number(r.created_at),
});
export const toInstance = (r: Row): InstanceRecord => ({
  id: r.id as string,
  teamId: r.team_id as string,
  name: r.name as string,
  startedBy: text(r.started_by),
  startedByName: r.started_by_name as string,
  keyName: r.key_name as string,
  startedAt: Number(r.started_at),
  endedAt: Number(r.ended_at),
  reason: r.reason as string,
  message: r.message as string,
  browserId: text(r.browser_id),
});
export const toControl = (r: Row): ControlEntry => ({
  browserId: r.browser_id as string,
  teamId: r.team_id as string,
  at: Number(r.at),
  userId: text(r.user_id),
  name: text(r.name),
});
export const toRecentSearch = (r: Row): RecentSearch => ({
  query: r.query as string,
  language: r.language as string,
  searchedAt: Number(r.searched_at),
});
export const toFailures = (r: Row): FailureRecord => ({
  scope: r.scope as string,
  failures: Number(r.failures),
  windowStartedAt: Number(r.window_started_at),
  lockedUntil: nullableNumber(r.locked_until),
});
