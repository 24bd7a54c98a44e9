import { EventEmitter } from 'node:events';
import type { CdpPipe } from '#shared/cdp/pipe.ts';
import type { ClientMessage } from '../protocol/devtools.ts';

/**
 * Many CDP clients on one Chromium pipe, each as if it had a DevTools connection of its own.
 *
 * Chromium's pipe is a single connection, but `Target.attachToBrowserTarget` gives each client a
 * browser session with its own target handler (its own discovery and auto-attach). A client's
 * messages without a session id go to its root session; every session that root attaches (by
 * command or by auto-attach, at any depth) belongs to that client, and Chromium's messages are
 * routed by the session id it appends to them, so clients never see each other's sessions and
 * cannot address them. The service keeps the pipe's own root for itself.
 */
export type MuxTarget = { kind: 'browser' } | { kind: 'page'; targetId: string };

export type MuxSink = {
  /** One message from Chromium for this client, as bytes of JSON text. */
  deliver(message: Buffer): void;
  /** The browser side of this client is gone (browser exited, or its session was detached). */
  end(reason: string): void;
};

type Pending = { method: string; sessionId: string | null; resolve: (value: unknown) => void; reject: (err: Error) => void };
type Parsed = {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message?: string };
  sessionId?: string;
};

/** Methods whose reply names a new session of the caller. */
const ATTACHING = new Set(['Target.attachToTarget', 'Target.attachToBrowserTarget']);
const SESSION_TAIL = Buffer.from(',"sessionId":"');
const CLOSE_BRACE = Buffer.from('}');

export class CdpError extends Error {}

export class CdpMux {
  readonly #pipe: CdpPipe;
  readonly #pending = new Map<number, Pending>();
  /** Every session a client holds, to its owner. */
  readonly #owners = new Map<string, MuxClient>();
  readonly #clients = new Set<MuxClient>();
  /** Events on the pipe's own root session, for the service (its target discovery). */
  readonly rootEvents = new EventEmitter<{ event: [method: string, params: Record<string, unknown>] }>();
  /** Events on sessions the service attached for itself (its recorder), by session id. */
  readonly serviceEvents = new EventEmitter<{ event: [sessionId: string, method: string, params: Record<string, unknown>] }>();
  #nextId = 1;

