import { z } from 'zod';
import type { AuditActor, AuditEvent, AuditInput, PortalData } from '../data/portal-data.ts';
import { requireRole, type Actor } from './access.ts';
import { parseOrThrow } from '../validation.ts';

/**
 * Every action the audit log records, by kind, with the words the log page and the CSV use.
 * The one list: recording an action that is not here fails the unit test that walks the callers.
 */
export const AUDIT_ACTIONS = {
  team: {
    'team.created': 'Created the team',
    'team.renamed': 'Renamed the team',
    'team.recording_on': 'Turned session recording on',
    'team.recording_off': 'Turned session recording off',
  },
  members: {
    'invite.created': 'Created an invitation',
    'invite.revoked': 'Withdrew an invitation',
    'member.joined': 'Joined',
    'member.left': 'Left',
    'member.removed': 'Removed member',
    'member.role_changed': 'Changed role of',
  },
  keys: {
    'key.created': 'Created key',
    'key.added': 'Added existing key',
    'key.renamed': 'Renamed key',
    'key.default_set': 'Made default key',
    'key.revoked': 'Revoked key',
    'key.used': 'Used key from the portal',
    'profile.deleted': 'Deleted browser profile',
    'profile.saved': 'Saved a browser as profile',
  },
  proxies: {
    'proxy.added': 'Added proxy',
    'proxy.deleted': 'Deleted proxy',
  },
  browsers: {
    'browser.started': 'Started browser',
    'browser.stopped': 'Stopped browser',
    'browser.ended': 'Browser ended',
    'browser.watched': "Watched a script's browser",
    'link.created': 'Shared a link to browser',
    'link.revoked': 'Revoked a link to browser',
  },
  control: { 'control.handed': 'Control of browser passed', 'control.taken': 'Took control of browser' },
} as const satisfies Record<string, Record<string, string>>;

export type AuditKind = keyof typeof AUDIT_ACTIONS;
export const AUDIT_KINDS = Object.keys(AUDIT_ACTIONS) as AuditKind[];
export const AUDIT_KIND_LABELS: Record<AuditKind, string> = {
  team: 'Team',
  members: 'Members',
  keys: 'API keys',
  proxies: 'Proxies',
  browsers: 'Browsers',
  control: 'Control',
};

const LABELS: Record<string, string> = Object.assign({}, ...Object.values(AUDIT_ACTIONS));
export const actionLabel = (action: string): string => LABELS[action] ?? action;
export const isAuditAction = (action: string): boolean => action in LABELS;

/** A one-line description of an event's details, the same on the page and in the CSV. */
export function describeDetail(e: Pick<AuditEvent, 'action' | 'detail'>): string {
  const d = e.detail;
  switch (e.action) {
    case 'member.role_changed':
      return `${String(d.from)} → ${String(d.to)}`;
    case 'member.left':
      return d.accountDeleted ? 'account deleted' : '';
    case 'key.used':
      return `for ${String(d.purpose)}`;
    case 'profile.deleted':
    case 'profile.saved':
      return `of key ${String(d.key)}`;
    case 'browser.started':
      return `with key ${String(d.key)}${d.proxy ? `, through proxy ${String(d.proxy)}` : ''}${d.lifetimeSeconds ? `, for at most ${Number(d.lifetimeSeconds)} s` : ''}`;
    case 'browser.watched':
      return `with key ${String(d.key)}`;
    case 'proxy.added':
    case 'proxy.deleted':
      return `${String(d.scheme)}://${String(d.host)}:${Number(d.port)}`;
    case 'browser.stopped':
    case 'browser.ended':
      return String(d.message ?? d.reason ?? (d.startedThrough === 'api' ? `started through the API with key ${String(d.key)}` : ''));
    case 'team.recording_on':
    case 'team.recording_off':
      return `${Number(d.keys)} key${d.keys === 1 ? '' : 's'} changed${d.elsewhere ? `, ${Number(d.elsewhere)} added from elsewhere left as they are` : ''}`;
    case 'control.handed':
    case 'control.taken':
      return `${String(d.from)} → ${String(d.to)}`;
    case 'link.created':
      return `“${String(d.label)}”, ${d.mode === 'control' ? 'watch and control' : 'watch only'}, until ${new Date(Number(d.expiresAt)).toISOString()}`;
    case 'link.revoked':
      return `“${String(d.label)}”`;
    default:
      return '';
  }
}

