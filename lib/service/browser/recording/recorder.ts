import type { Chromium } from '../chromium.ts';
import { EGRESS_HEADER_PREFIX, refusalInWords } from '../egress/refusal.ts';
import type { RecordingWriter } from './writer.ts';

export type RecorderOptions = {
  /** Most screen frames kept per second (a page that changes faster is sampled; the last frame is always kept). */
  fps: number;
  /** The screen's size as recorded: frames are scaled down to fit. */
  maxWidth: number;
  maxHeight: number;
  jpegQuality: number;
  /**
   * Why a connection to `host` failed, in words, as the egress proxy judges it (a refused https
   * connection reaches Chromium only as net::ERR_TUNNEL_CONNECTION_FAILED, which says nothing).
   */
  explainUnreachable?: (host: string) => Promise<string>;
};

type Request = {
  tab: string;
  method: string;
  url: string;
  start: number;
  status?: number;
  mimeType?: string;
  /** The request for the tab's own page (not a frame's, not a resource's). */
  page?: boolean;
};
type Params = Record<string, unknown>;

/** Longest text of one console message or page error kept. */
const MAX_TEXT = 2000;
/** The rate Chromium's screencast runs at on a page that animates. */
const SCREENCAST_RATE = 60;
/** How long the screen must be still before its settled state is captured (when frames are skipped). */
const SETTLE_MS = 400;
/** Longest a stopping recorder waits for the browser to stop holding new tabs for it. */
const STOP_WAIT_MS = 2000;
/** Longest a failed navigation's event waits for the egress proxy to say why the connection failed. */
const EXPLAIN_WAIT_MS = 1000;
/** A frame this soon after a capture is the capture's own redraw, not a change of the page. */
const CAPTURE_ECHO_MS = 150;

/**
 * What one browser did, as its owner will want to see it afterwards: every tab's navigations,
 * console messages and page errors, network requests (method, address, status, size, timing; no
 * headers, no bodies), dialogs, and the screen of the page in use at a bounded rate. It watches
 * through sessions of the service's own on the browser's pipe, which no client sees or can address.
 */
export class Recorder {
  readonly #browser: Chromium;
  readonly #out: RecordingWriter;
  readonly #opts: RecorderOptions;
  /** Session id → the tab (target id) it is attached to. */
  readonly #sessions = new Map<string, string>();
  readonly #requests = new Map<string, Request>();
  /** Tab → why its last page failed to load (the document request's net error), until its error page commits. */
  readonly #failedLoads = new Map<string, { url: string; error: string; reason?: string }>();
  #screenSession: string | null = null;
  #lastFrameAt = -Infinity;
  /** The newest frame not yet kept, base64 as it came. */
  #pendingFrame: { data: string; fields: Record<string, unknown> } | null = null;
  #pendingTimer: NodeJS.Timeout | null = null;
  /**
   * Chromium is asked for one screencast frame in `#everyNth` (the recorder keeps `fps` a second,
   * so parsing a page's every frame would cost the service for nothing). A change whose frame was
   * skipped may be the page's last one, so once the screen has been still for SETTLE_MS its state
   * is captured once.
   */
  readonly #everyNth: number;
  #settleTimer: NodeJS.Timeout | null = null;
  #capturedAt = -Infinity;
  #capturing = false;
  #stopped = false;
  readonly #onRoot = (method: string, params: Params) => this.#root(method, params);
  readonly #onSession = (sessionId: string, method: string, params: Params) => this.#event(sessionId, method, params);
  readonly #onCurrent = () => void this.#followScreen();

  private constructor(browser: Chromium, out: RecordingWriter, opts: RecorderOptions) {
    this.#browser = browser;
    this.#out = out;
    this.#opts = opts;
    this.#everyNth = Math.max(1, Math.floor(SCREENCAST_RATE / (opts.fps * 4)));
  }

