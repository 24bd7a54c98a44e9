import { lookup as dnsLookup } from 'node:dns/promises';
import {
  Agent,
  createServer,
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { chmod, rm } from 'node:fs/promises';
import { connect, createServer as createNetServer, isIP, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { UpstreamProxy } from '#shared/protocol/upstream-proxy.ts';
import type { EgressPolicy } from './policy.ts';
import { EGRESS_HEADER_PREFIX, refusalAnswer, type EgressRefusal } from './refusal.ts';
import { openThrough, UpstreamFailed } from './upstream.ts';

export type Resolver = (host: string) => Promise<string[]>;

const systemResolver: Resolver = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Errors of a kept-alive connection the server closed just as it was reused: the request never reached it. */
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE']);

/** A pool of kept-alive upstream connections, as Node's global one (the newest idle connection is reused first). */
const keptAlive = () => new Agent({ keepAlive: true, scheduling: 'lifo', timeout: 5000 });

/**
 * Why a connection was refused: the address is one the policy denies, or the name did not resolve;
 * or, through a tenant's own proxy, the proxy's address is one the policy denies, the proxy refused
 * the login, refused the connection, or could not be reached.
 */
export type RefusalReason = 'denied_address' | 'unresolved' | 'proxy_denied' | 'proxy_auth' | 'proxy_refused' | 'proxy_unreachable';

export class EgressDenied extends Error {
  readonly reason: RefusalReason;
  /** The message without the host: which address, and which range or why. */
  readonly detail: string;
  constructor(host: string, detail: string, reason: RefusalReason) {
    super(`${host}: ${detail}`);
    this.reason = reason;
    this.detail = detail;
  }
}

/** The tenant's proxy is at an address the policy refuses. */
export class ProxyDenied extends Error {}

/** What an instance's way out is, for the browser that holds it (chromium.ts). */
export type InstanceEgress = {
  /** `http://127.0.0.1:PORT` when served on a TCP port of its own; '' on a Unix socket. */
  readonly url: string;
  /** From now on, leave through the tenant's proxy (or straight out again, with null); open connections are cut. */
  routeThrough(proxy: UpstreamProxy | null): void;
  /** Why the last connection to `host` through the tenant's proxy failed, if it did. */
  failure(host: string): string | undefined;
  /** Stop serving the instance and cut its open connections. */
  close(): Promise<void>;
};

/** One instance's way out: its own kept-alive connections, and its tenant's proxy if it named one. */
class InstanceRoute {
  readonly agent = keptAlive();
  upstream: UpstreamProxy | null = null;
  readonly #failures = new Map<string, string>();

  remember(host: string, why: string): void {
    this.#failures.delete(host);
    this.#failures.set(host, why);
    // A few hosts are enough to explain the page's last failures.
    if (this.#failures.size > 32) this.#failures.delete(this.#failures.keys().next().value as string);
  }

  failure(host: string): string | undefined {
    return this.#failures.get(host);
  }
}

export type EgressProxyOptions = {
  resolve?: Resolver;
  onRefused?: (reason: RefusalReason) => void;
  /** How long connecting to and logging in at a tenant's proxy may take. */
  upstreamTimeoutMs?: number;
};

/**
 * The forward proxy every remote browser is started behind. It resolves each destination itself
 * and connects to the exact address it checked, so a DNS name that points at a private address is
 * refused and a rebinding answer cannot slip past between the check and the connection.
 */
export class EgressProxy {
  readonly #policy: EgressPolicy;
  readonly #resolve: Resolver;
  readonly #onRefused: (reason: RefusalReason) => void;
  readonly #log: Logger;
  readonly #server: Server;
  readonly #sockets = new Set<Duplex>();
  /**
   * Each instance's route, by the connection its browser came in on: its own pool of kept-alive
   * upstream connections (a connection one tenant opened, and perhaps authenticated with NTLM or
   * Negotiate, is never handed to another) and its tenant's own proxy, if any. Every instance has a
   * listener of its own; the shared TCP listener and its pool serve only callers without one.
   */
  readonly #routes = new WeakMap<Duplex, InstanceRoute>();
  readonly #sharedAgent = keptAlive();
  readonly #upstreamTimeoutMs: number;
  #port = 0;

  constructor(policy: EgressPolicy, log: Logger, options: EgressProxyOptions = {}) {
    this.#policy = policy;
    this.#resolve = options.resolve ?? systemResolver;
    this.#onRefused = options.onRefused ?? (() => {});
    this.#upstreamTimeoutMs = options.upstreamTimeoutMs ?? 15_000;
    this.#log = log;
    this.#server = createServer((req, res) => void this.#forward(req, res));
    this.#server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.#tunnel(req, socket, head));
    this.#server.on('connection', (socket: Socket) => this.#track(socket));
  }

  /** `http://127.0.0.1:PORT`, for Chromium's --proxy-server. */
  get url(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(0, '127.0.0.1', () => resolve());
    });
    this.#port = (this.#server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    this.#sharedAgent.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /**
   * Also serve one instance on a listener of its own: a Unix socket (a sandboxed instance's only
   * way out of its network namespace), or, with `socketPath` null, a loopback TCP port (single-tenant
   * mode). Its connections are told apart from every other instance's by that listener alone.
   */
  async serveInstance(socketPath: string | null, instance: string): Promise<InstanceEgress> {
    const mine = new Set<Socket>();
    const route = new InstanceRoute();
    const server = createNetServer((socket) => {
      mine.add(socket);
      socket.once('close', () => mine.delete(socket));
      this.#routes.set(socket, route);
      this.#server.emit('connection', socket);
    });
    if (socketPath) await rm(socketPath, { force: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      if (socketPath) server.listen(socketPath, () => resolve());
      else server.listen(0, '127.0.0.1', () => resolve());
    });
    // The instance runs as its own uid: it must be able to connect.
    if (socketPath) await chmod(socketPath, 0o666);
    this.#log.debug({ instance }, 'egress socket open');
    return {
      url: socketPath ? '' : `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      routeThrough: (proxy) => {
        route.upstream = proxy;
        // A connection the browser opened before (a warm one should have none) is cut: every
        // connection from now on takes the new route, none is left going around it.
        for (const s of mine) s.destroy();
      },
      failure: (host) => route.failure(host),
      close: async () => {
        for (const s of mine) s.destroy();
        route.agent.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
    };
  }

  /** Resolve `host` and return the first address the policy allows, or throw EgressDenied. */
  async pick(host: string): Promise<string> {
    const bare = host.replace(/^\[|\]$/g, '');
    const addresses = isIP(bare)
      ? [bare]
      : await this.#resolve(bare).catch((err: NodeJS.ErrnoException) => {
          throw new EgressDenied(host, `did not resolve (${err.code ?? err.message})`, 'unresolved');
        });
    if (addresses.length === 0) throw new EgressDenied(host, 'did not resolve', 'unresolved');
    let reason = '';
    for (const address of addresses) {
      const verdict = this.#policy.check(address);
      if (verdict.allowed) return address;
      reason = verdict.reason;
    }
    throw new EgressDenied(host, reason, 'denied_address');
  }

  /**
   * How the policy judges `host` now, as the proxy would on a connection to it: its address refused
   * (which address and why), a name that does not resolve, or allowed (with the address it would use).
   */
  async judge(host: string): Promise<{ verdict: 'allowed' | 'denied-address' | 'unresolved'; detail: string }> {
    try {
      return { verdict: 'allowed', detail: await this.pick(host) };
    } catch (err) {
      if (!(err instanceof EgressDenied)) throw err;
      return err.reason === 'unresolved'
        ? { verdict: 'unresolved', detail: err.detail }
        : { verdict: 'denied-address', detail: err.detail };
    }
  }

  /**
   * Why a browser's connection to `host` failed, in words, judged as the proxy judges it: refused
   * by the policy (which address and why), a name that does not resolve, or a site that did not answer.
   */
  async explain(host: string): Promise<string> {
    const { verdict, detail } = await this.judge(host);
    if (verdict === 'allowed') return `${host} (${detail}) did not answer`;
    return verdict === 'unresolved' ? `${host} ${detail}` : `refused by the egress policy: ${detail}`;
  }

  /**
   * Refusals are counted (periscope_egress_refused_total) and logged at debug: a page that tries a
   * private address is the tenant's business, and a busy host would fill its log with them.
   */
  #refused(host: string, err: unknown): void {
    this.#onRefused(
      err instanceof EgressDenied
        ? err.reason
        : err instanceof ProxyDenied
          ? 'proxy_denied'
          : err instanceof UpstreamFailed
            ? (err.kind.replace('-', '_') as RefusalReason)
            : 'unresolved',
    );
    this.#log.debug({ host, reason: (err as Error).message }, 'egress refused');
  }

  /**
   * A connection to `host:port` through the instance's own proxy. The destination is judged where
   * it can be: an address, or a name that resolves here to one the policy refuses, is refused (a
   * name that does not resolve here is the proxy's to resolve). The proxy's own address is judged
   * as any destination. Failures are remembered for the instance, to explain a failed page.
   */
  async #viaUpstream(route: InstanceRoute, proxy: UpstreamProxy, host: string, port: number): Promise<Duplex> {
    try {
      await this.pick(host).catch((err: unknown) => {
        if (!(err instanceof EgressDenied && err.reason === 'unresolved')) throw err;
      });
      const address = await this.pick(proxy.host).catch((err: unknown) => {
        const detail = err instanceof EgressDenied ? err.detail : (err as Error).message;
        throw new ProxyDenied(`your proxy ${proxy}: ${detail}`);
      });
      return await openThrough(proxy, { host: host.replace(/^\[|\]$/g, ''), port }, { address, timeoutMs: this.#upstreamTimeoutMs });
    } catch (err) {
      this.#refused(host, err);
      route.remember(host.replace(/^\[|\]$/g, ''), explainFailure(err));
      throw err;
    }
  }

  #track(socket: Duplex): void {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
  }

  async #tunnel(req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    client.on('error', () => client.destroy());
    const target = parseAuthority(req.url ?? '');
    if (!target) return void client.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    const route = this.#routes.get(client);
    if (route?.upstream) return this.#tunnelUpstream(route, route.upstream, target, client, head);
    let address: string;
    try {
      address = await this.pick(target.host);
    } catch (err) {
      this.#refused(target.host, err);
      return void client.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    }
    const upstream = connect({ host: address, port: target.port });
    this.#track(upstream);
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => {
      if (!connected) client.end('HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      else client.destroy();
    });
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  }

  /** CONNECT through the tenant's proxy. A refused one is a 502, which Chromium shows as a failed tunnel. */
  async #tunnelUpstream(
    route: InstanceRoute,
    proxy: UpstreamProxy,
    target: { host: string; port: number },
    client: Duplex,
    head: Buffer,
  ): Promise<void> {
    let upstream: Duplex;
    try {
      upstream = await this.#viaUpstream(route, proxy, target.host, target.port);
    } catch {
      return void client.end('HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    }
    this.#track(upstream);
    if (client.destroyed) return void upstream.destroy();
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) upstream.write(head);
    upstream.on('error', () => client.destroy());
    upstream.pipe(client);
    client.pipe(upstream);
    upstream.resume();
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  }

  async #forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
      if (url.protocol !== 'http:') throw new Error('only http:// is forwarded; https goes through CONNECT');
    } catch (err) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(`bad proxy request: ${(err as Error).message}\n`);
      return;
    }
    const route = this.#routes.get(req.socket);
    let address = '';
    let through: Duplex | null = null;
    try {
      if (route?.upstream) through = await this.#viaUpstream(route, route.upstream, url.hostname, Number(url.port || 80));
      else address = await this.pick(url.hostname);
    } catch (err) {
      // Through the tenant's proxy, #viaUpstream has counted and logged the refusal already.
      if (!route?.upstream) this.#refused(url.hostname, err);
      const answer = refusalAnswer(refusalOf(err), url.host, err instanceof EgressDenied ? err.detail : (err as Error).message);
      res.writeHead(answer.status, answer.headers).end(answer.body);
      return;
    }
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    const agent = route?.agent ?? this.#sharedAgent;
    const withBody = hasBody(req);
    const send = (retry: boolean): ClientRequest => {
      const upstream = httpRequest({
        // Through the tenant's proxy: the one tunnel opened for this request, not kept alive. (No
        // `agent` beside it: `agent: false` would make a fresh Agent and connect straight to the site.)
        ...(through ? { createConnection: () => through as Socket } : { agent }),
        host: address || url.hostname,
        port: url.port || 80,
        method: req.method,
        path: url.pathname + url.search,
        headers,
        setHost: false,
      });
      // The tunnel comes paused (upstream.ts); it flows once the request reads from it.
      if (through) upstream.once('socket', (socket) => socket.resume());
      upstream.on('response', (up) => {
        const out: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(up.headers)) {
          // The proxy's own headers (refusal.ts) are the proxy's alone: a site that sends them is not believed.
          if (value !== undefined && !HOP_BY_HOP.has(name) && !name.startsWith(EGRESS_HEADER_PREFIX)) out[name] = value;
        }
        res.writeHead(up.statusCode ?? 502, up.statusMessage, out);
        up.pipe(res);
      });
      upstream.on('error', (err: NodeJS.ErrnoException) => {
        if (res.headersSent) return void res.destroy();
        // A kept-alive connection the server closed as it was reused: the request is sent again on
        // a new one, as browsers do, when it has no body (so nothing of it was lost).
        if (retry && upstream.reusedSocket && STALE_CONNECTION.has(err.code ?? '') && !res.destroyed)
          return void (current = send(false)).end();
        const answer = refusalAnswer('unreachable', url.host, `${address || `through ${route?.upstream}`}: ${err.code ?? err.message}`);
        res.writeHead(answer.status, answer.headers).end(answer.body);
      });
      return upstream;
    };
    let current = send(!withBody);
    // A browser that goes away (its instance ended, its tab closed) takes the upstream request with
    // it: a remote server must not be left holding a half-read answer.
    res.once('close', () => {
      if (!res.writableFinished) current.destroy();
    });
    if (withBody) req.pipe(current);
    else {
      req.resume();
      current.end();
    }
  }
}

/** The refusal page's kind for a failure through the tenant's proxy. */
function refusalOf(err: unknown): EgressRefusal {
  if (err instanceof ProxyDenied) return 'proxy-denied';
  if (err instanceof UpstreamFailed) return err.kind;
  if (err instanceof EgressDenied) return err.reason === 'unresolved' ? 'unresolved' : 'denied-address';
  return 'proxy-unreachable';
}

/** A failure through the tenant's proxy in words (never its credentials: no message here holds them). */
function explainFailure(err: unknown): string {
  if (err instanceof ProxyDenied) return `refused by the egress policy: ${err.message}`;
  if (err instanceof UpstreamFailed) return `your proxy failed: ${err.message}`;
  if (err instanceof EgressDenied) return err.reason === 'unresolved' ? err.message : `refused by the egress policy: ${err.detail}`;
  return 'your proxy could not be used';
}

/** Whether a request carries a body (which, once sent, cannot be sent again). */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function parseAuthority(authority: string): { host: string; port: number } | null {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:\s/]+):(\d{1,5})$/.exec(authority);
  if (!m?.[1] || !m[2]) return null;
  const port = Number(m[2]);
  return port > 0 && port < 65536 ? { host: m[1], port } : null;
}
