import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ConnectTickets } from '#service/browser/connect-tickets.ts';
import type { ClusterRegistry } from '#service/cluster/registry.ts';
import { placement } from '#service/cluster/registry.ts';
import type { NodeAuth } from '#shared/node-auth.ts';
import { NODE_HEADERS } from '#shared/node-signature.ts';
import { ServiceUnavailable } from '#shared/errors.ts';
import { checkStartOptions, isBrowserId, START_CLOSE } from '#shared/protocol/start.ts';
import { forwardRequest, spliceUpgrade, type Refusal } from '../http/forward.ts';
import { rejectUpgrade, sendError } from '../http/respond.ts';

/** What another node says of a live browser it runs. */
export type LiveElsewhere = { id: string; status: 'live'; page: { url: string; title: string } | null; tabs: number };

/** `/v0/browsers/<id>` and what is under it. */
const BROWSER_PATH = /^\/v0\/browsers\/(br_[A-Za-z0-9_-]{32})(?:\/|$)/;

export type GatewayOptions = {
  /** The registry, once this node has joined (throws a 503 before). */
  registry: { get(): ClusterRegistry };
  /** Signs this node's requests to others and checks theirs (once each, within 30 s). */
  auth: NodeAuth;
  nodeId: string;
  /** This node's load now (the registry's copy is up to a heartbeat old). */
  localLoad: () => number;
  /** Browsers this node runs at most. */
  capacity: number;
};

/**
 * Any node serves any browser (issue 15, decision 0091). In front of the handlers: a request about
 * a browser another node runs goes to that node; a new browser (/start) goes to the least loaded
 * node with room. Requests another node placed here (signed) are served here, whatever the
 * registry says, so two nodes never pass a request back and forth; a request that claims to come
 * from a node but is not signed by one is refused.
 */
export class ClusterGateway {
  readonly #opts: GatewayOptions;

  constructor(opts: GatewayOptions) {
    this.#opts = opts;
  }

