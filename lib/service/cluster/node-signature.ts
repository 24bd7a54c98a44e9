import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Node-to-node requests are signed (issue 15, decision 0091): a node that forwards a client's
 * request to the node holding its browser adds `X-Periscope-Node: <node id>;t=<ms>;sig=<hmac>`,
 * an HMAC-SHA256 with CLUSTER_SECRET over the node id, the time, the method and the path with its
 * query. The receiver accepts it within a window of the time (clocks of a cluster agree to well
 * within it) and then trusts exactly two things: the request was placed by a node (so it is not
 * placed or forwarded again), and which node sent it. The client's own credentials travel
 * unchanged and are checked by the receiver as for any request.
 */
export const NODE_HEADER = 'x-periscope-node';

/** How far the signed time may be from the receiver's clock. */
export const SIGNATURE_WINDOW_MS = 30_000;

const NODE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
const HEADER = /^([A-Za-z0-9][A-Za-z0-9._-]{0,62});t=(\d{13});sig=([A-Za-z0-9_-]{43})$/;

const mac = (secret: string, nodeId: string, t: string, method: string, path: string): Buffer =>
  createHmac('sha256', secret).update(`${nodeId}\n${t}\n${method.toUpperCase()}\n${path}`).digest();

/** The header value that signs `method path` as sent by `nodeId` at `now`. */
export function signNodeRequest(secret: string, nodeId: string, method: string, path: string, now = Date.now()): string {
  if (!NODE_ID.test(nodeId)) throw new RangeError('invalid node id');
  const t = String(Math.trunc(now)).padStart(13, '0');
  return `${nodeId};t=${t};sig=${mac(secret, nodeId, t, method, path).toString('base64url')}`;
}

export type NodeSignature = { ok: true; nodeId: string } | { ok: false; reason: string };

/** Check a request's header; says why when it does not hold. */
export function verifyNodeRequest(
  secret: string,
  header: string | string[] | undefined,
  method: string,
  path: string,
  now = Date.now(),
): NodeSignature {
  if (header === undefined) return { ok: false, reason: 'not signed' };
  if (Array.isArray(header)) return { ok: false, reason: 'more than one node signature' };
  const m = HEADER.exec(header.trim());
  if (!m) return { ok: false, reason: 'malformed node signature' };
  const [, nodeId, t, sig] = m as unknown as [string, string, string, string];
  if (Math.abs(now - Number(t)) > SIGNATURE_WINDOW_MS) return { ok: false, reason: 'node signature expired' };
  const expected = mac(secret, nodeId, t, method, path);
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'bad node signature' };
  return { ok: true, nodeId };
}
