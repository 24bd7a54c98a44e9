import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { judge } from '#service/browser/cdp-policy.ts';
import type { MuxClient, MuxTarget } from '#service/browser/cdp-mux.ts';
import { parseDevtoolsPath } from '#service/browser/devtools-address.ts';
import type { Instance } from '#service/browser/fleet.ts';
import { NotFound } from '#shared/errors.ts';
import {
  DEVTOOLS_CLOSE,
  DEVTOOLS_MAX_CLIENT_MESSAGE_BYTES,
  isMalformed,
  parseClientMessage,
  refusalReply,
} from '#service/protocol/devtools.ts';
import { rejectUpgrade } from '../../http/respond.ts';
import type { ServiceContext } from '../context.ts';
import { requireDevtoolsInstance } from '../instance.ts';

/** A client socket holds this much unsent data before the instance's pipe stops being read. */
const HIGH_WATER = 16 * 1024 * 1024;

/**
 * WebSocket to webSocketDebuggerUrl (docs/api.md, section 3): authorise, attach a session of the client's own to
 * the instance's browser (or page), then relay: every client message is parsed, judged by the CDP
 * policy and sent on as re-serialised JSON; Chromium's messages for the client's sessions go back
 * as they came. The `ws` library reassembles fragments and refuses stray continuation frames.
 */
export class DevtoolsSockets {
  readonly #ctx: ServiceContext;
  readonly #wss = new WebSocketServer({
    noServer: true,
    maxPayload: DEVTOOLS_MAX_CLIENT_MESSAGE_BYTES,
    perMessageDeflate: false,
    skipUTF8Validation: false,
  });
  readonly #byInstance = new Map<string, Set<WebSocket>>();
  /** Byte counters, bound to their label once: they are bumped for every message. */
  readonly #bytesToBrowser;
  readonly #bytesToClient;

  constructor(ctx: ServiceContext) {
    this.#ctx = ctx;
    this.#bytesToBrowser = ctx.metrics.proxyBytes.labels({ direction: 'to_browser' });
    this.#bytesToClient = ctx.metrics.proxyBytes.labels({ direction: 'to_client' });
    ctx.fleet.on('ended', (instance) => this.#cut(instance));
  }

  async handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): Promise<void> {
    let instance: Instance;
    let target: MuxTarget;
    try {
      const path = parseDevtoolsPath(url.pathname);
      if (!path) throw new NotFound('no such DevTools endpoint; use the webSocketDebuggerUrl from /json/version');
      instance = await requireDevtoolsInstance(this.#ctx, req.headers, url);
      if (path.kind === 'browser' && path.id !== instance.browser.guid)
        throw new NotFound('that DevTools address does not belong to this browser');
      target = path.kind === 'browser' ? { kind: 'browser' } : { kind: 'page', targetId: path.id };
    } catch (err) {
      rejectUpgrade(socket, err);
      return;
    }
    // The client's own session exists before the handshake completes, so a gone target is a plain 404.
    let ws: WebSocket | null = null;
    const early: Buffer[] = [];
    let client: MuxClient;
    try {
      client = await instance.browser.mux.open(target, {
        deliver: (message) => (ws ? this.#deliver(ws, client, message) : early.push(message)),
        end: (reason) => ws?.close(reason === 'its target was closed' ? DEVTOOLS_CLOSE.targetGone.code : DEVTOOLS_CLOSE.ended.code, reason),
      });
    } catch {
      rejectUpgrade(socket, new NotFound(target.kind === 'page' ? 'no such page target in this browser' : 'the browser is gone'));
      return;
    }
    if (socket.destroyed) {
      client.close();
      return;
    }
    this.#wss.handleUpgrade(req, socket, head, (opened) => {
      ws = opened;
      this.#relay(opened, client, instance);
      for (const message of early.splice(0)) this.#deliver(opened, client, message);
    });
  }

  #relay(ws: WebSocket, client: MuxClient, instance: Instance): void {
    const sockets = this.#byInstance.get(instance.id) ?? new Set();
    sockets.add(ws);
    this.#byInstance.set(instance.id, sockets);
    this.#ctx.metrics.proxyConnections.inc();
    const folders = instance.browser.policyFolders;
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (isBinary) return ws.close(DEVTOOLS_CLOSE.binary.code, DEVTOOLS_CLOSE.binary.reason);
      const bytes = data as Buffer;
      this.#bytesToBrowser.inc(bytes.length);
      const message = parseClientMessage(bytes.toString('utf8'));
      if (isMalformed(message))
        return ws.close(DEVTOOLS_CLOSE.malformed.code, `${DEVTOOLS_CLOSE.malformed.reason} (${message.reason})`.slice(0, 120));
      const verdict = judge(message, folders);
      if (verdict.action === 'refuse') {
        this.#ctx.log.info({ browserId: instance.id, method: message.method, reason: verdict.reason }, 'CDP command refused');
        return ws.send(refusalReply(message, verdict.reason));
      }
      client.send(verdict.action === 'rewrite' ? verdict.message : message);
    });
    ws.on('error', () => ws.terminate());
    ws.once('close', () => {
      client.close();
      this.#ctx.metrics.proxyConnections.dec();
      sockets.delete(ws);
      if (sockets.size === 0 && this.#byInstance.get(instance.id) === sockets) this.#byInstance.delete(instance.id);
    });
  }

  #deliver(ws: WebSocket, client: MuxClient, message: Buffer): void {
    if (ws.readyState !== ws.OPEN) return;
    this.#bytesToClient.inc(message.length);
    if (ws.bufferedAmount < HIGH_WATER) return ws.send(message, { binary: false });
    // A slow reader: stop reading the instance's pipe until this socket has sent what it holds.
    client.hold();
    ws.send(message, { binary: false }, () => {
      if (ws.bufferedAmount < HIGH_WATER / 2) client.release();
    });
  }

  #cut(instance: Instance): void {
    for (const ws of this.#byInstance.get(instance.id) ?? []) ws.close(DEVTOOLS_CLOSE.ended.code, DEVTOOLS_CLOSE.ended.reason);
    this.#byInstance.delete(instance.id);
  }
}
