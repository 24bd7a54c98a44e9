import WebSocket from 'ws';
import { endOf, type BrowserEnd } from './end.ts';
import { ConnectionError, errorFromAnswer, PeriscopeError } from './errors.ts';
import { deadline, type CallOptions, type Http } from './http.ts';

/**
 * What `/start` accepts, passed through as the service names it (docs/api.md, section 1). A service
 * that does not know an option ignores it.
 */
export type StartOptions = Omit<CallOptions, 'maxRetries'> & {
  /** Start from this saved profile's state (`profile=`). */
  profile?: string;
  /** Save the state back into `profile` when the browser ends (`persist=1`). */
  persist?: boolean;
  /** This browser's lifetime in seconds (`timeout=`), at most the service's limit. */
  timeout?: number;
  /** Wait up to this many seconds for room instead of being refused at capacity (`queue=`). */
  queue?: number;
  /** The browser's own upstream proxy, `http://user:pass@host:port` (`X-Browser-Proxy`). */
  proxy?: string;
  /** Further query parameters for `/start`, as the service documents them. */
  params?: Record<string, string>;
  /** Further headers for `/start`. */
  headers?: Record<string, string>;
};

/** Chromium's version object, as `GET /json/version` answers it. */
export type BrowserVersion = {
  Browser: string;
  'Protocol-Version': string;
  'User-Agent': string;
  'V8-Version'?: string;
  'WebKit-Version'?: string;
  webSocketDebuggerUrl: string;
  /** The same address with a ticket for this browser alone, for tools that send no headers (services that offer it). */
  connectUrl?: string;
};

export type UploadedFile = { name: string; path: string; size: number };
export type DownloadedFile = { name: string; size: number; modifiedAt: string; complete: boolean };

/** Playwright's `chromium` (from `playwright` or `playwright-core`), or anything connecting the same way. */
export type PlaywrightBrowserType<B> = {
  connectOverCDP(endpointURL: string, options?: { headers?: Record<string, string>; timeout?: number }): Promise<B>;
};

/** puppeteer or puppeteer-core's default export, or anything connecting the same way. */
export type PuppeteerLike<B> = {
  connect(options: { browserWSEndpoint: string; headers?: Record<string, string> }): Promise<B>;
};

/**
 * A remote browser: it lives exactly as long as this object holds its `/start` socket open, so keep
 * a reference and call `stop()` when done (a process that exits ends it too).
 */
export class RemoteBrowser {
  /** `br_…`, the browser's id. */
  readonly id: string;
  /** The Chrome DevTools Protocol address to connect to, with `headers`. */
  readonly webSocketDebuggerUrl: string;
  /** `Authorization` and `X-Browser-ID`: every connection to this browser sends both. */
  readonly headers: Readonly<Record<string, string>>;
  /** Chromium's version, as the browser answered it. */
  readonly version: BrowserVersion;
  /**
   * The DevTools address with a ticket for this browser alone, for tools that take only an address
   * (`chromium.connectOverCDP(connectUrl)`, no headers); it works as long as the browser lives.
   * Undefined from a service that does not offer it.
   */
  readonly connectUrl: string | undefined;
  /** Settles once the browser has ended, saying how and why; it never rejects. */
  readonly ended: Promise<BrowserEnd>;

  readonly #http: Http;
  readonly #held: HeldSocket;

  private constructor(http: Http, held: HeldSocket, id: string, version: BrowserVersion) {
    this.#http = http;
    this.#held = held;
    this.id = id;
    this.version = version;
    this.webSocketDebuggerUrl = version.webSocketDebuggerUrl;
    this.connectUrl = version.connectUrl;
    this.headers = Object.freeze({ Authorization: `Bearer ${http.apiKey}`, 'X-Browser-ID': id });
    this.ended = held.ended;
  }

  /**
   * Open `/start`, read the id and the browser's DevTools address. Refusals reject with the typed
   * error of their status (401, 429 at the key's browser limit, 503 at capacity…); a call cancelled
   * or timed out while the browser is being started leaves nothing behind on the service.
   */
  static async start(http: Http, options: StartOptions = {}): Promise<RemoteBrowser> {
    const queueMs = (options.queue ?? 0) * 1000;
    const limit = deadline(options.signal, (options.timeoutMs ?? http.timeoutMs) + queueMs);
    const named = {
      profile: options.profile,
      persist: options.persist === undefined ? undefined : options.persist ? '1' : '0',
      timeout: options.timeout,
      queue: options.queue,
    };
    // The named options, where given, over the free ones of the same name.
    const params = { ...options.params, ...Object.fromEntries(Object.entries(named).filter(([, v]) => v !== undefined)) };
    const url = http.url('/start', params);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    const headers = { ...http.authHeaders(), ...options.headers, ...(options.proxy ? { 'X-Browser-Proxy': options.proxy } : {}) };
    const socket = new WebSocket(url, { headers, perMessageDeflate: false, followRedirects: false });
    try {
      const { id, held } = await opened(socket, limit.signal, (err) => limit.explain(err, 'WebSocket /start'));
      try {
        const version = await http.json<BrowserVersion>(
          { method: 'GET', path: '/json/version', headers: { 'X-Browser-ID': id } },
          { signal: limit.signal, maxRetries: 0 },
        );
        return new RemoteBrowser(http, held, id, version);
      } catch (err) {
        throw limit.explain(err, 'GET /json/version');
      }
    } catch (err) {
      socket.terminate();
      throw err;
    } finally {
      limit.done();
    }
  }

  /** Whether the browser still lives (its `/start` socket is open). */
  get live(): boolean {
    return this.#held.open;
  }

