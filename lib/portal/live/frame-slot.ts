/** Anything that sends binary messages and says when each has been handed to the network. */
export type FrameTransport = { send(data: Uint8Array, done: (err?: Error) => void): void };

/**
 * One viewer's outgoing frames: at most one in flight and one waiting. A newer frame replaces the
 * waiting one, so a slow viewer drops frames instead of growing memory or holding up the others.
 */
export class FrameSlot {
  readonly #transport: FrameTransport;
  #inFlight = false;
  #waiting: Uint8Array | null = null;
  #closed = false;
  sent = 0;
  dropped = 0;

  constructor(transport: FrameTransport) {
    this.#transport = transport;
  }

  /** Bytes this slot holds beyond the one frame in flight. */
  get waitingBytes(): number {
    return this.#waiting?.byteLength ?? 0;
  }

  offer(frame: Uint8Array): void {
    if (this.#closed) return;
    if (this.#inFlight) {
      if (this.#waiting) this.dropped++;
      this.#waiting = frame;
      return;
    }
    this.#send(frame);
  }

  close(): void {
    this.#closed = true;
    this.#waiting = null;
  }

  #send(frame: Uint8Array): void {
    this.#inFlight = true;
    this.sent++;
    this.#transport.send(frame, (err) => {
      this.#inFlight = false;
      if (err) return this.close();
      const next = this.#waiting;
      this.#waiting = null;
      if (next && !this.#closed) this.#send(next);
    });
  }
}