const PAGE = 100;
const CSV_MAX_ROWS = 50_000;

export const auditQuerySchema = z
  .object({
    kind: z.enum(AUDIT_KINDS as [AuditKind, ...AuditKind[]]).optional(),
    actor: z.string().min(1).max(64).optional(),
    before: z
      .string()
      .regex(/^\d{1,16}~[\w-]{1,64}$/, 'not a page cursor')
      .optional(),
  })
  .strict();
export type AuditQueryInput = z.input<typeof auditQuerySchema>;

export type AuditPage = { events: AuditEvent[]; next: string | null; actors: AuditActor[] };

function query(input: unknown) {
  const q = parseOrThrow(auditQuerySchema, input);
  const [at, id] = q.before ? q.before.split('~') : [];
  return {
    actions: q.kind ? Object.keys(AUDIT_ACTIONS[q.kind]) : undefined,
    actorId: q.actor,
    before: at && id ? { at: Number(at), id } : undefined,
  };
}

/** One page of the team's log, newest first, filtered by kind and person (owners and admins). */
export async function auditLog(data: PortalData, actor: Actor, teamId: string, input: unknown = {}): Promise<AuditPage> {
  await requireRole(data, actor, teamId, 'admin');
  const q = query(input);
  const [events, actors] = await Promise.all([data.auditLog(teamId, { ...q, limit: PAGE + 1 }), data.auditActors(teamId)]);
  const last = events.length > PAGE ? events[PAGE - 1] : undefined;
  return { events: events.slice(0, PAGE), next: last ? `${last.createdAt}~${last.id}` : null, actors };
}

/** A CSV field: quoted, and never read as a formula by a spreadsheet (OWASP CSV injection). */
function field(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return `"${safe.replace(/"/g, '""')}"`;
}

/** The whole filtered log as CSV (RFC 4180, UTC ISO times), newest first, in pages. */
export async function* auditCsv(data: PortalData, actor: Actor, teamId: string, input: unknown = {}): AsyncGenerator<string> {
  await requireRole(data, actor, teamId, 'admin');
  const q = query(input);
  yield `${['time', 'actor', 'kind', 'action', 'description', 'subject', 'details'].map(field).join(',')}\r\n`;
  let before = q.before;
  for (let rows = 0; rows < CSV_MAX_ROWS;) {
    const events = await data.auditLog(teamId, { ...q, before, limit: 500 });
    for (const e of events) {
      const kind = AUDIT_KINDS.find((k) => e.action in AUDIT_ACTIONS[k]) ?? '';
      yield `${[new Date(e.createdAt).toISOString(), e.actorLabel ?? '', kind, e.action, actionLabel(e.action), e.subject, describeDetail(e)].map(field).join(',')}\r\n`;
    }
    rows += events.length;
    const last = events.at(-1);
    if (!last || events.length < 500) return;
    before = { at: last.createdAt, id: last.id };
  }
}

/**
 * The portal's use of a team key, recorded once per person, key and purpose per window so a
 * busy search page does not drown the log.
 */
export class KeyUseLog {
  readonly #data: PortalData;
  readonly #windowMs: number;
  readonly #seen = new Map<string, number>();

  constructor(data: PortalData, windowMs = 3_600_000) {
    this.#data = data;
    this.#windowMs = windowMs;
  }

  async used(
    event: { teamId: string; actorId: string; keyId: string; keyName: string; purpose: 'search' | 'browser' | 'check' },
    now = Date.now(),
  ): Promise<void> {
    const id = `${event.actorId} ${event.keyId} ${event.purpose}`;
    const last = this.#seen.get(id);
    if (last !== undefined && now - last < this.#windowMs) return;
    this.#seen.set(id, now);
    if (this.#seen.size > 10_000) for (const [k, at] of this.#seen) if (now - at >= this.#windowMs) this.#seen.delete(k);
    const audit: AuditInput = {
      teamId: event.teamId,
      actorId: event.actorId,
      action: 'key.used',
      subject: event.keyName,
      detail: { key: event.keyId, purpose: event.purpose },
    };
    await this.#data.audit(audit, now);
  }
}
