import {
  LIVE_CLOSE,
  LIVE_PROTOCOL_VERSION,
  decodeFrame,
  type ClientMessageInput,
  type DialogInfo,
  type FrameMeta,
  type LiveErrorCode,
  type ServerMessage,
} from '#portal/protocol/live.ts';
import { openPortalSocket, reconnectDelayMs } from './socket.ts';

export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'refused';
export type LiveState = Extract<ServerMessage, { type: 'state' }>;

export type LiveHandlers = {
  onStatus(status: LiveStatus, detail?: string): void;
  onWelcome(viewerId: string): void;
  onState(state: LiveState): void;
  onFrame(meta: FrameMeta, bitmap: ImageBitmap): void;
  onDialog(dialog: DialogInfo | null): void;
  onClipboard(text: string): void;
  /** The viewer in control said no to this viewer's question. */
  onDeclined(by: string): void;
  /** A team owner or admin, named, took control from this viewer without asking it. */
  onTaken(by: string): void;
  onError(message: string, code: LiveErrorCode): void;
  /** A typed address was opened over http because https could not connect. */
  onInsecure(url: string): void;
  onRtt(ms: number): void;
  /** Whether the instance still exists, asked when reconnecting keeps failing (a refused handshake has no close code). */
  stillThere(): Promise<boolean>;
};

/** Close codes after which reconnecting cannot help. */
const FINAL: ReadonlySet<number> = new Set([
  LIVE_CLOSE.ended.code,
  LIVE_CLOSE.forbidden.code,
  LIVE_CLOSE.notFound.code,
  LIVE_CLOSE.unauthenticated.code,
  LIVE_CLOSE.unsupportedVersion.code,
  LIVE_CLOSE.abuse.code,
  LIVE_CLOSE.linkRevoked.code,
  LIVE_CLOSE.linkExpired.code,
]);

/**
 * The page's side of the live-view socket: says hello, decodes frames off the main thread
 * (createImageBitmap), measures the round trip, and reconnects with backoff when the connection
 * drops for a reason that a retry can fix.
 */
export class LiveConnection {
  /** The socket's path: `/live/<instanceId>` for a member, `/embed/<token>/socket` for a shared link. */
  readonly #path: string;
  readonly #h: LiveHandlers;
  readonly #viewport: () => { width: number; height: number };
  readonly #takeControl: boolean;
  #ws: WebSocket | null = null;
  #attempt = 0;
  #closed = false;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #pinger: ReturnType<typeof setInterval> | null = null;
  #decoding = false;
  #pendingFrame: ArrayBuffer | null = null;

  constructor(path: string, handlers: LiveHandlers, viewport: () => { width: number; height: number }, opts: { takeControl: boolean }) {
    this.#path = path;
    this.#h = handlers;
    this.#viewport = viewport;
    this.#takeControl = opts.takeControl;
  }

  connect(): void {
    if (this.#closed) return;
    this.#h.onStatus(this.#attempt === 0 ? 'connecting' : 'reconnecting');
    const ws = openPortalSocket(this.#path);
    this.#ws = ws;
    ws.onopen = () => {
      this.#attempt = 0;
      this.send({ type: 'hello', v: LIVE_PROTOCOL_VERSION, viewport: this.#viewport(), takeControl: this.#takeControl });
      this.#pinger = setInterval(() => this.send({ type: 'ping', t: performance.now() }), 2000);
    };
    ws.onmessage = (event) => {
      if (typeof event.data === 'string') this.#onText(event.data);
      else this.#onFrame(event.data as ArrayBuffer);
    };
    ws.onclose = (event) => {
      if (this.#pinger) clearInterval(this.#pinger);
      this.#ws = null;
      if (this.#closed) return;
      if (event.code === LIVE_CLOSE.ended.code) return this.#h.onStatus('ended');
      if (FINAL.has(event.code)) return this.#h.onStatus('refused', event.reason);
      const delay = reconnectDelayMs(this.#attempt++);
      this.#h.onStatus('reconnecting', `retrying in ${Math.round(delay / 1000)} s`);
      this.#timer = setTimeout(() => void this.#retry(), delay);
    };
  }

  async #retry(): Promise<void> {
    if (this.#attempt >= 3 && !(await this.#h.stillThere().catch(() => true))) {
      this.#closed = true;
      this.#h.onStatus('ended', 'This browser is no longer running.');
      return;
    }
    this.connect();
  }

  send(message: ClientMessageInput): void {
    if (this.#ws?.readyState === WebSocket.OPEN) this.#ws.send(JSON.stringify(message));
  }

  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#pinger) clearInterval(this.#pinger);
    this.#ws?.close(LIVE_CLOSE.normal.code, LIVE_CLOSE.normal.reason);
  }

  #onText(text: string): void {
    let msg: ServerMessage;
    try {
      msg = JSON.parse(text) as ServerMessage;
    } catch {
      return;
    }
    switch (msg.type) {
      case 'welcome':
        this.#h.onStatus('live');
        return this.#h.onWelcome(msg.viewerId);
      case 'state':
        return this.#h.onState(msg);
      case 'dialog':
        return this.#h.onDialog(msg.dialog);
      case 'clipboard':
        return this.#h.onClipboard(msg.text);
      case 'declined':
        return this.#h.onDeclined(msg.by);
      case 'taken':
        return this.#h.onTaken(msg.by);
      case 'pong':
        return this.#h.onRtt(performance.now() - msg.t);
      case 'insecure':
        return this.#h.onInsecure(msg.url);
      case 'error':
        return this.#h.onError(msg.message, msg.code);
      case 'ended':
        return this.#h.onStatus('ended', msg.message);
    }
  }

  /** Decode one frame at a time; a frame that arrives meanwhile replaces the one waiting. */
  #onFrame(data: ArrayBuffer): void {
    if (this.#decoding) {
      this.#pendingFrame = data;
      return;
    }
    this.#decoding = true;
    const { meta, jpeg } = decodeFrame(data);
    createImageBitmap(new Blob([jpeg as BlobPart], { type: 'image/jpeg' }))
      .then((bitmap) => this.#h.onFrame(meta, bitmap))
      .catch(() => {})
      .finally(() => {
        this.#decoding = false;
        const next = this.#pendingFrame;
        this.#pendingFrame = null;
        if (next) this.#onFrame(next);
      });
  }
}
