import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { Forbidden, NotFound } from '#portal/errors.ts';
import {
  LIVE_CLOSE,
  LIVE_MAX_MESSAGE_BYTES,
  LIVE_PROTOCOL_VERSION,
  parseClientMessage,
  type ServerMessage,
} from '#portal/protocol/live.ts';
import { FrameSlot } from '#portal/live/frame-slot.ts';
import type { TeamBrowser, TeamBrowsers } from '#portal/live/team-browsers.ts';
import { guestName, type LinkState } from '#portal/live/links.ts';
import type { Viewer } from '#portal/live/live-browser.ts';
import type { Logger } from '#shared/log.ts';
import { rejectUpgrade } from '../../http/respond.ts';
import { AccessWatch } from './access-watch.ts';
import { authorizeUpgrade, type SignedInUser, type SocketAuth } from './authorize.ts';
import { Heartbeat } from './heartbeat.ts';

export const LIVE_PATH = /^\/live\/(inst_[A-Za-z0-9_-]{16})$/;
/** A shared link's socket: `/embed/<token>/socket`, beside the link's page `/embed/<token>`. */
export const LINK_PATH = /^\/embed\/([A-Za-z0-9_-]{43})\/socket$/;

export type LiveSocketDeps = SocketAuth & {
  instances: TeamBrowsers;
  /** What a shared link's token opens now (lib/portal/live/links.ts). */
  resolveLink: (token: string) => Promise<LinkState>;
  log: Logger;
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
  readonly #heartbeat = new Heartbeat(PING_MS);
  readonly #access: AccessWatch;

  constructor(deps: LiveSocketDeps) {
    this.#deps = deps;
    this.#access = new AccessWatch(deps);
  }

  async handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, instanceId: string): Promise<void> {
    let user: SignedInUser;
    let instance: TeamBrowser;
    try {
      const signed = await authorizeUpgrade(req, this.#deps);
      const found = this.#deps.instances.get(instanceId);
      // Another team's instance is "not found" too: nothing about it leaks.
      if (!found || (await this.#deps.recheck(signed, found.teamId)) !== 'ok') throw new NotFound('no such browser');
      user = signed;
      instance = found;
    } catch (err) {
      rejectUpgrade(socket, err);
      return;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) =>
      this.#attach(ws, instance, {
        name: user.name,
        userId: user.userId,
        watchOnly: false,
        // Signed out or removed from the team: the socket closes at once, and with it any control it had.
        guard: (open) =>
          this.#access.watch(open, user, instance.teamId, (access) => {
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
    const { link, instance } = state;
    this.#wss.handleUpgrade(req, socket, head, (ws) =>
      this.#attach(ws, instance, {
        name: guestName(link),
        watchOnly: link.mode === 'watch',
        guard: (open) => this.#guardLink(open, token, link.teamId),
      }),
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
