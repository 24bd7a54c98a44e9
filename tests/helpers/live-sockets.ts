import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { LocalDirectory } from '#portal/live/directory.ts';
import { TeamBrowsers, type TeamBrowser } from '#portal/live/team-browsers.ts';
import { LINK_PATH, LIVE_PATH, LiveSockets, type LiveSocketDeps } from '../../server/portal/sockets/live.ts';
import type { ServiceProcess } from './service.ts';

/** The Origin the live sockets below accept: the portal's, as the page sends it. */
export const LIVE_ORIGIN = 'http://portal.test';

/**
 * One team browser held by the portal's own TeamBrowsers over a real service: started for `user`
 * of `teamId` with a new key of the service. The caller shuts `instances` down.
 */
export async function startTeamBrowser(
  service: ServiceProcess,
  { teamId, user }: { teamId: string; user: { userId: string; name: string } },
): Promise<{ instances: TeamBrowsers; instance: TeamBrowser }> {
  const instances = new TeamBrowsers({
    serviceUrl: service.url,
    idleMs: 60_000,
    maxPerUser: 5,
    maxPerTeam: 10,
    log: pino({ level: 'silent' }),
  });
  const instance = await instances.start({ teamId, user, keyId: 'k', keyName: 'k', apiKey: service.createKey().token });
  return { instances, instance };
}

/**
 * The portal's live sockets (server/portal/sockets/live.ts) over `instances`, on a loopback HTTP
 * server of their own that routes upgrades as the portal's does: `/live/<instance>` and a shared
 * link's `/embed/<token>/socket`. Unset dependencies: one process, the Origin LIVE_ORIGIN, no
 * access changes, no links, no one who may take control. `base` is the server's ws:// address.
 */
export async function serveLiveSockets(
  instances: TeamBrowsers,
  deps: Pick<LiveSocketDeps, 'authenticate' | 'recheck'> & Partial<LiveSocketDeps>,
): Promise<{ base: string; close: () => void }> {
  const sockets = new LiveSockets({
    browsers: new LocalDirectory(instances),
    cluster: null,
    onAccessChange: () => () => {},
    allowedOrigins: () => [LIVE_ORIGIN],
    resolveLink: async () => ({ status: 'invalid', link: null }),
    mayTakeControl: async () => false,
    log: pino({ level: 'silent' }),
    ...deps,
  });
  const http = createServer((_req, res) => res.end('ok'));
  http.on('upgrade', (req, socket, head) => {
    const path = req.url ?? '';
    const link = LINK_PATH.exec(path)?.[1];
    if (link) return void sockets.handleLinkUpgrade(req, socket, head, link);
    return void sockets.handleUpgrade(req, socket, head, LIVE_PATH.exec(path)?.[1] ?? '');
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
  return { base: `ws://127.0.0.1:${(http.address() as AddressInfo).port}`, close: () => void http.close() };
}