  static async start(browser: Chromium, out: RecordingWriter, opts: RecorderOptions): Promise<Recorder> {
    const recorder = new Recorder(browser, out, opts);
    browser.mux.rootEvents.on('event', recorder.#onRoot);
    browser.mux.serviceEvents.on('event', recorder.#onSession);
    browser.tabs.on('current', recorder.#onCurrent);
    out.event('start', { startedAt: new Date(Date.now() - out.now()).toISOString() });
    // Each new tab waits for the recorder to watch it before its first navigation, so that a tab
    // opened by window.open or a target=_blank link has its first page recorded (`#root` lets it go).
    await browser.mux.call('Target.setAutoAttach', {
      autoAttach: true,
      waitForDebuggerOnStart: true,
      flatten: true,
      filter: [{ type: 'page' }],
    });
    return recorder;
  }

  /** Stop watching; what is written stays. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#pendingTimer) clearTimeout(this.#pendingTimer);
    if (this.#settleTimer) clearTimeout(this.#settleTimer);
    this.#flushFrame();
    // New tabs must no longer wait for a recorder that has gone (the browser may live on); one that
    // opened meanwhile is still let go by `#root`, which listens until this is done.
    // Bounded: a browser that does not answer must not hold the recording's end.
    let bound: NodeJS.Timeout | undefined;
    await Promise.race([
      this.#browser.mux.call('Target.setAutoAttach', { autoAttach: false, waitForDebuggerOnStart: false }).catch(() => {}),
      new Promise((resolve) => (bound = setTimeout(resolve, STOP_WAIT_MS))),
    ]);
    clearTimeout(bound);
    this.#browser.mux.rootEvents.off('event', this.#onRoot);
    this.#browser.mux.serviceEvents.off('event', this.#onSession);
    this.#browser.tabs.off('current', this.#onCurrent);
    this.#out.event('end');
  }

  #call(method: string, params: Params, sessionId: string): void {
    void this.#browser.mux.call(method, params, sessionId).catch(() => {});
  }

  #root(method: string, params: Params): void {
    if (method === 'Target.attachedToTarget') {
      const info = params.targetInfo as { targetId: string; type: string; url: string };
      const sessionId = String(params.sessionId);
      // A tab opened while the recorder watches waits for it (auto-attach's waitForDebuggerOnStart)
      // and must be let go whatever the recorder makes of it, or its page never loads. Only such a
      // tab: this event also tells of sessions that are not the recorder's (a client's own root
      // session), where a command of the service's would answer into the client's connection.
      const release = () => {
        if (params.waitingForDebugger === true) this.#call('Runtime.runIfWaitingForDebugger', {}, sessionId);
      };
      if (info.type !== 'page' || /^chrome:\/\//.test(info.url) || this.#stopped) return release();
      this.#sessions.set(sessionId, info.targetId);
      this.#out.event('tab', { tab: info.targetId, action: 'opened', url: info.url });
      this.#call('Page.enable', {}, sessionId);
      this.#call('Runtime.enable', {}, sessionId);
      // Only events: no response bodies are kept for this session.
      this.#call('Network.enable', { maxTotalBufferSize: 0, maxResourceBufferSize: 0 }, sessionId);
      // Sent after the domains are on (a session's commands run in order): its first page is seen.
      release();
      void this.#followScreen();
    } else if (method === 'Target.detachedFromTarget') {
      const sessionId = String(params.sessionId);
      const tab = this.#sessions.get(sessionId);
      if (!tab) return;
      this.#sessions.delete(sessionId);
      if (this.#screenSession === sessionId) this.#screenSession = null;
      this.#out.event('tab', { tab, action: 'closed' });
    }
  }

  #event(sessionId: string, method: string, p: Params): void {
    const tab = this.#sessions.get(sessionId);
    if (!tab || this.#stopped) return;
    switch (method) {
      case 'Page.frameNavigated': {
        const frame = p.frame as { parentId?: string; url: string; urlFragment?: string; unreachableUrl?: string };
        if (frame.parentId) return;
        if (frame.unreachableUrl) this.#failedNavigation(sessionId, tab, frame.unreachableUrl);
        else {
          // A page the egress proxy answered in the site's place is recorded as one that failed.
          const refused = this.#failedLoads.get(tab);
          this.#failedLoads.delete(tab);
          const failed = refused?.url === frame.url ? { failed: refused.error, reason: refused.reason } : {};
          this.#out.event('navigation', { tab, url: frame.url + (frame.urlFragment ?? ''), ...failed });
        }
        if (sessionId === this.#screenSession) this.#settleSoon(sessionId);
        return;
      }
      case 'Page.loadEventFired':
        if (sessionId === this.#screenSession) this.#settleSoon(sessionId);
        return;
      case 'Page.navigatedWithinDocument':
        if (p.frameId === tab) this.#out.event('navigation', { tab, url: p.url, sameDocument: true });
        return;
      case 'Runtime.consoleAPICalled':
        return this.#out.event('console', { tab, level: p.type, text: clip(argsText(p.args as RemoteObject[])) });
      case 'Runtime.exceptionThrown': {
        const d = p.exceptionDetails as { text?: string; exception?: RemoteObject; url?: string; lineNumber?: number };
        return this.#out.event('error', { tab, text: clip(d.exception?.description ?? d.text ?? 'error'), url: d.url, line: d.lineNumber });
      }
      case 'Page.javascriptDialogOpening':
        return this.#out.event('dialog', { tab, dialogType: p.type, message: clip(String(p.message ?? '')) });
      case 'Page.screencastFrame':
        return this.#frame(sessionId, tab, p);
      case 'Network.requestWillBeSent': {
        const request = p.request as { method: string; url: string };
        const id = String(p.requestId);
        // A redirect ends the request before it with the redirect's status.
        const before = this.#requests.get(id);
        if (before && p.redirectResponse) this.#finish(id, { status: (p.redirectResponse as { status: number }).status, size: 0 });
        if (request.url.startsWith('data:')) return;
        const page = p.type === 'Document' && p.frameId === tab;
        this.#requests.set(id, { tab, method: request.method, url: request.url, start: this.#out.now(), page });
        return;
      }
      case 'Network.responseReceived': {
        const r = this.#requests.get(String(p.requestId));
        const response = p.response as { status: number; mimeType: string; headers?: Record<string, string> };
        if (r) Object.assign(r, { status: response.status, mimeType: response.mimeType });
        // The egress proxy's own answer in a plain-http site's place (only there is it the proxy's:
        // it removes such headers from what it forwards, and cannot see into https).
        const refusal = r?.page && r.url.startsWith('http:') ? header(response.headers, EGRESS_HEADER_PREFIX) : undefined;
        if (r && refusal) {
          const detail = header(response.headers, `${EGRESS_HEADER_PREFIX}-detail`);
          const reason = `${refusalInWords(refusal)}${detail ? ` (${detail})` : ''}`;
          this.#failedLoads.set(tab, { url: r.url, error: `egress: ${refusal}`, reason });
        }
        return;
      }
      case 'Network.loadingFinished':
        return this.#finish(String(p.requestId), { size: p.encodedDataLength });
      case 'Network.loadingFailed': {
        const r = this.#requests.get(String(p.requestId));
        // A tab's own page that did not load: its error page commits next (Page.frameNavigated).
        if (r?.page && !p.canceled) this.#failedLoads.set(tab, { url: r.url, error: String(p.errorText) });
        return this.#finish(String(p.requestId), { failed: p.errorText, canceled: p.canceled || undefined });
      }
    }
  }

  /**
   * A page that did not load is recorded as a navigation to the address asked for, with the net
   * error and, where the egress proxy refused or could not make the connection, why in words; not
   * as the error page Chromium shows in its place (chrome-error://chromewebdata/).
   */
  #failedNavigation(sessionId: string, tab: string, url: string): void {
    const failed = this.#failedLoads.get(tab);
    this.#failedLoads.delete(tab);
    const error = failed?.url === url ? failed.error : undefined;
    if (error !== 'net::ERR_TUNNEL_CONNECTION_FAILED' && error !== 'net::ERR_PROXY_CONNECTION_FAILED') {
      return this.#out.event('navigation', { tab, url, failed: error ?? 'the page did not load' });
    }
    const host = hostOf(url);
    // Through the tenant's own proxy, the instance remembers why its last connection there failed.
    const known = host ? this.#browser.egressFailure(host) : undefined;
    const why = known
      ? Promise.resolve(known)
      : host && this.#opts.explainUnreachable
        ? this.#opts.explainUnreachable(host).catch(() => undefined)
        : Promise.resolve(undefined);
    // Written once explained, or without the words if that takes longer than EXPLAIN_WAIT_MS (the
    // event's moment must stay near the error page's). The error page is still, and its frames may
    // all be older than the event by then: it is captured again, so that the event has a screen.
    let bound: NodeJS.Timeout | undefined;
    void Promise.race([why, new Promise<undefined>((resolve) => (bound = setTimeout(() => resolve(undefined), EXPLAIN_WAIT_MS)))]).then(
      (reason) => {
        clearTimeout(bound);
        if (this.#stopped) return;
        this.#out.event('navigation', { tab, url, failed: error, reason });
        if (sessionId === this.#screenSession) this.#settleSoon(sessionId, true);
      },
    );
  }

  #finish(id: string, fields: Record<string, unknown>): void {
    const r = this.#requests.get(id);
    if (!r) return;
    this.#requests.delete(id);
    this.#out.event('request', {
      tab: r.tab,
      method: r.method,
      url: r.url,
      status: r.status,
      mimeType: r.mimeType,
      ...fields,
      start: r.start,
      ms: this.#out.now() - r.start,
    });
  }

  /** Screencast the page in use only, and move with it. */
  async #followScreen(): Promise<void> {
    const current = this.#browser.tabs.currentId;
    const session = [...this.#sessions].find(([, tab]) => tab === current)?.[0] ?? null;
    if (session === this.#screenSession || this.#stopped) return;
    if (this.#screenSession) this.#call('Page.stopScreencast', {}, this.#screenSession);
    this.#screenSession = session;
    if (!session) return;
    const { maxWidth, maxHeight, jpegQuality: quality } = this.#opts;
    this.#call('Page.startScreencast', { format: 'jpeg', quality, maxWidth, maxHeight, everyNthFrame: this.#everyNth }, session);
    this.#settleSoon(session);
  }

  #frame(sessionId: string, tab: string, p: Params): void {
    this.#call('Page.screencastFrameAck', { sessionId: p.sessionId }, sessionId);
    if (sessionId !== this.#screenSession) return;
    const meta = p.metadata as { deviceWidth: number; deviceHeight: number };
    const fields = { tab, width: meta.deviceWidth, height: meta.deviceHeight };
    if (this.#out.now() - this.#capturedAt > CAPTURE_ECHO_MS) this.#settleSoon(sessionId);
    this.#offer(String(p.data), fields);
  }

  /** Keep a frame (base64, as it came): at most `fps` a second, the newest of a burst kept once the interval has passed. */
  #offer(data: string, fields: Record<string, unknown>): void {
    // A frame that a newer one replaces before the interval passes is never decoded.
    this.#pendingFrame = { data, fields };
    const wait = this.#lastFrameAt + 1000 / this.#opts.fps - this.#out.now();
    if (wait <= 0) return this.#flushFrame();
    // A faster page is sampled; its last frame is kept once the interval has passed.
    this.#pendingTimer ??= setTimeout(() => {
      this.#pendingTimer = null;
      this.#flushFrame();
    }, wait);
  }

  /**
   * Capture the screen once it has been still for SETTLE_MS: after a burst of frames (its last
   * change may be a skipped frame), and after a page loads (a page that draws a few times and stops
   * may send no frame at all when one in `#everyNth` is asked for). `always`: also when every frame
   * is asked for (a still page sends none, and an event written late needs one after it).
   */
  #settleSoon(sessionId: string, always = false): void {
    if (this.#everyNth === 1 && !always) return;
    if (this.#settleTimer) clearTimeout(this.#settleTimer);
    this.#settleTimer = setTimeout(() => {
      this.#settleTimer = null;
      const tab = this.#sessions.get(sessionId);
      if (this.#stopped || this.#capturing || sessionId !== this.#screenSession || !tab) return;
      const { jpegQuality: quality, maxWidth, maxHeight } = this.#opts;
      this.#capturedAt = this.#out.now();
      this.#capturing = true;
      const call = <T>(method: string, params: Params = {}) => this.#browser.mux.call<T>(method, params, sessionId);
      type Viewport = { pageX: number; pageY: number; clientWidth: number; clientHeight: number };
      void call<{ cssVisualViewport: Viewport }>('Page.getLayoutMetrics')
        .then(async ({ cssVisualViewport: v }) => {
          // What is in view, scaled down to the screencast's own bound.
          const scale = Math.min(1, maxWidth / v.clientWidth, maxHeight / v.clientHeight);
          const clip = { x: v.pageX, y: v.pageY, width: v.clientWidth, height: v.clientHeight, scale };
          const shot = await call<{ data: string }>('Page.captureScreenshot', { format: 'jpeg', quality, clip, optimizeForSpeed: true });
          const fields = { tab, width: v.clientWidth, height: v.clientHeight };
          if (!this.#stopped && sessionId === this.#screenSession) this.#offer(shot.data, fields);
        })
        .catch(() => {})
        .finally(() => (this.#capturing = false));
    }, SETTLE_MS);
  }

  #flushFrame(): void {
    const frame = this.#pendingFrame;
    if (!frame) return;
    this.#pendingFrame = null;
    this.#lastFrameAt = this.#out.now();
    this.#out.frame(Buffer.from(frame.data, 'base64'), frame.fields);
  }
}

type RemoteObject = { type: string; value?: unknown; description?: string; unserializableValue?: string };

function argsText(args: RemoteObject[] = []): string {
  return args
    .map((a) =>
      a.type === 'string'
        ? String(a.value)
        : a.value !== undefined
          ? JSON.stringify(a.value)
          : (a.unserializableValue ?? a.description ?? a.type),
    )
    .join(' ');
}

/** A response header by its lower-case name, whatever case the answer used. */
function header(headers: Record<string, string> = {}, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '') || null;
  } catch {
    return null;
  }
}

function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
}
