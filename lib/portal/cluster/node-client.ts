import WebSocket from 'ws';
import { BadGateway, NotFound, ServiceUnavailable } from '#shared/errors.ts';
import { NODE_MAX_THUMBNAIL_BYTES, nodeLivePath, THUMBNAIL_SOURCE_HEADER, type RelayedViewer } from '../protocol/node.ts';
import type { Thumbnail } from '../live/directory.ts';
import type { NodeAuth } from '#shared/node-auth.ts';

const TIMEOUT_MS = 5000;
/** A picture is worth less than a stalled dashboard: the next one comes in 3 s. */
const THUMBNAIL_TIMEOUT_MS = 2000;

/** This node asking another, signed (lib/portal/protocol/node.ts). */
export class NodeClient {
  readonly #auth: NodeAuth;

  constructor(auth: NodeAuth) {
    this.#auth = auth;
  }

  /** Stop or rename a browser the node at `nodeUrl` holds. */
  async action(nodeUrl: string, instanceId: string, action: 'stop' | 'rename', body: unknown): Promise<void> {
    const path = `/_node/browsers/${instanceId}/${action}`;
    const text = JSON.stringify(body);
    const res = await fetch(`${nodeUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...this.#auth.sign({ method: 'POST', path, body: text }) },
      body: text,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    }).catch(() => {
      throw new ServiceUnavailable('the portal node that holds this browser did not answer; try again', 2);
    });
    await res.arrayBuffer().catch(() => null);
    if (res.status === 404) throw new NotFound('no such browser');
    if (!res.ok) throw new BadGateway(`the portal node that holds this browser answered ${res.status}`);
  }

  /** The dashboard's picture of a browser the node at `nodeUrl` holds; null when it has none or does not answer. */
  async thumbnail(nodeUrl: string, instanceId: string): Promise<Thumbnail | null> {
    const path = `/_node/browsers/${instanceId}/thumbnail`;
    try {
      const res = await fetch(`${nodeUrl}${path}`, {
        headers: this.#auth.sign({ method: 'GET', path }),
        signal: AbortSignal.timeout(THUMBNAIL_TIMEOUT_MS),
      });
      const source = res.headers.get(THUMBNAIL_SOURCE_HEADER);
      const bytes = new Uint8Array(await res.arrayBuffer());
      if (res.status !== 200 || (source !== 'screencast' && source !== 'capture') || bytes.byteLength > NODE_MAX_THUMBNAIL_BYTES)
        return null;
      return { instanceId, jpeg: bytes, source };
    } catch {
      return null;
    }
  }

  /** A socket to the node at `nodeUrl` that relays `viewer` to the browser it holds. */
  openViewer(nodeUrl: string, instanceId: string, viewer: RelayedViewer): WebSocket {
    const path = nodeLivePath(instanceId, viewer);
    return new WebSocket(`${nodeUrl.replace(/^http/, 'ws')}${path}`, {
      headers: this.#auth.sign({ method: 'GET', path }),
      perMessageDeflate: false,
      handshakeTimeout: TIMEOUT_MS,
    });
  }
}