  /** True when the request was handled here (forwarded or refused); false: serve it locally. */
  async route(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    try {
      if (await this.#placedByNode(req)) return false;
      const id = browserIdOf(req, url);
      if (!id) return false;
      const owner = await this.#opts.registry.get().ownerOf(id);
      if (!owner || owner.id === this.#opts.nodeId) return false;
      await forwardRequest(req, res, owner.url, this.#sign(req));
      return true;
    } catch (err) {
      sendError(res, err);
      return true;
    }
  }

  /** The same for WebSocket handshakes: /start is placed, /devtools/* goes to the browser's node. */
  async routeUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): Promise<boolean> {
    try {
      if (await this.#placedByNode(req)) return false;
      if (url.pathname === '/start') return await this.#place(req, socket, head);
      const id = browserIdOf(req, url);
      if (!id) return false;
      const owner = await this.#opts.registry.get().ownerOf(id);
      if (!owner || owner.id === this.#opts.nodeId) return false;
      const result = await spliceUpgrade(req, socket, head, owner.url, this.#sign(req), { lostClose: START_CLOSE.nodeLost });
      if (result !== 'spliced') socket.end(result.raw);
      return true;
    } catch (err) {
      rejectUpgrade(socket, err);
      return true;
    }
  }

  /**
   * Start the browser on the least loaded node with room. A node that refuses with 503 (it filled up
   * since its last heartbeat, or cannot isolate) is passed over for the next; any other answer (401,
   * 429, a handshake error) is the client's.
   */
  async #place(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<boolean> {
    const { nodeId, localLoad, capacity } = this.#opts;
    const listed = await this.#opts.registry.get().nodes();
    // This node counts with its load now, and even when its heartbeat is not in the list (it
    // expired while the node was busy, or is not written yet): it knows it is alive, and its own
    // checks answer a start it cannot take (a profile held elsewhere is a 409, not "at capacity").
    const self = { id: nodeId, url: '', startedAt: 0, ...listed.find((n) => n.id === nodeId), capacity, load: localLoad() };
    const order = placement([...listed.filter((n) => n.id !== nodeId), self], nodeId);
    if (order.length === 0) {
      // Every node is full: a start that asked to wait (`queue=`) waits for room here, on this node.
      if (wantsQueue(req)) return false;
      throw new ServiceUnavailable('every node of the service is at capacity; try again shortly', 5);
    }
    let last: Refusal | null = null;
    for (const node of order) {
      if (node.id === this.#opts.nodeId) return false;
      if (socket.destroyed) return true;
      const result = await spliceUpgrade(req, socket, head, node.url, this.#sign(req), { lostClose: START_CLOSE.nodeLost }).catch(
        () => null,
      );
      if (result === 'spliced') return true;
      if (result && result.status !== 503) {
        socket.end(result.raw);
        return true;
      }
      last = result ?? last;
    }
    if (last) socket.end(last.raw);
    else throw new ServiceUnavailable('no node of the service could start a browser; try again shortly', 5);
    return true;
  }

  /** This node's id, which the history names each browser's node by. */
  get nodeId(): string {
    return this.#opts.nodeId;
  }

  /**
   * The page state of a key's browsers that other nodes run, for `GET /v0/browsers`: each node
   * that runs some of `ids` is asked for its own live list (signed, so it answers only its own),
   * with the client's credentials. A node that does not answer in time leaves its browsers out.
   */
  async liveElsewhere(authorization: string | undefined, ids: readonly string[]): Promise<Map<string, LiveElsewhere>> {
    const found = new Map<string, LiveElsewhere>();
    if (ids.length === 0) return found;
    const owners = await Promise.all(ids.map((id) => this.#opts.registry.get().ownerOf(id)));
    const nodes = new Set<string>();
    for (const owner of owners) if (owner && owner.id !== this.#opts.nodeId) nodes.add(owner.id);
    const answers = await this.ask([...nodes], '/v0/browsers?status=live', authorization);
    for (const { body } of answers) {
      const browsers = (body as { browsers?: LiveElsewhere[] } | null)?.browsers;
      for (const b of Array.isArray(browsers) ? browsers : []) if (typeof b?.id === 'string' && b.status === 'live') found.set(b.id, b);
    }
    return found;
  }

  /**
   * GET `path` from each of `nodeIds` (signed, so each answers for itself only), with the client's
   * credentials; `body` is null for a node that is not alive, fails, or does not answer in time.
   */
  async ask(nodeIds: readonly string[], path: string, authorization: string | undefined): Promise<{ nodeId: string; body: unknown }[]> {
    if (nodeIds.length === 0) return [];
    const alive = new Map((await this.#opts.registry.get().nodes()).map((n) => [n.id, n.url]));
    return Promise.all(
      nodeIds.map(async (nodeId) => {
        const base = alive.get(nodeId);
        if (!base || nodeId === this.#opts.nodeId) return { nodeId, body: null };
        const res = await fetch(new URL(path, base), {
          headers: { ...(authorization ? { authorization } : {}), ...this.#opts.auth.sign({ method: 'GET', path }) },
          signal: AbortSignal.timeout(5_000),
        }).catch(() => null);
        return { nodeId, body: res?.ok ? await res.json().catch(() => null) : null };
      }),
    );
  }

  /** Serve a request about something kept on `nodeId`'s disk (a recording) from that node. */
  async forwardTo(nodeId: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const node = (await this.#opts.registry.get().nodes()).find((n) => n.id === nodeId);
    if (!node)
      throw new ServiceUnavailable(`this is kept on service node ${nodeId}, which is not running now; try again once it is back`, 30);
    await forwardRequest(req, res, node.url, this.#sign(req));
  }

  /** What /healthz says of the cluster: this node, and every live node's load (never their addresses). */
  async health(): Promise<{ node: string; nodes: { id: string; load: number; capacity: number }[] }> {
    const nodes = await this.#opts.registry.get().nodes();
    return {
      node: this.#opts.nodeId,
      nodes: nodes.map(({ id, load, capacity }) => ({ id, load, capacity })).sort((a, b) => a.id.localeCompare(b.id)),
    };
  }

  /** True for a request another node signed and this node already served as such. */
  isFromNode(req: IncomingMessage): boolean {
    return req.headers[NODE_HEADERS.node] !== undefined;
  }

  /** True for a request another node signed; throws for one that claims to be and is not. */
  async #placedByNode(req: IncomingMessage): Promise<boolean> {
    if (req.headers[NODE_HEADERS.node] === undefined) return false;
    await this.#opts.auth.verify(req.headers, { method: req.method ?? 'GET', path: req.url ?? '/' });
    return true;
  }

  /** A forwarded request's signature: its method and path (a body is streamed on unsigned, and trusted for nothing). */
  #sign(req: IncomingMessage): Record<string, string> {
    return this.#opts.auth.sign({ method: req.method ?? 'GET', path: req.url ?? '/' });
  }
}

/** The browser a request is about: its X-Browser-ID, or the id in /v0/browsers/<id>. */
function browserIdOf(req: IncomingMessage, url: URL): string | null {
  const header = req.headers['x-browser-id'];
  if (typeof header === 'string' && isBrowserId(header.trim())) return header.trim();
  const ticket = url.searchParams.get('ticket');
  if (ticket) return ConnectTickets.browserIdOf(ticket);
  return BROWSER_PATH.exec(url.pathname)?.[1] ?? null;
}

/** Whether a `/start` asks to wait for room (a valid `queue` of one second or more; the node that takes it judges the rest). */
function wantsQueue(req: IncomingMessage): boolean {
  const asked = checkStartOptions(new URL(req.url ?? '/', 'http://localhost').searchParams, Number.MAX_SAFE_INTEGER);
  return asked.ok && (asked.options.queueSeconds ?? 0) > 0;
}
