import { decodeThumbnail, type DashboardServerMessage, type DashboardSnapshot } from '#portal/protocol/dashboard.ts';
import { openPortalSocket, reconnectDelayMs } from './socket.ts';

export type PushStatus = 'connecting' | 'live' | 'reconnecting' | 'closed';

/** The page's side of `/events/<teamId>`: snapshots and thumbnails, reconnecting with backoff. */
export class DashboardConnection {
  readonly #teamId: string;
  readonly #onSnapshot: (s: DashboardSnapshot) => void;
  readonly #onThumbnail: (instanceId: string, url: string) => void;
  readonly #onStatus: (s: PushStatus) => void;
  #ws: WebSocket | null = null;
  #attempt = 0;
  #closed = false;
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    teamId: string,
    handlers: {
      onSnapshot: (s: DashboardSnapshot) => void;
      onThumbnail: (id: string, url: string) => void;
      onStatus: (s: PushStatus) => void;
    },
  ) {
    this.#teamId = teamId;
    this.#onSnapshot = handlers.onSnapshot;
    this.#onThumbnail = handlers.onThumbnail;
    this.#onStatus = handlers.onStatus;
  }

  connect(): void {
    if (this.#closed) return;
    this.#onStatus(this.#attempt === 0 ? 'connecting' : 'reconnecting');
    const ws = openPortalSocket(`/events/${this.#teamId}`);
    this.#ws = ws;
    ws.onmessage = (event) => {
      if (typeof event.data !== 'string') {
        const { meta, jpeg } = decodeThumbnail(event.data as ArrayBuffer);
        this.#onThumbnail(meta.instanceId, URL.createObjectURL(new Blob([jpeg as BlobPart], { type: 'image/jpeg' })));
        return;
      }
      const msg = JSON.parse(event.data) as DashboardServerMessage;
      if (msg.type === 'snapshot') {
        this.#attempt = 0;
        this.#onStatus('live');
        this.#onSnapshot(msg);
      }
    };
    ws.onclose = (event) => {
      this.#ws = null;
      if (this.#closed) return;
      if (event.code >= 4400 && event.code < 4500) {
        this.#onStatus('closed');
        return;
      }
      const delay = reconnectDelayMs(this.#attempt++);
      this.#onStatus('reconnecting');
      this.#timer = setTimeout(() => this.connect(), delay);
    };
  }

  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#ws?.close(1000);
  }
}