  constructor(pipe: CdpPipe) {
    this.#pipe = pipe;
    pipe.on('message', (m) => this.#route(m));
    pipe.once('close', () => this.#closed());
  }

  get clients(): number {
    return this.#clients.size;
  }

  /** A command of the service's own, on the pipe's root or a session the service attached. */
  call<T = Record<string, unknown>>(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<T> {
    if (this.#pipe.closed) return Promise.reject(new CdpError(`${method}: the browser is gone`));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { method, sessionId: sessionId ?? null, resolve: resolve as (v: unknown) => void, reject });
      this.#pipe.send(JSON.stringify(sessionId ? { id, method, params, sessionId } : { id, method, params }));
    });
  }

  /** Connect a client to the whole browser or to one page target. Throws CdpError if the target is gone. */
  async open(target: MuxTarget, sink: MuxSink): Promise<MuxClient> {
    const { sessionId } =
      target.kind === 'browser'
        ? await this.call<{ sessionId: string }>('Target.attachToBrowserTarget')
        : await this.call<{ sessionId: string }>('Target.attachToTarget', { targetId: target.targetId, flatten: true });
    const client = new MuxClient(this, this.#pipe, sessionId, sink);
    this.#clients.add(client);
    this.#owners.set(sessionId, client);
    return client;
  }

  /** @internal A client's session came or went. */
  own(sessionId: string, client: MuxClient | null): void {
    if (client) this.#owners.set(sessionId, client);
    else this.#owners.delete(sessionId);
  }

  /** @internal */
  detach(client: MuxClient): void {
    if (!this.#clients.delete(client)) return;
    for (const [session, owner] of this.#owners) if (owner === client) this.#owners.delete(session);
    if (!this.#pipe.closed) void this.call('Target.detachFromTarget', { sessionId: client.root }).catch(() => {});
  }

  #route(message: Buffer): void {
    const session = tailSessionId(message);
    const client = session ? this.#owners.get(session) : undefined;
    if (client && session) return client.receive(message, session);
    let parsed: Parsed;
    try {
      parsed = JSON.parse(message.toString('utf8')) as Parsed;
    } catch {
      return; // Chromium writes JSON; nothing else can be routed
    }
    const owner = parsed.sessionId ? this.#owners.get(parsed.sessionId) : undefined;
    if (owner) return owner.receive(message, parsed.sessionId as string, parsed);
    if (typeof parsed.id === 'number') {
      const pending = this.#pending.get(parsed.id);
      // Matched on the session too: a late reply to a departed client's command may carry the same id.
      if (!pending || pending.sessionId !== (parsed.sessionId ?? null)) return;
      this.#pending.delete(parsed.id);
      if (parsed.error) pending.reject(new CdpError(`${pending.method}: ${parsed.error.message ?? 'failed'}`));
      else pending.resolve(parsed.result ?? {});
      return;
    }
    if (parsed.method === 'Target.detachedFromTarget' && !parsed.sessionId) {
      // A client's root session was detached under it (its target closed, or the browser is closing).
      const gone = this.#owners.get(String(parsed.params?.sessionId));
      if (gone && gone.root === parsed.params?.sessionId) gone.end('its target was closed');
    }
    if (parsed.method && !parsed.sessionId) this.rootEvents.emit('event', parsed.method, parsed.params ?? {});
    else if (parsed.method && parsed.sessionId) this.serviceEvents.emit('event', parsed.sessionId, parsed.method, parsed.params ?? {});
  }

  #closed(): void {
    for (const pending of this.#pending.values()) pending.reject(new CdpError(`${pending.method}: the browser is gone`));
    this.#pending.clear();
    for (const client of [...this.#clients]) client.end('the browser is gone');
  }
}

/** One client's view of the browser: its root session and the sessions it attached since. */
export class MuxClient {
  readonly root: string;
  readonly #mux: CdpMux;
  readonly #pipe: CdpPipe;
  readonly #sink: MuxSink;
  /** Sessions this client holds (root included), each with the session that attached it. */
  readonly #sessions = new Map<string, string | null>();
  /** Attach commands awaiting their reply: "session id|command id". */
  readonly #attaching = new Set<string>();
  #ended = false;
  #held = false;

  constructor(mux: CdpMux, pipe: CdpPipe, root: string, sink: MuxSink) {
    this.#mux = mux;
    this.#pipe = pipe;
    this.root = root;
    this.#sink = sink;
    this.#sessions.set(root, null);
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Send a judged message. A session the client does not hold is answered as Chromium would. */
  send(message: ClientMessage): void {
    if (this.#ended) return;
    const session = message.sessionId ?? this.root;
    if (!this.#sessions.has(session)) {
      this.#sink.deliver(
        Buffer.from(
          JSON.stringify({
            id: message.id,
            error: { code: -32001, message: 'Session with given id not found.' },
            sessionId: message.sessionId,
          }),
        ),
      );
      return;
    }
    if (ATTACHING.has(message.method)) this.#attaching.add(`${session}|${message.id}`);
    this.#pipe.send(JSON.stringify({ ...message, sessionId: session }));
  }

  /** Stop reading from Chromium until `release()`, while this client's socket is congested. */
  hold(): void {
    if (this.#held) return;
    this.#held = true;
    this.#pipe.pause();
  }

  release(): void {
    if (!this.#held) return;
    this.#held = false;
    this.#pipe.resume();
  }

  /** The client left: detach its sessions (pages and contexts it created stay, as with a DevTools connection of its own). */
  close(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.release();
    this.#mux.detach(this);
  }

  /** @internal The browser side ended. */
  end(reason: string): void {
    if (this.#ended) return;
    this.close();
    this.#sink.end(reason);
  }

  /** @internal A message of one of this client's sessions. */
  receive(message: Buffer, session: string, parsed?: Parsed): void {
    if (this.#ended) return;
    this.#track(message, session, parsed);
    // The root session is the client's connection itself: Chromium's session id comes off.
    if (session !== this.root) this.#sink.deliver(message);
    else this.#sink.deliver(parsed ? withoutSession(parsed) : stripTailSession(message));
  }

  #track(message: Buffer, session: string, parsed: Parsed | undefined): void {
    const head = message.subarray(0, 64).toString('latin1');
    if (head.startsWith('{"method":"Target.attachedToTarget"') || head.includes('"method":"Target.attachedToTarget"')) {
      const p = parsed ?? parse(message);
      const child = p.params?.sessionId;
      if (typeof child === 'string') this.#adopt(child, session);
    } else if (head.includes('"method":"Target.detachedFromTarget"')) {
      const p = parsed ?? parse(message);
      const child = p.params?.sessionId;
      if (typeof child === 'string') this.#drop(child);
    } else if (this.#attaching.size && head.startsWith('{"id":')) {
      const id = /^\{"id":(\d+)/.exec(head)?.[1];
      const key = `${session}|${id}`;
      if (!this.#attaching.delete(key)) return;
      const child = (parsed ?? parse(message)).result?.sessionId;
      if (typeof child === 'string') this.#adopt(child, session);
    }
  }

  #adopt(child: string, parent: string): void {
    this.#sessions.set(child, parent);
    this.#mux.own(child, this);
  }

  #drop(session: string): void {
    if (session === this.root) return;
    this.#sessions.delete(session);
    this.#mux.own(session, null);
    for (const [child, parent] of this.#sessions) if (parent === session) this.#drop(child);
  }
}

function parse(message: Buffer): Parsed {
  try {
    return JSON.parse(message.toString('utf8')) as Parsed;
  } catch {
    return {};
  }
}

function withoutSession(parsed: Parsed): Buffer {
  const { sessionId: _drop, ...rest } = parsed;
  return Buffer.from(JSON.stringify(rest));
}

/**
 * The session id Chromium appended to a message, read from its tail without parsing it: Chromium
 * adds `,"sessionId":"<id>"}` to every message of a flattened session, and inside JSON strings a
 * quote is always escaped, so that exact tail can only be the top-level key. `null`: the message
 * has no session (root); `undefined`: undecided, parse it.
 */
export function tailSessionId(message: Buffer): string | null | undefined {
  const n = message.length;
  if (n < 2 || message[n - 1] !== 0x7d || message[n - 2] !== 0x22) return message.includes('"sessionId"') ? undefined : null;
  const at = message.lastIndexOf(SESSION_TAIL);
  if (at < 0) return message.includes('"sessionId"') ? undefined : null;
  const id = message.subarray(at + SESSION_TAIL.length, n - 2).toString('latin1');
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(id)) return undefined;
  return id;
}

/** The message without the tail that `tailSessionId` read. */
function stripTailSession(message: Buffer): Buffer {
  return Buffer.concat([message.subarray(0, message.lastIndexOf(SESSION_TAIL)), CLOSE_BRACE]);
}
