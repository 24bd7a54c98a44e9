import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { BadRequest, Forbidden, NotFound } from '#portal/errors.ts';
import {
  LIVE_CLOSE,
  LIVE_MAX_MESSAGE_BYTES,
  LIVE_PROTOCOL_VERSION,
  parseClientMessage,
  type ServerMessage,
} from '#portal/protocol/live.ts';
import { FrameSlot } from '#portal/live/frame-slot.ts';
import type { TeamBrowser } from '#portal/live/team-browsers.ts';
import type { BrowserDirectory, Located } from '#portal/live/directory.ts';
import type { PortalCluster } from '#portal/cluster/join.ts';
import { decodeViewer } from '#portal/protocol/node.ts';
import { guestName, type LinkState } from '#portal/live/links.ts';
import type { Viewer } from '#portal/live/live-browser.ts';
import type { Logger } from '#shared/log.ts';
import { rejectUpgrade } from '../../http/respond.ts';
import { AccessWatch } from './access-watch.ts';
import { authorizeUpgrade, type SignedInUser, type SocketAuth } from './authorize.ts';
import { Heartbeat } from './heartbeat.ts';
import { relayToHolder } from './node-relay.ts';

export const LIVE_PATH = /^\/live\/(inst_[A-Za-z0-9_-]{16})$/;
/** A shared link's socket: `/embed/<token>/socket`, beside the link's page `/embed/<token>`. */
export const LINK_PATH = /^\/embed\/([A-Za-z0-9_-]{43})\/socket$/;

export type LiveSocketDeps = SocketAuth & {
  /** The team browsers of every portal node (decision 0095). */
  browsers: BrowserDirectory;
  /** Trust between portal nodes and the way to reach them; null in a single process. */
  cluster: Pick<PortalCluster, 'auth' | 'client'> | null;
  /** Whether a user is an owner or admin of a team now, who may take control without asking twice. */
  mayTakeControl: (userId: string, teamId: string) => Promise<boolean>;
  /** What a shared link's token opens now (lib/portal/live/links.ts). */
  resolveLink: (token: string) => Promise<LinkState>;
  log: Logger;
  /** How often each viewer is pinged; one that did not answer the last ping is dropped (PING_MS). */
  pingMs?: number;
};

/** Who a socket's viewer is, and how the socket learns that it may no longer watch. */
type Guest = {
  name: string;
  userId?: string;
  watchOnly: boolean;
  /** Close `ws` when its access ends; called once the socket is open. */
  guard: (ws: WebSocket) => void;
};

const INVALID_LIMIT = 100;

/** How a link's view closes when the link stops opening the browser (null: it still does). */
const LINK_CLOSE: Record<LinkState['status'], { code: number; reason: string } | null> = {
  open: null,
  invalid: LIVE_CLOSE.linkRevoked,
  revoked: LIVE_CLOSE.linkRevoked,
  expired: LIVE_CLOSE.linkExpired,
  ended: LIVE_CLOSE.ended,
};
const PING_MS = 15_000;

/**
 * `/live/<instanceId>`: the portal's live-view socket. Checks the Origin, the session and that the
 * user's team owns the instance before the handshake; then relays frames out and validated
 * messages in (lib/portal/protocol/live.ts). `/embed/<token>/socket` is the same socket for the
 * holder of a shared link: the Origin is checked (the link's page is the portal's own, framed or
 * not), the link instead of a session, and the view closes when the link expires or is revoked.
 */
export class LiveSockets {
  readonly #deps: LiveSocketDeps;
  readonly #wss = new WebSocketServer({ noServer: true, maxPayload: LIVE_MAX_MESSAGE_BYTES, perMessageDeflate: false });
  readonly #heartbeat: Heartbeat;
  readonly #access: AccessWatch;

  constructor(deps: LiveSocketDeps) {
    this.#deps = deps;
    this.#heartbeat = new Heartbeat(deps.pingMs ?? PING_MS);
    this.#access = new AccessWatch(deps);
  }

