import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { NotFound } from '#portal/errors.ts';
import {
  LIVE_CLOSE,
  LIVE_MAX_MESSAGE_BYTES,
  LIVE_PROTOCOL_VERSION,
  parseClientMessage,
  type ServerMessage,
} from '#portal/protocol/live.ts';
import { FrameSlot } from '#portal/live/frame-slot.ts';
import type { TeamBrowser, TeamBrowsers } from '#portal/live/team-browsers.ts';
import type { Viewer } from '#portal/live/live-browser.ts';
import type { Logger } from '#shared/log.ts';
import { rejectUpgrade } from '../../http/respond.ts';
import { AccessWatch } from './access-watch.ts';
import { authorizeUpgrade, type SignedInUser, type SocketAuth } from './authorize.ts';
import { Heartbeat } from './heartbeat.ts';

export const LIVE_PATH = /^\/live\/(inst_[A-Za-z0-9_-]{16})$/;

export type LiveSocketDeps = SocketAuth & {
  instances: TeamBrowsers;
  log: Logger;
};

const INVALID_LIMIT = 100;
const PING_MS = 15_000;

/**
 * `/live/<instanceId>`: the portal's live-view socket. Checks the Origin, the session and that the
 * user's team owns the instance before the handshake; then relays frames out and validated
 * messages in (lib/portal/protocol/live.ts).
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
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#attach(ws, instance, user));
  }

  /** Close every viewer's socket (portal shutdown). */
  closeAll(): void {
    this.#access.stop();
    this.#heartbeat.closeAll(LIVE_CLOSE.goingAway.code, LIVE_CLOSE.goingAway.reason);
  }

  #attach(ws: WebSocket, instance: TeamBrowser, user: SignedInUser): void {
    const viewerId = `v_${randomBytes(6).toString('base64url')}`;
    const send = (message: ServerMessage) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
    };
    const viewer: Viewer = {
      id: viewerId,
      name: user.name,
      userId: user.userId,
      send,
      frames: new FrameSlot({
        send: (data, done) => (ws.readyState === ws.OPEN ? ws.send(data, { binary: true }, done) : done(new Error('closed'))),
      }),
      bufferedBytes: () => ws.bufferedAmount,
    };
    const live = instance.live;
    this.#heartbeat.add(ws);
    // Signed out or removed from the team: the socket closes at once, and with it any control it had.
    this.#access.watch(ws, user, instance.teamId, (access) => {
      if (access === 'signed-out') ws.close(LIVE_CLOSE.unauthenticated.code, LIVE_CLOSE.unauthenticated.reason);
      else if (access === 'not-member') ws.close(LIVE_CLOSE.forbidden.code, LIVE_CLOSE.forbidden.reason);
    });
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
        live.addViewer(viewer, { takeControl: msg.takeControl });
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
