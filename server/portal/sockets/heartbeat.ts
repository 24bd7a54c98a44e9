import type { WebSocket } from 'ws';

/** Pings every socket it holds; one that has not answered the previous ping is dropped. */
export class Heartbeat {
  readonly #sockets = new Set<WebSocket>();
  readonly #alive = new WeakSet<WebSocket>();
  readonly #timer: NodeJS.Timeout;

  constructor(intervalMs: number) {
    this.#timer = setInterval(() => this.#beat(), intervalMs);
    this.#timer.unref();
  }

  get sockets(): ReadonlySet<WebSocket> {
    return this.#sockets;
  }

  add(ws: WebSocket): void {
    this.#sockets.add(ws);
    this.#alive.add(ws);
    ws.on('pong', () => this.#alive.add(ws));
    ws.once('close', () => this.#sockets.delete(ws));
  }

  /** Stop pinging and close every socket with `code`. */
  closeAll(code: number, reason: string): void {
    clearInterval(this.#timer);
    for (const ws of this.#sockets) ws.close(code, reason);
  }

  #beat(): void {
    for (const ws of this.#sockets) {
      if (!this.#alive.has(ws)) {
        ws.terminate();
        continue;
      }
      this.#alive.delete(ws);
      ws.ping();
    }
  }
}
