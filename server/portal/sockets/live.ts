import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { Forbidden, NotFound, SignInRequired } from '../../../lib/portal/errors.ts';
import { LIVE_CLOSE, LIVE_MAX_MESSAGE_BYTES, LIVE_PROTOCOL_VERSION, parseClientMessage, type ServerMessage } from '../../../lib/protocol/live.ts';
import { FrameSlot } from '../../../lib/remote/frame-slot.ts';
import type { LiveInstance, LiveInstances } from '../../../lib/remote/instances.ts';
import type { Viewer } from '../../../lib/remote/live-browser.ts';
import type { Logger } from '../../../lib/observability/log.ts';
import { rejectUpgrade } from '../../http/respond.ts';

export const LIVE_PATH = /^\/live\/(inst_[A-Za-z0-9_-]{16})$/;

export type LiveSocketDeps = {
  instances: () => LiveInstances;
  /** The signed-in user of an upgrade request (session cookie), or null. */
  authenticate: (req: IncomingMessage) => Promise<{ userId: string; name: string } | null>;
  isMember: (teamId: string, userId: string) => Promise<boolean>;
  /** Origins allowed to open the socket (the portal's own). */
  allowedOrigins: (req: IncomingMessage) => string[];
  log: Logger;
};

const INVALID_LIMIT = 100;
const PING_MS = 15_000;

/**
 * `/live/<instanceId>`: the portal's live-view socket. Checks the Origin, the session and that the
 * user's team owns the instance before the handshake; then relays frames out and validated
 * messages in (lib/protocol/live.ts).
 */
export class LiveSockets {
  readonly #deps: LiveSocketDeps;
  readonly #wss = new WebSocketServer({ noServer: true, maxPayload: LIVE_MAX_MESSAGE_BYTES, perMessageDeflate: false });
  readonly #open = new Set<WebSocket>();
  readonly #alive = new WeakSet<WebSocket>();
  readonly #pinger: NodeJS.Timeout;

  constructor(deps: LiveSocketDeps) {
    this.#deps = deps;
    this.#pinger = setInterval(() => this.#heartbeat(), PING_MS);
    this.#pinger.unref();
  }

  async handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, instanceId: string): Promise<void> {
    let user: { userId: string; name: string };
    let instance: LiveInstance;
    try {
      const origin = req.headers.origin;
      if (!origin || !this.#deps.allowedOrigins(req).includes(origin)) throw new Forbidden('cross-origin live-view connections are not allowed');
      const signed = await this.#deps.authenticate(req);
      if (!signed) throw new SignInRequired();
      const found = this.#deps.instances().get(instanceId);
      // Another team's instance is "not found" too: nothing about it leaks.
      if (!found || !(await this.#deps.isMember(found.teamId, signed.userId))) throw new NotFound('no such browser');
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
    clearInterval(this.#pinger);
    for (const ws of this.#open) ws.close(LIVE_CLOSE.goingAway.code, LIVE_CLOSE.goingAway.reason);
  }

  #attach(ws: WebSocket, instance: LiveInstance, user: { userId: string; name: string }): void {
    const viewerId = `v_${randomBytes(6).toString('base64url')}`;
    const send = (message: ServerMessage) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
    };
    const viewer: Viewer = {
      id: viewerId,
      name: user.name,
      send,
      frames: new FrameSlot({
        send: (data, done) => (ws.readyState === ws.OPEN ? ws.send(data, { binary: true }, done) : done(new Error('closed'))),
      }),
      bufferedBytes: () => ws.bufferedAmount,
    };
    const live = instance.live;
    this.#open.add(ws);
    this.#alive.add(ws);
    let invalid = 0;
    let joined = false;
    const onEnded = () => ws.close(LIVE_CLOSE.ended.code, LIVE_CLOSE.ended.reason);

    ws.on('pong', () => this.#alive.add(ws));
    ws.on('message', (data, isBinary) => {
      const parsed = isBinary ? { ok: false as const, error: 'binary messages are not part of the protocol' } : parseClientMessage(data.toString());
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
        live.addViewer(viewer);
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
      this.#open.delete(ws);
      live.off('ended', onEnded);
      live.removeViewer(viewerId);
    });
  }

  #heartbeat(): void {
    for (const ws of this.#open) {
      if (!this.#alive.has(ws)) {
        ws.terminate();
        continue;
      }
      this.#alive.delete(ws);
      ws.ping();
    }
  }
}