  /** End the browser: close its `/start` socket. Resolves once the socket is closed, with how it ended. */
  stop(): Promise<BrowserEnd> {
    return this.#held.stop();
  }

  /** A Playwright `Browser` connected to this one: pass your own `chromium` (from playwright or playwright-core). */
  connectPlaywright<B>(chromium: PlaywrightBrowserType<B>, options: { timeoutMs?: number } = {}): Promise<B> {
    return chromium.connectOverCDP(this.webSocketDebuggerUrl, {
      headers: { ...this.headers },
      timeout: options.timeoutMs ?? this.#http.timeoutMs,
    });
  }

  /** A puppeteer `Browser` connected to this one: pass your own `puppeteer` (or puppeteer-core). */
  connectPuppeteer<B>(puppeteer: PuppeteerLike<B>): Promise<B> {
    return puppeteer.connect({ browserWSEndpoint: this.webSocketDebuggerUrl, headers: { ...this.headers } });
  }

  /**
   * Put a file in the browser's uploads folder; hand the answer's `path` to the browser
   * (`DOM.setFileInputFiles`, puppeteer's `uploadFile`). Uploading a name again replaces it. A Blob
   * is streamed: `fs.openAsBlob(path)` sends a large file without reading it into memory.
   */
  uploadFile(name: string, data: Uint8Array | Blob | string, call: CallOptions = {}): Promise<UploadedFile> {
    const body = typeof data === 'string' ? new TextEncoder().encode(data) : (data as Uint8Array<ArrayBuffer> | Blob);
    return this.#http.json<UploadedFile>({ method: 'PUT', path: `/v0/browser/uploads/${fileName(name)}`, headers: this.#id(), body }, call);
  }

  /** The browser's uploads, by name. */
  async uploads(call: CallOptions = {}): Promise<UploadedFile[]> {
    return (await this.#http.json<{ files: UploadedFile[] }>({ method: 'GET', path: '/v0/browser/uploads', headers: this.#id() }, call))
      .files;
  }

  /** Remove an upload; a NotFoundError when there is none of that name. */
  deleteUpload(name: string, call: CallOptions = {}): Promise<void> {
    return this.#http.empty({ method: 'DELETE', path: `/v0/browser/uploads/${fileName(name)}`, headers: this.#id() }, call);
  }

  /** What the browser downloaded, oldest first; one still being written (or still being moved to
   * its final name) has `complete: false`. */
  async downloads(call: CallOptions = {}): Promise<DownloadedFile[]> {
    return (await this.#http.json<{ files: DownloadedFile[] }>({ method: 'GET', path: '/v0/browser/downloads', headers: this.#id() }, call))
      .files;
  }

  /** A downloaded file's bytes; a ConflictError while it is still being written. */
  download(name: string, call: CallOptions = {}): Promise<Uint8Array> {
    return this.#http.bytes({ method: 'GET', path: `/v0/browser/downloads/${fileName(name)}`, headers: this.#id() }, call);
  }

  #id(): Record<string, string> {
    return { 'X-Browser-ID': this.id };
  }
}

/** The `/start` socket once it brought the id: the browser lives while it is open. */
class HeldSocket {
  readonly ended: Promise<BrowserEnd>;
  readonly #socket: WebSocket;
  #stopping = false;

  /** Call before the event loop turns, so that no close goes unseen. */
  constructor(socket: WebSocket) {
    this.#socket = socket;
    this.ended = new Promise((resolve) =>
      socket.once('close', (code, reason) => resolve(endOf(code, reason.toString('utf8'), this.#stopping))),
    );
  }

  get open(): boolean {
    return this.#socket.readyState === WebSocket.OPEN;
  }

  async stop(): Promise<BrowserEnd> {
    if (this.#socket.readyState !== WebSocket.OPEN) return this.ended;
    this.#stopping = true;
    this.#socket.close(1000, 'client stopped the browser');
    // A peer that does not answer the close within 5 s is cut off.
    const cut = setTimeout(() => this.#socket.terminate(), 5000);
    cut.unref();
    try {
      return await this.ended;
    } finally {
      clearTimeout(cut);
    }
  }
}

/**
 * Wait for the socket to open and bring the id; from then on the socket is held, and its close
 * says how the browser ended.
 */
function opened(socket: WebSocket, signal: AbortSignal, explain: (err: unknown) => unknown): Promise<{ id: string; held: HeldSocket }> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      reject(explain(err));
    };
    const onAbort = () => fail(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    // A refusal is a plain HTTP answer before the handshake: read its body for the typed error.
    socket.once('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (err) => fail(err));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: the text is the message
        }
        const header = res.headers['retry-after'];
        fail(errorFromAnswer(res.statusCode ?? 0, body, Array.isArray(header) ? (header[0] ?? null) : (header ?? null)));
      });
    });
    socket.on('error', (err) =>
      fail(err instanceof PeriscopeError ? err : new ConnectionError(`WebSocket /start failed: ${err.message}`, { cause: err })),
    );
    socket.once('close', (code) => fail(new ConnectionError(`WebSocket /start closed (${code}) before the browser's id came`)));
    socket.once('message', (data, isBinary) => {
      const id = isBinary ? '' : data.toString();
      if (!/^br_[A-Za-z0-9_-]{32}$/.test(id))
        return fail(new ConnectionError(`/start sent ${JSON.stringify(id.slice(0, 40))}, not a browser id`));
      settled = true;
      signal.removeEventListener('abort', onAbort);
      socket.removeAllListeners('close');
      resolve({ id, held: new HeldSocket(socket) });
    });
  });
}

/** A file name as one path segment; the service judges the name itself (400 naming the rule). */
function fileName(name: string): string {
  return encodeURIComponent(name);
}
