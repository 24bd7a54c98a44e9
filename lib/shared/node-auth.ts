import { Unauthorized } from '#shared/errors.ts';
import { checkNodeSignature, NODE_CLOCK_WINDOW_MS, signNodeRequest, type NodeRequest, type NodeScope } from './node-signature.ts';

/**
 * This node's side of node-to-node trust: signing what it asks of others, and checking what others
 * ask of it: a good signature within the clock window, used once (the nonce is claimed in Redis for
 * twice the window, so a captured request cannot be replayed at all).
 */
export class NodeAuth {
  readonly nodeId: string;
  readonly #scope: NodeScope;
  readonly #secret: string;
  readonly #claimNonce: (nonce: string, ttlMs: number) => Promise<boolean>;

  constructor(opts: { scope: NodeScope; nodeId: string; secret: string; claimNonce: (nonce: string, ttlMs: number) => Promise<boolean> }) {
    this.#scope = opts.scope;
    this.nodeId = opts.nodeId;
    this.#secret = opts.secret;
    this.#claimNonce = opts.claimNonce;
  }

  sign(req: NodeRequest): Record<string, string> {
    return signNodeRequest(this.#scope, this.#secret, this.nodeId, req);
  }

  /** The asking node's id; throws Unauthorized (401) for anything else. */
  async verify(headers: Record<string, string | string[] | undefined>, req: NodeRequest): Promise<string> {
    const check = checkNodeSignature(this.#scope, this.#secret, headers, req);
    if (!check.ok) throw new Unauthorized(`node-to-node request refused: ${check.problem}`);
    if (!(await this.#claimNonce(check.nonce, 2 * NODE_CLOCK_WINDOW_MS)))
      throw new Unauthorized('node-to-node request refused: already used');
    return check.nodeId;
  }
}
