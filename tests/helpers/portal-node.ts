import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadPortalConfig } from '#portal/config.ts';
import { publicUser } from '#portal/accounts/accounts.ts';
import { dashboardSnapshot, renameBrowser, startBrowser, stopBrowser } from '#portal/live/browsers.ts';
import { createLiveLink } from '#portal/live/links.ts';
import { createPortal } from '#portal/runtime.ts';
import { createEdge } from '../../server/portal/edge.ts';

/**
 * One portal node for the tests of several nodes (tests/integration/portal-nodes.test.ts), run as a
 * child process with an IPC channel: the real composition root (createPortal, from the environment)
 * and the real sockets and node-to-node endpoints (server/portal/edge.ts), without Next's pages.
 * The parent asks it to act as a signed-in member would through the portal's routes.
 */
export type NodeCall =
  | { id: number; op: 'start'; userId: string; teamId: string; keyId: string }
  | { id: number; op: 'snapshot'; userId: string; teamId: string }
  | { id: number; op: 'rename'; userId: string; teamId: string; instanceId: string; name: string }
  | { id: number; op: 'stop'; userId: string; teamId: string; instanceId: string }
  | { id: number; op: 'link'; userId: string; teamId: string; instanceId: string; mode: 'watch' | 'control' };
export type NodeAnswer = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

const config = loadPortalConfig(process.env);
const p = await createPortal(config);
const edge = createEdge(p, { dev: false, nextUpgrade: () => {} });
const server = createServer((req, res) => {
  if (edge.request(req, res)) return;
  res.writeHead(404).end();
});
server.on('upgrade', (req, socket, head) => edge.upgrade(req, socket, head));
await new Promise<void>((resolve) => server.listen(config.port, config.host, () => resolve()));

async function run(call: NodeCall): Promise<unknown> {
  const actor = { userId: call.userId };
  const user = await p.data.userById(call.userId);
  if (!user) throw new Error('no such user');
  switch (call.op) {
    case 'start':
      return startBrowser(p, actor, publicUser(user), call.teamId, { keyId: call.keyId });
    case 'snapshot':
      return dashboardSnapshot(p, actor, call.teamId);
    case 'rename':
      return renameBrowser(p, actor, call.teamId, call.instanceId, { name: call.name });
    case 'stop':
      return stopBrowser(p, actor, publicUser(user), call.teamId, call.instanceId);
    case 'link':
      return createLiveLink(p, actor, call.teamId, call.instanceId, { mode: call.mode });
  }
}

process.on('message', (call: NodeCall) => {
  run(call).then(
    (value) => process.send?.({ id: call.id, ok: true, value } satisfies NodeAnswer),
    (err: Error) => process.send?.({ id: call.id, ok: false, error: err.message } satisfies NodeAnswer),
  );
});
process.on('SIGTERM', () => {
  edge.closeAll();
  void p.live
    .shutdown()
    .then(() => p.cluster?.close())
    .finally(() => process.exit(0));
});
process.send?.({ ready: (server.address() as AddressInfo).port });
