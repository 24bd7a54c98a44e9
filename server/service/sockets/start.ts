import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { BadRequest, ValidationFailed } from '#shared/errors.ts';
import type { Instance } from '#service/browser/fleet.ts';
import { authenticate } from '#service/keys/auth.ts';
import { PROXY_HEADER, parseUpstreamProxy } from '#shared/protocol/upstream-proxy.ts';
import { checkStartOptions, START_CLOSE, START_MAX_CLIENT_MESSAGE_BYTES, type EndReason } from '#shared/protocol/start.ts';
import { rejectUpgrade } from '../../http/respond.ts';
import type { ServiceContext } from '../context.ts';

/**
 * WebSocket /start (docs/api.md, section 1): authorise and provision before the handshake, so every refusal is
 * a plain HTTP status; then send the id and hold the instance exactly as long as the socket.
 */
export class StartSockets {
  readonly #ctx: ServiceContext;
  readonly #wss = new WebSocketServer({ noServer: true, maxPayload: START_MAX_CLIENT_MESSAGE_BYTES, perMessageDeflate: false });
  readonly #open = new Map<string, { ws: WebSocket; instance: Instance }>();
  readonly #pinger: NodeJS.Timeout;
  readonly #alive = new WeakSet<WebSocket>();

  constructor(ctx: ServiceContext) {
    this.#ctx = ctx;
    ctx.fleet.on('ended', (instance, reason) => this.#onEnded(instance, reason));
    this.#pinger = setInterval(() => void this.#heartbeat(), ctx.config.browser.pingIntervalMs);
    this.#pinger.unref();
  }

  async handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    let instance: Instance;
    // A client that goes away while it waits for room (`queue=`) leaves the queue at once.
    const gone = new AbortController();
    const left = () => gone.abort(new Error('the client went away while waiting for room'));
    socket.once('close', left);
    socket.once('end', left);
    try {
      assertWebSocketHandshake(req);
      const key = await authenticate(this.#ctx.keys, req.headers.authorization);
      const asked = checkStartOptions(
        new URL(req.url ?? '/', 'http://localhost').searchParams,
        this.#ctx.config.browser.maxLifetimeMs / 1000,
      );
      if (!asked.ok) throw new ValidationFailed(asked.issues, 'the /start options break the rules');
      const proxy = parseUpstreamProxy(req.headers[PROXY_HEADER]);
      if (!proxy.ok) throw new ValidationFailed(proxy.issues, 'the X-Browser-Proxy header breaks the rules');
      const { lifetimeSeconds, queueSeconds, profile: asksProfile } = asked.options;
      // A profile in use by another persisting browser is a 409 here, before anything starts; its
      // bytes are read only once the start has its room (a client gone meanwhile stops the read).
      const profile = asksProfile && (await this.#ctx.profiles.use(key.id, asksProfile.name, asksProfile.persist, { signal: gone.signal }));
      instance = await this.#ctx.fleet
        .provision(key, {
          upstream: proxy.proxy,
          signal: gone.signal,
          ...(lifetimeSeconds ? { lifetimeMs: lifetimeSeconds * 1000 } : {}),
          ...(queueSeconds ? { queueMs: queueSeconds * 1000 } : {}),
          ...(profile ? { profile } : {}),
        })
        .catch(async (err: unknown) => {
          await profile?.release();
          throw err;
        });
    } catch (err) {
      // A client that gave up while waiting in the queue left nothing to answer, nor behind.
      if (gone.signal.aborted) return;
      const status = rejectUpgrade(socket, err);
      this.#ctx.metrics.startRefused.inc({ status: String(status) });
      return;
    }
    // A client that went away while its browser was being provisioned leaves nothing behind: its
    // 'close' came before anyone listened. From here on, the connection's end is the instance's end.
    if (socket.destroyed) {
      void this.#ctx.fleet.end(instance.id, 'client-closed');
      return;
    }
    socket.off('close', left);
    socket.off('end', left);
    socket.once('close', () => void this.#ctx.fleet.end(instance.id, 'client-closed'));
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#hold(ws, instance));
  }

  /** Close every socket whose instance ended on the service's side; waits at most `ms`. */
  async drain(ms: number): Promise<void> {
    clearInterval(this.#pinger);
    const closing = [...this.#open.values()].map(
      ({ ws }) =>
        new Promise<void>((resolve) => {
          if (ws.readyState === ws.CLOSED) return resolve();
          ws.once('close', () => resolve());
        }),
    );
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
    await Promise.race([Promise.all(closing), timeout]);
    for (const { ws } of this.#open.values()) ws.terminate();
  }

  #hold(ws: WebSocket, instance: Instance): void {
    this.#open.set(instance.id, { ws, instance });
    this.#alive.add(ws);
    ws.on('pong', () => this.#alive.add(ws));
    // Client messages carry nothing in this protocol; reading and dropping them keeps the socket healthy.
    ws.on('message', () => {});
    ws.on('error', (err) => this.#ctx.log.debug({ err, browserId: instance.id }, '/start socket error'));
    ws.once('close', () => {
      this.#open.delete(instance.id);
      void this.#ctx.fleet.end(instance.id, 'client-closed');
    });
    ws.send(instance.id);
  }

  #onEnded(instance: Instance, reason: EndReason): void {
    const ws = this.#open.get(instance.id)?.ws;
    if (!ws) return;
    if (reason === 'client-closed' || reason === 'client-unresponsive') return;
    const { code, reason: text } = START_CLOSE[reason];
    ws.close(code, text);
  }

  /** Ping every holder; end instances whose peer went quiet or whose key was revoked meanwhile. */
  async #heartbeat(): Promise<void> {
    const revoked = new Set<string>();
    await Promise.all(
      [...this.#ctx.fleet.keysInUse()].map(async (keyId) => {
        const key = await this.#ctx.keys.get(keyId).catch((err: Error) => {
          this.#ctx.log.error({ err, keyId }, 'could not check whether a key was revoked');
          return null; // unknown this time: not revoked
        });
        if (key === undefined || key?.revokedAt) revoked.add(keyId);
      }),
    );
    for (const [id, { ws, instance }] of this.#open) {
      if (revoked.has(instance.keyId)) {
        void this.#ctx.fleet.end(id, 'keyRevoked');
      } else if (!this.#alive.has(ws)) {
        this.#ctx.log.info({ browserId: id }, '/start peer stopped answering pings');
        ws.terminate();
        void this.#ctx.fleet.end(id, 'client-unresponsive');
      } else {
        this.#alive.delete(ws);
        ws.ping();
      }
    }
  }
}

function assertWebSocketHandshake(req: IncomingMessage): void {
  if (req.method !== 'GET') throw new BadRequest('a WebSocket handshake is a GET request');
  if (req.headers.upgrade?.toLowerCase() !== 'websocket') throw new BadRequest('expected Upgrade: websocket');
  const key = req.headers['sec-websocket-key'];
  if (!key || !/^[+/0-9A-Za-z]{22}==$/.test(key)) throw new BadRequest('missing or invalid Sec-WebSocket-Key');
  if (req.headers['sec-websocket-version'] !== '13') throw new BadRequest('Sec-WebSocket-Version must be 13');
}
