import ipaddr from 'ipaddr.js';
import { connect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import type { Duplex } from 'node:stream';
import type { UpstreamProxy } from '#shared/protocol/upstream-proxy.ts';

/**
 * Opening a connection through a tenant's own upstream proxy (decision 0104): HTTP CONNECT with
 * Basic Proxy-Authorization, over TLS to an https proxy, or SOCKS5 with a username and password
 * (RFC 1928, RFC 1929). The caller has already judged the proxy's address by the egress policy
 * and hands the exact address to connect to. No message of this module holds the credentials.
 */

/** Why a connection through the proxy failed: its login, its answer, or the proxy itself could not be reached. */
export type UpstreamFailure = 'proxy-auth' | 'proxy-refused' | 'proxy-unreachable';

export class UpstreamFailed extends Error {
  readonly kind: UpstreamFailure;
  constructor(kind: UpstreamFailure, message: string) {
    super(message);
    this.kind = kind;
  }
}

export type UpstreamTarget = { host: string; port: number };

export type OpenOptions = {
  /** The proxy's address as judged by the egress policy (the proxy's host name is still its TLS name). */
  address: string;
  timeoutMs?: number;
  /** For tests: trust this certificate authority for an https proxy. */
  tls?: Pick<ConnectionOptions, 'ca'>;
};

/** The most of a CONNECT answer's head read before the proxy is taken to be broken. */
const MAX_HEAD_BYTES = 16 * 1024;

/**
 * Open a connection to `target` through `proxy`; resolves with a socket that carries the target's
 * bytes, paused: it flows once its reader resumes it (or pipes it), so that nothing is lost before.
 */
export async function openThrough(proxy: UpstreamProxy, target: UpstreamTarget, o: OpenOptions): Promise<Duplex> {
  const socket = await reach(proxy, o);
  const timeoutMs = o.timeoutMs ?? 15_000;
  socket.setTimeout(timeoutMs, () =>
    socket.destroy(new UpstreamFailed('proxy-unreachable', `${proxy} did not answer within ${timeoutMs} ms`)),
  );
  try {
    if (proxy.scheme === 'socks5') await socksConnect(socket, proxy, target);
    else await httpConnect(socket, proxy, target);
    socket.setTimeout(0);
    return socket;
  } catch (err) {
    socket.destroy();
    throw err instanceof UpstreamFailed
      ? err
      : new UpstreamFailed('proxy-unreachable', `${proxy}: ${(err as NodeJS.ErrnoException).code ?? 'connection lost'}`);
  }
}

/** A TCP (or, to an https proxy, TLS) connection to the proxy itself. */
function reach(proxy: UpstreamProxy, o: OpenOptions): Promise<Socket> {
  const timeoutMs = o.timeoutMs ?? 15_000;
  return new Promise((resolve, reject) => {
    const tls = proxy.scheme === 'https';
    const socket: Socket = tls
      ? tlsConnect({
          host: o.address,
          port: proxy.port,
          servername: isIP(proxy.host) ? undefined : proxy.host,
          ALPNProtocols: ['http/1.1'],
          ...o.tls,
        })
      : connect({ host: o.address, port: proxy.port });
    const timer = setTimeout(() => fail(new Error('ETIMEDOUT')), timeoutMs);
    const fail = (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      socket.destroy();
      const why = err.code ?? (tls ? `TLS: ${err.message.slice(0, 120)}` : 'failed');
      reject(new UpstreamFailed('proxy-unreachable', `could not connect to ${proxy} (${o.address}): ${why}`));
    };
    socket.once('error', fail);
    socket.once(tls ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      socket.off('error', fail);
      resolve(socket);
    });
  });
}

/** Reads exact byte counts from a socket, then gives back what it read beyond them. */
class Reader {
  readonly #socket: Socket;
  #buffer = Buffer.alloc(0);
  #waiting: { test: () => boolean; resolve: () => void; reject: (err: Error) => void } | null = null;
  readonly #onData = (chunk: Buffer) => {
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    this.#check();
  };
  readonly #onEnd = () => this.#waiting?.reject(new UpstreamFailed('proxy-refused', 'the proxy closed the connection'));
  readonly #onError = (err: Error) => this.#waiting?.reject(err);

  constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('data', this.#onData);
    socket.on('end', this.#onEnd);
    socket.on('close', this.#onEnd);
    socket.on('error', this.#onError);
  }

  #check(): void {
    if (this.#waiting?.test()) {
      const { resolve } = this.#waiting;
      this.#waiting = null;
      resolve();
    }
  }

  #until(test: () => boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting = { test, resolve, reject };
      this.#check();
    });
  }

  async bytes(n: number): Promise<Buffer> {
    await this.#until(() => this.#buffer.length >= n);
    const out = this.#buffer.subarray(0, n);
    this.#buffer = this.#buffer.subarray(n);
    return out;
  }

  /** An HTTP answer's head, up to its blank line. */
  async head(): Promise<string> {
    await this.#until(() => this.#buffer.includes('\r\n\r\n') || this.#buffer.length > MAX_HEAD_BYTES);
    const end = this.#buffer.indexOf('\r\n\r\n');
    if (end < 0) throw new UpstreamFailed('proxy-refused', 'the proxy answered CONNECT with an overlong head');
    const head = this.#buffer.subarray(0, end).toString('latin1');
    this.#buffer = this.#buffer.subarray(end + 4);
    return head;
  }

  /** Stop reading; the bytes read past the handshake go back to the socket for whoever reads next. */
  release(): void {
    this.#socket.off('data', this.#onData);
    this.#socket.off('end', this.#onEnd);
    this.#socket.off('close', this.#onEnd);
    this.#socket.off('error', this.#onError);
    this.#socket.pause();
    if (this.#buffer.length) this.#socket.unshift(this.#buffer);
  }
}

