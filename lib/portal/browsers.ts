import type { PublicUser } from './accounts.ts';
import { atLeast, requireRole, type Actor } from './access.ts';
import { BadRequest, Forbidden, NotFound } from './errors.ts';
import type { Portal } from './runtime.ts';
import { withTeamKey } from './vault.ts';
import { LiveInstances, type LiveInstance } from '../remote/instances.ts';
import { z } from 'zod';

/** What pages and API responses carry about a live instance. */
export type BrowserView = {
  id: string;
  name: string;
  startedBy: { id: string; name: string };
  keyName: string;
  startedAt: number;
  title: string;
  url: string;
  viewers: { id: string; name: string; control: boolean }[];
  canStop: boolean;
};

const KEY = Symbol.for('periscope.live-instances');
type Holder = { [KEY]?: LiveInstances };

/**
 * The process-wide registry of live instances, shared by the custom server (the live-view
 * socket) and the route handlers (start, list, stop), which may be separate bundles of one process.
 */
export function liveInstances(p: Portal): LiveInstances {
  const holder = globalThis as Holder;
  holder[KEY] ??= new LiveInstances({ serviceUrl: p.config.serviceUrl, idleMs: p.config.live.idleMs, maxPerUser: p.config.live.maxPerUser, log: p.log.child({ part: 'live' }) });
  return holder[KEY];
}

const startSchema = z.object({
  name: z.string().trim().max(80, 'at most 80 characters').optional(),
  keyId: z.string().min(1).max(64).optional(),
}).strict();

const renameSchema = z.object({ name: z.string().trim().min(1, 'give it a name').max(80, 'at most 80 characters') }).strict();

function view(i: LiveInstance, canStop: boolean): BrowserView {
  return {
    id: i.id,
    name: i.name,
    startedBy: { id: i.startedBy.userId, name: i.startedBy.name },
    keyName: i.keyName,
    startedAt: i.startedAt,
    ...i.live.page,
    viewers: i.live.control.list().map(({ id, name, control }) => ({ id, name, control })),
    canStop,
  };
}

function parse<T>(schema: z.ZodType<T>, input: unknown): T {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  throw new BadRequest(r.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
}

/** Start a browser for the team with the given key (default: the team's default key). */
export async function startBrowser(p: Portal, actor: Actor, user: PublicUser, teamId: string, input: unknown): Promise<BrowserView> {
  await requireRole(p.data, actor, teamId, 'member');
  const { name, keyId } = parse(startSchema, input);
  const keys = await p.data.keys(teamId);
  const key = keyId ? keys.find((k) => k.id === keyId && !k.revokedAt) : keys.find((k) => k.isDefault && !k.revokedAt);
  if (!key) throw new BadRequest(keyId ? 'that key is not one of this team\'s live keys' : 'this team has no default API key yet; add one on the API keys page');
  const instance = await withTeamKey(p.vault, actor, teamId, key.id, (token) =>
    liveInstances(p).start({ teamId, user: { userId: user.id, name: user.name || user.email }, keyId: key.id, keyName: key.name, apiKey: token, name }));
  return view(instance, true);
}

export async function listBrowsers(p: Portal, actor: Actor, teamId: string): Promise<BrowserView[]> {
  const membership = await requireRole(p.data, actor, teamId, 'member');
  return liveInstances(p).listForTeam(teamId).map((i) => view(i, i.startedBy.userId === actor.userId || atLeast(membership.role, 'admin')));
}

async function mine(p: Portal, actor: Actor, teamId: string, instanceId: string) {
  const membership = await requireRole(p.data, actor, teamId, 'member');
  const instance = liveInstances(p).get(instanceId);
  if (!instance || instance.teamId !== teamId) throw new NotFound('no such browser');
  const canStop = instance.startedBy.userId === actor.userId || atLeast(membership.role, 'admin');
  return { instance, canStop };
}

export async function getBrowser(p: Portal, actor: Actor, teamId: string, instanceId: string): Promise<BrowserView> {
  const { instance, canStop } = await mine(p, actor, teamId, instanceId);
  return view(instance, canStop);
}

/** The starter, owners and admins may stop an instance. */
export async function stopBrowser(p: Portal, actor: Actor, teamId: string, instanceId: string): Promise<void> {
  const { instance, canStop } = await mine(p, actor, teamId, instanceId);
  if (!canStop) throw new Forbidden('only the person who started this browser, owners and admins can stop it');
  liveInstances(p).stop(instance.id);
}

export async function renameBrowser(p: Portal, actor: Actor, teamId: string, instanceId: string, input: unknown): Promise<BrowserView> {
  const { instance, canStop } = await mine(p, actor, teamId, instanceId);
  if (!canStop) throw new Forbidden('only the person who started this browser, owners and admins can rename it');
  liveInstances(p).rename(instance.id, parse(renameSchema, input).name);
  return view(instance, canStop);
}
