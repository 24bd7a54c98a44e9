import type { IncomingMessage, ServerResponse } from 'node:http';
import { BadRequest, MethodNotAllowed, NotFound } from '#shared/errors.ts';
import type { PortalCluster } from '#portal/cluster/join.ts';
import type { BrowserDirectory } from '#portal/live/directory.ts';
import {
  NODE_ACTION_METHOD,
  NODE_ACTION_PATH,
  NODE_MAX_BODY_BYTES,
  nodeRenameSchema,
  nodeStopSchema,
  THUMBNAIL_SOURCE_HEADER,
  type NodeAction,
} from '#portal/protocol/node.ts';
import { parseOrThrow } from '#portal/validation.ts';
import { readBody } from '../http/body.ts';
import { sendError, sendJson } from '../http/respond.ts';

/** Whether a request is node-to-node (lib/portal/protocol/node.ts); those never reach Next. */
export const isNodePath = (url: string | undefined): boolean => (url ?? '').startsWith('/_node/');

/**
 * `POST /_node/browsers/<instanceId>/stop|rename`, `GET …/thumbnail`: another portal node asks this
 * one, which holds the browser, to act on it for a user it has checked, or for its dashboard's
 * picture. Signed, once, within the clock window.
 */
export async function handleNodeRequest(
  req: IncomingMessage,
  res: ServerResponse,
  deps: { cluster: Pick<PortalCluster, 'auth'> | null; browsers: BrowserDirectory },
): Promise<void> {
  try {
    const path = req.url ?? '';
    const match = NODE_ACTION_PATH.exec(new URL(path, 'http://node').pathname);
    if (!deps.cluster || !match) throw new NotFound('no such node endpoint');
    const [, instanceId, action] = match as unknown as [string, string, NodeAction];
    const method = NODE_ACTION_METHOD[action];
    if (req.method !== method) throw new MethodNotAllowed([method]);
    const body = method === 'POST' ? await readBody(req, NODE_MAX_BODY_BYTES) : '';
    await deps.cluster.auth.verify(req.headers, { method, path, body });
    const local = deps.browsers.local;
    const instance = local.get(instanceId);
    if (!instance) throw new NotFound('this node holds no such browser');
    if (action === 'thumbnail') {
      const shot = await instance.live.thumbnail();
      if (!shot) return void res.writeHead(204).end();
      res.writeHead(200, { 'content-type': 'image/jpeg', 'cache-control': 'no-store', [THUMBNAIL_SOURCE_HEADER]: shot.source });
      return void res.end(shot.jpeg);
    }
    const input = parseJson(body);
    if (action === 'stop') {
      const { reason, message, by } = parseOrThrow(nodeStopSchema, input);
      local.stop(instanceId, { reason, message }, by);
    } else {
      local.rename(instanceId, parseOrThrow(nodeRenameSchema, input).name);
      // The asking node reads the new name back: it is in the registry before the answer.
      await deps.browsers.settle();
    }
    sendJson(res, 200, { ok: true });
  } catch (err) {
    sendError(res, err);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new BadRequest('the body is not JSON');
  }
}
