import { ProxyNameTakenError, type TeamProxy } from '../data/portal-data.ts';
import { newId } from '../data/ids.ts';
import { Conflict, NotFound } from '../errors.ts';
import { newProxySchema } from '../schemas.ts';
import { requireRole, type Actor } from '../teams/access.ts';
import { parseOrThrow } from '../validation.ts';
import { proxyAssociated, type Vault } from './vault.ts';

/**
 * The team's upstream proxies (decision 0105): a name and an address the browser's traffic leaves
 * through. The address is sealed at rest like the team's API keys (same box, same rotation); what
 * pages and API answers carry is this view, never the address's credentials.
 */
export type ProxyView = {
  id: string;
  name: string;
  scheme: TeamProxy['scheme'];
  host: string;
  port: number;
  /** It logs in (a user name, perhaps a password): shown as a fact, never the values. */
  hasCredentials: boolean;
  createdAt: number;
};

const view = (x: TeamProxy): ProxyView => ({
  id: x.id,
  name: x.name,
  scheme: x.scheme,
  host: x.host,
  port: x.port,
  hasCredentials: x.hasCredentials,
  createdAt: x.createdAt,
});

/** Any member may see the team's proxies (to choose one when starting a browser). */
export async function listProxies(v: Vault, actor: Actor, teamId: string): Promise<ProxyView[]> {
  await requireRole(v.data, actor, teamId, 'member');
  return (await v.data.proxies(teamId)).map(view);
}

/** Owners and admins add a proxy by name and address. */
export async function addProxy(v: Vault, actor: Actor, teamId: string, input: unknown): Promise<ProxyView> {
  await requireRole(v.data, actor, teamId, 'admin');
  const { name, url } = parseOrThrow(newProxySchema, input);
  const id = newId('prx');
  const proxy: TeamProxy = {
    id,
    teamId,
    name,
    scheme: url.scheme,
    host: url.host,
    port: url.port,
    hasCredentials: url.hasCredentials,
    sealed: v.box.seal(url.url, proxyAssociated(id)),
    createdBy: actor.userId,
    createdAt: Date.now(),
  };
  try {
    await v.data.insertProxy(proxy, {
      teamId,
      actorId: actor.userId,
      action: 'proxy.added',
      subject: name,
      detail: { proxy: id, scheme: url.scheme, host: url.host, port: url.port },
    });
  } catch (err) {
    if (err instanceof ProxyNameTakenError || (err as Error).name === 'ProxyNameTakenError')
      throw new Conflict(`This team already has a proxy named "${name}".`);
    throw err;
  }
  return view(proxy);
}

/** Owners and admins delete one; browsers already running through it keep it until they end. */
export async function deleteProxy(v: Vault, actor: Actor, teamId: string, proxyId: string): Promise<void> {
  await requireRole(v.data, actor, teamId, 'admin');
  const proxy = await v.data.proxy(teamId, proxyId);
  if (!proxy) throw new NotFound('no such proxy in this team');
  await v.data.deleteProxy(teamId, proxyId, {
    teamId,
    actorId: actor.userId,
    action: 'proxy.deleted',
    subject: proxy.name,
    detail: { proxy: proxyId, scheme: proxy.scheme, host: proxy.host, port: proxy.port },
  });
}

/**
 * The proxy's whole address, for the portal's own /start on behalf of a member: it goes into the
 * `X-Browser-Proxy` header and nowhere else. Another team's proxy is not found.
 */
export async function openTeamProxy(v: Vault, actor: Actor, teamId: string, proxyId: string): Promise<{ name: string; url: string }> {
  await requireRole(v.data, actor, teamId, 'member');
  const proxy = await v.data.proxy(teamId, proxyId);
  if (!proxy) throw new NotFound('no such proxy in this team');
  return { name: proxy.name, url: v.box.open(proxy.sealed, proxyAssociated(proxy.id)) };
}