const authority = (t: UpstreamTarget) => `${isIP(t.host) === 6 ? `[${t.host}]` : t.host}:${t.port}`;

async function httpConnect(socket: Socket, proxy: UpstreamProxy, target: UpstreamTarget): Promise<void> {
  const reader = new Reader(socket);
  try {
    const auth = proxy.basicAuthorization();
    const where = authority(target);
    socket.write(`CONNECT ${where} HTTP/1.1\r\nHost: ${where}\r\n${auth ? `Proxy-Authorization: ${auth}\r\n` : ''}\r\n`);
    const head = await reader.head();
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1];
    if (!status) throw new UpstreamFailed('proxy-refused', `${proxy} did not answer CONNECT as an HTTP proxy`);
    if (status === '407')
      throw new UpstreamFailed(
        'proxy-auth',
        `${proxy} refused the login (407 Proxy Authentication Required)${proxy.hasCredentials ? '' : '; no credentials were given'}`,
      );
    if (!status.startsWith('2')) throw new UpstreamFailed('proxy-refused', `${proxy} refused CONNECT ${where} with ${status}`);
  } finally {
    reader.release();
  }
}

/** RFC 1928's reply codes. */
const SOCKS_REPLIES: Record<number, string> = {
  1: 'general SOCKS server failure',
  2: 'connection not allowed by ruleset',
  3: 'network unreachable',
  4: 'host unreachable',
  5: 'connection refused',
  6: 'TTL expired',
  7: 'command not supported',
  8: 'address type not supported',
};

async function socksConnect(socket: Socket, proxy: UpstreamProxy, target: UpstreamTarget): Promise<void> {
  const reader = new Reader(socket);
  try {
    const credentials = proxy.credentials();
    // Methods offered: username/password (2) when given, else none (0).
    socket.write(Buffer.from([5, 1, credentials ? 2 : 0]));
    const [version, method] = await reader.bytes(2);
    if (version !== 5) throw new UpstreamFailed('proxy-refused', `${proxy} did not answer as a SOCKS5 proxy`);
    if (method === 0xff)
      throw new UpstreamFailed(
        'proxy-auth',
        `${proxy} accepts none of the login methods offered (${credentials ? 'username and password' : 'no credentials were given'})`,
      );
    if (method === 2 && credentials) {
      const user = Buffer.from(credentials.username, 'utf8');
      const pass = Buffer.from(credentials.password, 'utf8');
      socket.write(Buffer.concat([Buffer.from([1, user.length]), user, Buffer.from([pass.length]), pass]));
      const [, status] = await reader.bytes(2);
      if (status !== 0) throw new UpstreamFailed('proxy-auth', `${proxy} refused the login (SOCKS5 username and password)`);
    } else if (method !== 0) throw new UpstreamFailed('proxy-refused', `${proxy} chose a login method it was not offered (${method})`);
    socket.write(Buffer.concat([Buffer.from([5, 1, 0]), socksAddress(target.host), Buffer.from([target.port >> 8, target.port & 0xff])]));
    const [, reply, , type] = await reader.bytes(4);
    if (reply !== 0)
      throw new UpstreamFailed('proxy-refused', `${proxy} refused ${authority(target)}: ${SOCKS_REPLIES[reply ?? 1] ?? `reply ${reply}`}`);
    // The address the proxy bound: skipped.
    const length = type === 1 ? 4 : type === 4 ? 16 : (await reader.bytes(1))[0]!;
    await reader.bytes(length + 2);
  } finally {
    reader.release();
  }
}

/** ATYP and address: IPv4, IPv6, or the name for the proxy to resolve. */
function socksAddress(host: string): Buffer {
  if (isIP(host) === 4) return Buffer.from([1, ...host.split('.').map(Number)]);
  if (isIP(host) === 6) return Buffer.from([4, ...ipaddr.parse(host).toByteArray()]);
  const name = Buffer.from(host, 'utf8');
  return Buffer.concat([Buffer.from([3, name.length]), name]);
}
