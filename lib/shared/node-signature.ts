import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * How one node proves to another of its kind that a request is its own (decisions 0091, 0095): an
 * HMAC-SHA256, with the cluster's shared secret, of the scope (a portal node's signature is no
 * service node's), the sending node's id, the time, a fresh nonce, the method, the path with its
 * query, and the body's hash. The receiver accepts it within a small clock window and only once (the
 * nonce is claimed in Redis: node-auth.ts). A user's cookie or key is never trust between nodes:
 * the portal signs what it learnt of the viewer into the path, and a service node passes the
 * client's credentials on for the receiver to check. Service nodes stream bodies on (uploads) and
 * sign without them: they trust nothing in a forwarded body.
 */
export type NodeScope = 'portal' | 'service';

export const NODE_HEADERS = {
  node: 'x-periscope-node',
  time: 'x-periscope-time',
  nonce: 'x-periscope-nonce',
  signature: 'x-periscope-signature',
} as const;

/** How far the sender's clock may be from the receiver's, either way. */
export const NODE_CLOCK_WINDOW_MS = 30_000;

const NODE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
const NONCE = /^[A-Za-z0-9_-]{22}$/;
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

export type NodeRequest = { method: string; path: string; body?: string };

const hashOf = (body: string) => createHash('sha256').update(body).digest('base64url');

function mac(scope: NodeScope, secret: string, nodeId: string, time: string, nonce: string, req: NodeRequest): Buffer {
  const text = [`periscope-${scope}-node-v1`, nodeId, time, nonce, req.method.toUpperCase(), req.path, hashOf(req.body ?? '')].join('\n');
  return createHmac('sha256', secret).update(text).digest();
}

/** The headers that sign `req` as `nodeId`'s. */
export function signNodeRequest(
  scope: NodeScope,
  secret: string,
  nodeId: string,
  req: NodeRequest,
  now = Date.now(),
): Record<string, string> {
  const time = String(now);
  const nonce = randomBytes(16).toString('base64url');
  return {
    [NODE_HEADERS.node]: nodeId,
    [NODE_HEADERS.time]: time,
    [NODE_HEADERS.nonce]: nonce,
    [NODE_HEADERS.signature]: mac(scope, secret, nodeId, time, nonce, req).toString('base64url'),
  };
}

export type SignatureCheck = { ok: true; nodeId: string; nonce: string; time: number } | { ok: false; problem: string };

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? undefined : v);

/** Whether `headers` sign `req` with `secret` within the clock window. Never throws. */
export function checkNodeSignature(
  scope: NodeScope,
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  req: NodeRequest,
  now = Date.now(),
): SignatureCheck {
  const nodeId = one(headers[NODE_HEADERS.node]);
  const time = one(headers[NODE_HEADERS.time]);
  const nonce = one(headers[NODE_HEADERS.nonce]);
  const signature = one(headers[NODE_HEADERS.signature]);
  if (!nodeId || !time || !nonce || !signature) return { ok: false, problem: `not signed by a ${scope} node` };
  if (!NODE_ID.test(nodeId) || !/^\d{1,16}$/.test(time) || !NONCE.test(nonce) || !SIGNATURE.test(signature))
    return { ok: false, problem: 'malformed node signature' };
  const at = Number(time);
  if (Math.abs(now - at) > NODE_CLOCK_WINDOW_MS) return { ok: false, problem: 'node signature outside the clock window' };
  const expected = mac(scope, secret, nodeId, time, nonce, req);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, problem: 'bad node signature' };
  return { ok: true, nodeId, nonce, time: at };
}
