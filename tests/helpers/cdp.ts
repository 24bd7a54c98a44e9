import WebSocket from 'ws';

type Reply = { id: number; result?: Record<string, unknown>; error?: { message: string }; sessionId?: string };

/** A minimal raw CDP client, as a user without a client library would write one. */
export class RawCdp {
  readonly socket: WebSocket;
  #next = 0;
  readonly #pending = new Map<number, (r: Reply) => void>();
  readonly events: { method: string; params: Record<string, unknown>; sessionId?: string }[] = [];

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data) => {
      const msg = JSON.parse(data.toString()) as Reply & { method?: string; params?: Record<string, unknown> };
      if (msg.id !== undefined) this.#pending.get(msg.id)?.(msg);
      else if (msg.method) this.events.push({ method: msg.method, params: msg.params ?? {}, sessionId: msg.sessionId });
    });
  }

  static connect(url: string, headers: Record<string, string>): Promise<RawCdp> {
    const socket = new WebSocket(url, { headers, maxPayload: 512 * 1024 * 1024 });
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new RawCdp(socket)));
      socket.once('unexpected-response', (_req, res) =>
        reject(Object.assign(new Error(`CDP upgrade answered ${res.statusCode}`), { status: res.statusCode })),
      );
      socket.once('error', reject);
    });
  }

  send<T = Record<string, unknown>>(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<T> {
    const id = ++this.#next;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, (r) => {
        this.#pending.delete(id);
        if (r.error) reject(new Error(`${method}: ${r.error.message}`));
        else resolve(r.result as T);
      });
      this.socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.readyState === WebSocket.CLOSED) return resolve();
      this.socket.once('close', () => resolve());
      this.socket.close();
    });
  }
}