  async handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, instanceId: string): Promise<void> {
    let user: SignedInUser;
    let at: Located;
    try {
      const signed = await authorizeUpgrade(req, this.#deps);
      const found = await this.#deps.browsers.find(instanceId);
      // Another team's instance is "not found" too: nothing about it leaks.
      if (!found || (await this.#deps.recheck(signed, found.row.teamId)) !== 'ok') throw new NotFound('no such browser');
      user = signed;
      at = found;
    } catch (err) {
      rejectUpgrade(socket, err);
      return;
    }
    const teamId = at.row.teamId;
    this.#wss.handleUpgrade(req, socket, head, (ws) =>
      this.#open(ws, at, {
        name: user.name,
        userId: user.userId,
        watchOnly: false,
        // Signed out or removed from the team: the socket closes at once, and with it any control it had.
        guard: (open) =>
          this.#access.watch(open, user, teamId, (access) => {
            if (access === 'signed-out') open.close(LIVE_CLOSE.unauthenticated.code, LIVE_CLOSE.unauthenticated.reason);
            else if (access === 'not-member') open.close(LIVE_CLOSE.forbidden.code, LIVE_CLOSE.forbidden.reason);
          }),
      }),
    );
  }

  async handleLinkUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, token: string): Promise<void> {
    let state: LinkState;
    try {
      const origin = req.headers.origin;
      if (!origin || !this.#deps.allowedOrigins(req).includes(origin)) throw new Forbidden('cross-origin connections are not allowed');
      state = await this.#deps.resolveLink(token);
      if (state.status !== 'open') throw new NotFound('this link opens nothing');
    } catch (err) {
      rejectUpgrade(socket, err);
      return;
    }
    const { link, at } = state;
    this.#wss.handleUpgrade(req, socket, head, (ws) =>
      this.#open(ws, at, {
        name: guestName(link),
        watchOnly: link.mode === 'watch',
        guard: (open) => this.#guardLink(open, token, link.teamId),
      }),
    );
  }

  /**
   * `/_node/live/<instanceId>`: a viewer another portal node relays to this one, which holds the
   * browser. Only a request signed by a node of the cluster, once and within the clock window, is
   * taken; the viewer's session or link was checked there, and that node closes the relay when it
   * ends. Who the viewer is comes from the signed path.
   */
  async handleNodeUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, instanceId: string): Promise<void> {
    let instance: TeamBrowser;
    let viewer: NonNullable<ReturnType<typeof decodeViewer>>;
    try {
      const cluster = this.#deps.cluster;
      if (!cluster) throw new NotFound('this portal runs as one node');
      const path = req.url ?? '';
      await cluster.auth.verify(req.headers, { method: req.method ?? 'GET', path });
      const decoded = decodeViewer(new URL(path, 'http://node').searchParams.get('viewer'));
      if (!decoded) throw new BadRequest('the relayed viewer is missing or malformed');
      const found = this.#deps.browsers.local.get(instanceId);
      if (!found) throw new NotFound('this node holds no such browser');
      instance = found;
      viewer = decoded;
    } catch (err) {
      rejectUpgrade(socket, err);
      return;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) =>
      this.#attach(ws, instance, { name: viewer.name, userId: viewer.userId ?? undefined, watchOnly: viewer.watchOnly, guard: () => {} }),
    );
  }

  /** Close every viewer's socket (portal shutdown). */
  closeAll(): void {
    this.#access.stop();
    this.#heartbeat.closeAll(LIVE_CLOSE.goingAway.code, LIVE_CLOSE.goingAway.reason);
  }

  /** A link's view lasts while the link opens the browser: it closes at the expiry, and at a revoke of its team's. */
  #guardLink(ws: WebSocket, token: string, teamId: string): void {
    const check = async () => {
      const now = await this.#deps.resolveLink(token).catch(() => null);
      const end = LINK_CLOSE[now?.status === 'open' ? 'open' : (now?.status ?? 'revoked')];
      if (end) ws.close(end.code, end.reason);
      return now;
    };
    let timer: NodeJS.Timeout | null = null;
    // A revoke is an access change of the link's team; a change whose team is not known may be one.
    const unsubscribe = this.#deps.onAccessChange((change) => {
      if (change.teamId === null || change.teamId === teamId) void check();
    });
    void check().then((now) => {
      if (now?.status !== 'open' || ws.readyState !== ws.OPEN) return;
      // setTimeout holds at most 2^31-1 ms (24.8 days); a link lasts 7 days at most.
      timer = setTimeout(() => void check(), Math.max(0, now.link.expiresAt - Date.now()) + 50);
    });
    ws.once('close', () => {
      unsubscribe();
      if (timer) clearTimeout(timer);
    });
  }

  /** The browser is here: attach the viewer. It is on another node: relay the viewer there. */
  #open(ws: WebSocket, at: Located, guest: Guest): void {
    if (at.local) return this.#attach(ws, at.local, guest);
    this.#heartbeat.add(ws);
    guest.guard(ws);
    const cluster = this.#deps.cluster;
    if (!cluster) return ws.close(LIVE_CLOSE.ended.code, LIVE_CLOSE.ended.reason);
    const upstream = cluster.client.openViewer(at.holderUrl, at.row.id, {
      name: guest.name,
      userId: guest.userId ?? null,
      watchOnly: guest.watchOnly,
    });
    upstream.once('open', () => this.#heartbeat.add(upstream));
    relayToHolder(ws, upstream, this.#deps.log.child({ instanceId: at.row.id, holder: at.row.nodeId }));
  }

  #attach(ws: WebSocket, instance: TeamBrowser, guest: Guest): void {
    const viewerId = `v_${randomBytes(6).toString('base64url')}`;
    // Someone outside the team sees who else watches by name only.
    const outsider = guest.userId === undefined;
    const send = (message: ServerMessage) => {
      if (ws.readyState !== ws.OPEN) return;
      const shown =
        outsider && message.type === 'state' ? { ...message, viewers: message.viewers.map((v) => ({ ...v, userId: null })) } : message;
      ws.send(JSON.stringify(shown));
    };
    const viewer: Viewer = {
      id: viewerId,
      name: guest.name,
      userId: guest.userId,
      watchOnly: guest.watchOnly,
      send,
      // A link's guest has no role in the team: never. Anyone else's role is looked up at the take.
      mayTakeControl: guest.userId === undefined ? undefined : () => this.#deps.mayTakeControl(guest.userId!, instance.teamId),
      frames: new FrameSlot({
        send: (data, done) => (ws.readyState === ws.OPEN ? ws.send(data, { binary: true }, done) : done(new Error('closed'))),
      }),
      bufferedBytes: () => ws.bufferedAmount,
    };
    const live = instance.live;
    this.#heartbeat.add(ws);
    guest.guard(ws);
    let invalid = 0;
    let joined = false;
    const onEnded = () => ws.close(LIVE_CLOSE.ended.code, LIVE_CLOSE.ended.reason);

    ws.on('message', (data, isBinary) => {
      const parsed = isBinary
        ? { ok: false as const, error: 'binary messages are not part of the protocol' }
        : parseClientMessage(data.toString());
      if (!parsed.ok) {
        send({ type: 'error', code: 'invalid-message', message: parsed.error });
        if (++invalid > INVALID_LIMIT) ws.close(LIVE_CLOSE.abuse.code, LIVE_CLOSE.abuse.reason);
        return;
      }
      const msg = parsed.message;
      if (!joined) {
        if (msg.type !== 'hello') return send({ type: 'error', code: 'invalid-message', message: 'say hello first' });
        if (msg.v !== LIVE_PROTOCOL_VERSION) {
          send({ type: 'error', code: 'unsupported-version', message: `this portal speaks version ${LIVE_PROTOCOL_VERSION}` });
          return ws.close(LIVE_CLOSE.unsupportedVersion.code, LIVE_CLOSE.unsupportedVersion.reason);
        }
        joined = true;
        send({ type: 'welcome', v: LIVE_PROTOCOL_VERSION, viewerId, instanceId: instance.id });
        live.addViewer(viewer, { takeControl: msg.takeControl && !guest.watchOnly });
        if (live.ended) return onEnded();
        live.once('ended', onEnded);
        return;
      }
      live.handle(viewerId, msg).catch((err: Error) => {
        this.#deps.log.warn({ err, instanceId: instance.id }, 'live message failed');
        send({ type: 'error', code: 'failed', message: 'that did not work' });
      });
    });
    ws.on('error', () => ws.terminate());
    ws.once('close', () => {
      live.off('ended', onEnded);
      live.removeViewer(viewerId);
    });
  }
}
