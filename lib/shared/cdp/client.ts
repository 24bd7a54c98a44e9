import { EventEmitter } from 'node:events';
import type { ProtocolMapping } from 'devtools-protocol/types/protocol-mapping.js';
import WebSocket from 'ws';

export type Commands = ProtocolMapping.Commands;
export type Events = ProtocolMapping.Events;
export type Method = keyof Commands;
export type Params<M extends Method> = Commands[M]['paramsType'] extends [infer P]
  ? P
  : Commands[M]['paramsType'] extends [(infer P)?]
    ? P | undefined
    : undefined;
export type Result<M extends Method> = Commands[M]['returnType'];
export type EventName = keyof Events;
export type EventParams<E extends EventName> = Events[E][0];

export class CdpError extends Error {
  readonly method: string;
  readonly code: number | undefined;
  constructor(method: string, message: string, code?: number) {
    super(`${method}: ${message}`);
    this.name = 'CdpError';
    this.method = method;
    this.code = code;
  }
}

type Pending = { method: string; resolve: (v: unknown) => void; reject: (e: Error) => void };
type Incoming = {
  id?: number;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { message: string; code?: number };
  sessionId?: string;
};

/** Commands and events of one CDP session (the browser's, or a flattened target session). */
export class CdpSession {
  readonly #connection: CdpConnection;
  readonly sessionId: string | undefined;
  readonly #events = new EventEmitter();

  constructor(connection: CdpConnection, sessionId: string | undefined) {
    this.#connection = connection;
    this.sessionId = sessionId;
    this.#events.setMaxListeners(100);
  }

  /** Send a command and await its reply. */
  send<M extends Method>(method: M, params?: Params<M>): Promise<Result<M>> {
    return this.#connection.call(method, params, this.sessionId) as Promise<Result<M>>;
  }

  /** Send a command without waiting for its reply (input events); failures go to `onError`. */
  post<M extends Method>(method: M, params?: Params<M>, onError?: (err: Error) => void): void {
    this.#connection.call(method, params, this.sessionId).catch((err: Error) => onError?.(err));
  }

  on<E extends EventName>(event: E, listener: (params: EventParams<E>) => void): () => void {
    this.#events.on(event, listener as (p: unknown) => void);
    return () => this.#events.off(event, listener as (p: unknown) => void);
  }

  /** @internal */
  dispatch(method: string, params: unknown): void {
    this.#events.emit(method, params);
  }
}

/**
 * A typed Chrome DevTools Protocol connection over one WebSocket, with flattened target sessions.
 * Commands are typed from the protocol's own definitions (devtools-protocol).
 */
export class CdpConnection extends EventEmitter<{ close: [code: number, reason: string] }> {
  readonly #socket: WebSocket;
  readonly #pending = new Map<number, Pending>();
  readonly #sessions = new Map<string, CdpSession>();
  readonly browser: CdpSession;
  #nextId = 0;
  #closed = false;

  private constructor(socket: WebSocket) {
    super();
    this.#socket = socket;
    this.browser = new CdpSession(this, undefined);
    socket.on('message', (data) => this.#receive(data.toString()));
    socket.once('close', (code, reason) => {
      this.#closed = true;
      for (const p of this.#pending.values()) p.reject(new CdpError(p.method, 'connection closed'));
      this.#pending.clear();
      this.emit('close', code, reason.toString());
    });
    socket.on('error', () => {});
  }

  static connect(url: string, headers: Record<string, string> = {}, timeoutMs = 10_000): Promise<CdpConnection> {
    const socket = new WebSocket(url, { headers, maxPayload: 256 * 1024 * 1024, perMessageDeflate: false, handshakeTimeout: timeoutMs });
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new CdpConnection(socket)));
      socket.once('unexpected-response', (_req, res) => reject(new Error(`CDP connection refused with ${res.statusCode}`)));
      socket.once('error', reject);
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The session object for a flattened sessionId (from Target.attachToTarget). */
  session(sessionId: string): CdpSession {
    let s = this.#sessions.get(sessionId);
    if (!s) {
      s = new CdpSession(this, sessionId);
      this.#sessions.set(sessionId, s);
    }
    return s;
  }

  dropSession(sessionId: string): void {
    this.#sessions.delete(sessionId);
  }

  /** @internal Use CdpSession.send. */
  call(method: string, params: unknown, sessionId: string | undefined): Promise<unknown> {
    if (this.#closed) return Promise.reject(new CdpError(method, 'connection closed'));
    const id = ++this.#nextId;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { method, resolve, reject });
      this.#socket.send(JSON.stringify(sessionId ? { id, method, params: params ?? {}, sessionId } : { id, method, params: params ?? {} }));
    });
  }

  close(): void {
    this.#socket.close();
  }

  #receive(text: string): void {
    let msg: Incoming;
    try {
      msg = JSON.parse(text) as Incoming;
    } catch {
      return;
    }
    if (typeof msg.id === 'number') {
      const p = this.#pending.get(msg.id);
      if (!p) return;
      this.#pending.delete(msg.id);
      if (msg.error) p.reject(new CdpError(p.method, msg.error.message, msg.error.code));
      else p.resolve(msg.result ?? {});
      return;
    }
    if (typeof msg.method !== 'string') return;
    const target = msg.sessionId ? this.#sessions.get(msg.sessionId) : this.browser;
    target?.dispatch(msg.method, msg.params ?? {});
    if (msg.method === 'Target.detachedFromTarget') {
      const detached = (msg.params as { sessionId?: string }).sessionId;
      if (detached) this.#sessions.delete(detached);
    }
  }
}
