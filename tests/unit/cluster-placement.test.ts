import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import type { ClusterRegistry, NodeInfo } from '#service/cluster/registry.ts';
import { NodeAuth } from '#shared/node-auth.ts';
import { ClusterGateway } from '../../server/service/cluster.ts';

/**
 * Where the gateway places a /start, with the registry's list of live nodes given (in-memory: the
 * list is what the Redis registry would answer). Only starts that stay on this node are tried, so
 * nothing is forwarded.
 */
const node = (id: string, load: number, capacity = 1): NodeInfo => ({ id, url: `http://${id}.invalid`, capacity, load, startedAt: 1 });

function gateway(listed: NodeInfo[], here: { load: number; capacity: number }): ClusterGateway {
  const registry = { nodes: async () => listed, ownerOf: async () => null } as unknown as ClusterRegistry;
  return new ClusterGateway({
    registry: { get: () => registry },
    auth: new NodeAuth({ scope: 'service', nodeId: 'node-2', secret: 'x'.repeat(32), claimNonce: async () => true }),
    nodeId: 'node-2',
    localLoad: () => here.load,
    capacity: here.capacity,
  });
}

/** Routes a /start; what the gateway did: 'here' (left to this node's handler) or the status it answered. */
async function place(g: ClusterGateway): Promise<'here' | string> {
  const socket = new PassThrough();
  const req = { url: '/start', method: 'GET', headers: {} } as IncomingMessage;
  let written = '';
  socket.on('data', (b: Buffer) => (written += b.toString()));
  const handled = await g.routeUpgrade(req, socket, Buffer.alloc(0), new URL('http://localhost/start'));
  await new Promise((r) => setImmediate(r));
  if (!handled) return 'here';
  return /^HTTP\/1\.1 (\d{3})/.exec(written)?.[1] ?? `nothing written: ${written}`;
}

describe('placing a /start across nodes', () => {
  it('takes it here when this node has room, though its heartbeat is missing from the list', async () => {
    // The other node is full, and this node's heartbeat expired while it was busy: a start it
    // can take (or refuse for its own reasons, as a profile held elsewhere) is not "at capacity".
    assert.equal(await place(gateway([node('node-1', 1)], { load: 0, capacity: 1 })), 'here');
  });

  it('counts this node by its load now, not by the heartbeat', async () => {
    assert.equal(await place(gateway([node('node-1', 1), node('node-2', 1)], { load: 0, capacity: 1 })), 'here');
  });

  it('answers 503 when every node, this one included, is full', async () => {
    assert.equal(await place(gateway([node('node-1', 1)], { load: 1, capacity: 1 })), '503');
    assert.equal(await place(gateway([node('node-1', 2, 2), node('node-2', 0)], { load: 3, capacity: 3 })), '503');
  });
});
