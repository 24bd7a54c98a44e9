import type { LiveLink, PortalData } from '../data/portal-data.ts';
import { hashToken, newId, newToken } from '../data/ids.ts';
import { Forbidden, NotFound } from '../errors.ts';
import type { Portal } from '../runtime.ts';
import { createLiveLinkSchema } from '../schemas.ts';
import { atLeast, requireRole, type Actor } from '../teams/access.ts';
import { parseOrThrow } from '../validation.ts';
import { mine } from './browsers.ts';
import type { BrowserDirectory, Located } from './directory.ts';

/**
 * Shared links to a live browser (issue #14, decision 0071): a team member makes an address that
 * lets whoever holds it watch the browser, or also ask for control, without an account, from
 * another site's page too; it ends when it expires, when it is revoked, or with the browser.
 */
export type LiveLinkView = {
  id: string;
  mode: LiveLink['mode'];
  label: string;
  createdAt: number;
  expiresAt: number;
  /** Whether the person asking may revoke it: who made it, owners and admins. */
  canRevoke: boolean;
};

/** What a link opens now, or why it opens nothing. */
export type LinkState =
  { status: 'open'; link: LiveLink; at: Located } | { status: 'invalid' | 'revoked' | 'expired' | 'ended'; link: LiveLink | null };

const view = (l: LiveLink, canRevoke: boolean): LiveLinkView => ({
  id: l.id,
  mode: l.mode,
  label: l.label,
  createdAt: l.createdAt,
  expiresAt: l.expiresAt,
  canRevoke,
});

/** The name a link's viewers go by in the browser's list of who is watching. */
export const guestName = (link: Pick<LiveLink, 'label'>): string => `${link.label} (shared link)`;

/**
 * Make a link to a live browser of the team. Any member may share a view; a link that gives
 * control only the person who started the browser, owners and admins may make (those who could
 * stop it). The address is shown once: only the token's hash is kept.
 */
export async function createLiveLink(
  p: Portal,
  actor: Actor,
  teamId: string,
  instanceId: string,
  input: unknown,
): Promise<{ link: LiveLinkView; token: string }> {
  const { at, canStop } = await mine(p, actor, teamId, instanceId);
  const instance = at.row;
  const { mode, minutes, label } = parseOrThrow(createLiveLinkSchema, input);
  if (mode === 'control' && !canStop)
    throw new Forbidden('only the person who started this browser, owners and admins can share control of it');
  const { token, hash } = newToken();
  const now = Date.now();
  const link: LiveLink = {
    id: newId('lnk'),
    teamId,
    instanceId: instance.id,
    tokenHash: hash,
    mode,
    label: label || (mode === 'control' ? 'Guest with control' : 'Guest'),
    createdBy: actor.userId,
    createdAt: now,
    expiresAt: now + minutes * 60_000,
    revokedAt: null,
  };
  await p.data.createLiveLink(link, {
    teamId,
    actorId: actor.userId,
    action: 'link.created',
    subject: instance.name,
    detail: { instance: instance.id, link: link.id, mode, label: link.label, expiresAt: link.expiresAt },
  });
  return { link: view(link, true), token };
}

/** The browser's links that still open it, newest first. */
export async function listLiveLinks(p: Portal, actor: Actor, teamId: string, instanceId: string): Promise<LiveLinkView[]> {
  const { at, canStop } = await mine(p, actor, teamId, instanceId);
  return (await p.data.liveLinks(teamId, at.row.id, Date.now())).map((l) => view(l, canStop || l.createdBy === actor.userId));
}

/** Revoke a link: whoever made it, owners and admins. Views open through it close at once. */
export async function revokeLiveLink(p: Portal, actor: Actor, teamId: string, instanceId: string, linkId: string): Promise<void> {
  const membership = await requireRole(p.data, actor, teamId, 'member');
  const link = await p.data.liveLink(teamId, linkId);
  if (!link || link.instanceId !== instanceId) throw new NotFound('no such link');
  const browser = (await p.browsers.find(instanceId))?.row;
  const starter = browser?.teamId === teamId ? browser.startedBy.userId : undefined;
  if (link.createdBy !== actor.userId && starter !== actor.userId && !atLeast(membership.role, 'admin')) {
    throw new Forbidden('only the person who made this link, owners and admins can revoke it');
  }
  const name = (browser?.teamId === teamId ? browser.name : undefined) ?? instanceId;
  const revoked = await p.data.revokeLiveLink(teamId, linkId, Date.now(), {
    teamId,
    actorId: actor.userId,
    action: 'link.revoked',
    subject: name,
    detail: { instance: instanceId, link: linkId, label: link.label },
  });
  if (!revoked) throw new NotFound('no such link');
}

/** The token of a shared link's page (`/embed/TOKEN`) or socket (`/embed/TOKEN/socket`), or null. */
export const linkTokenOf = (value: string): string | null => (/^[A-Za-z0-9_-]{43}$/.test(value) ? value : null);

/** What a link's token opens now. Holding the token is all it takes: no session, no team. */
export async function resolveLiveLink(data: PortalData, browsers: BrowserDirectory, token: string, now = Date.now()): Promise<LinkState> {
  if (!linkTokenOf(token)) return { status: 'invalid', link: null };
  const link = await data.liveLinkByTokenHash(hashToken(token));
  if (!link) return { status: 'invalid', link: null };
  if (link.revokedAt !== null) return { status: 'revoked', link };
  if (link.expiresAt <= now) return { status: 'expired', link };
  const at = await browsers.find(link.instanceId);
  if (!at || at.row.teamId !== link.teamId || at.local?.live.ended) return { status: 'ended', link };
  return { status: 'open', link, at };
}

/** What a link's page says when it opens nothing. */
export const LINK_STATUS_TEXT: Record<Exclude<LinkState['status'], 'open'>, { title: string; detail: string }> = {
  invalid: { title: 'This link does not open anything', detail: 'Check that the whole address was copied.' },
  revoked: { title: 'This link was revoked', detail: 'Whoever shared it turned it off. Ask them for a new one.' },
  expired: { title: 'This link has expired', detail: 'Shared links last as long as their maker chose. Ask for a new one.' },
  ended: { title: 'This browser has ended', detail: 'The browser this link showed is no longer running.' },
};
